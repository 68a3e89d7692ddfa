package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/internal/cli"
)

const serveLong = `Start an embedded NATS server with JetStream storing in --dir, print its URL and
serve until interrupted. The queue, the statuses, the traces and the bus messages live
in --dir and survive a restart on the same directory.

The URL is also written to the state file ($XDG_STATE_HOME/spine/fleet.json, else
~/.local/state/spine/fleet.json), which submit, status, worker and trace get read when
neither --nats nor $SPINE_NATS_URL is given. Clients must sign in when --user is given
(the password is read from $SPINE_NATS_PASSWORD), when $SPINE_NATS_TOKEN is set, or
with --nkey (NKey users' public keys); --tls-cert and --tls-key make them use TLS.
Nothing secret is written to the state file or printed.`

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		var dir, listen, user, tlsCert, tlsKey string
		var nkeyUsers []string
		c := &cobra.Command{
			Use:   "serve [--dir DIR] [--listen HOST:PORT] [--user NAME | --nkey KEY...] [--tls-cert FILE --tls-key FILE]",
			Short: "start an embedded NATS JetStream server for a fleet of workers and print its URL",
			Long:  serveLong,
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				cfg, err := serveConfig(dir, listen, user)
				if err != nil {
					return err
				}
				cfg.NKeys = nkeyUsers
				if (tlsCert == "") != (tlsKey == "") {
					return cli.Usagef("--tls-cert and --tls-key go together")
				}
				if err := cfg.LoadTLS(tlsCert, tlsKey); err != nil {
					return err
				}
				return runServe(c.Context(), io, cfg)
			},
		}
		fs := c.Flags()
		fs.StringVar(&dir, "dir", "", "JetStream's store `DIR` (default: $XDG_STATE_HOME/spine/nats, else ~/.local/state/spine/nats)")
		fs.StringVar(&listen, "listen", "127.0.0.1:4222", "`HOST:PORT` to listen on (port 0: any free port)")
		fs.StringVar(&user, "user", "", "require this user `NAME`, with the password in $"+envNATSPassword)
		fs.StringArrayVar(&nkeyUsers, "nkey", nil, "let in the NKey user with this public `KEY` (U…; repeatable); clients sign in with --nats-nkey SEEDFILE")
		fs.StringVar(&tlsCert, "tls-cert", "", "serve TLS with this certificate `FILE` (with --tls-key); clients trust it with --nats-ca")
		fs.StringVar(&tlsKey, "tls-key", "", "the TLS certificate's key `FILE`")
		return c
	})
}

func serveConfig(dir, listen, user string) (fleet.ServerConfig, error) {
	cfg := fleet.ServerConfig{Dir: dir, User: user}
	if err := cfg.ParseListen(listen); err != nil {
		return cfg, cli.Usagef("--listen %v", err)
	}
	if err := cfg.FromEnv(os.Getenv); err != nil {
		return cfg, cli.Usagef("--user %v", err)
	}
	return cfg, nil
}

func runServe(ctx context.Context, io stdio, cfg fleet.ServerConfig) error {
	srv, dir, state, err := fleet.StartRecorded(cfg, os.Getenv)
	if err != nil {
		return err
	}
	defer srv.Shutdown()
	// The URL first and alone on its line: scripts read it.
	fmt.Fprintln(io.out, srv.URL())
	fmt.Fprintf(io.err, "spine serve: JetStream in %s; URL written to %s; interrupt to stop\n", dir, state)
	<-ctx.Done()
	return nil
}
