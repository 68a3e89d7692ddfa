package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentspine/spine/fleet"
)

// The fleet's commands (serve, submit, status, worker, trace get) share how they reach
// NATS: --nats URL, else $SPINE_NATS_URL, else the URL the last `spine serve` wrote to
// its state file. Secrets never go on a command line, where ps shows them: a password
// or token comes from the environment, NKeys and creds from files.

const (
	envNATSURL      = "SPINE_NATS_URL"
	envNATSPassword = "SPINE_NATS_PASSWORD"
	envNATSToken    = "SPINE_NATS_TOKEN"
)

// natsFlags are the connection flags every fleet client command takes.
type natsFlags struct {
	url, user, nkey, creds, ca, cert, key string
	wait                                  time.Duration
}

func (n *natsFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&n.url, "nats", "", "NATS `URL` (default: $"+envNATSURL+", else the server `spine serve` started, from its state file)")
	fs.StringVar(&n.user, "nats-user", "", "NATS user `NAME`; the password is read from $"+envNATSPassword+" (a token from $"+envNATSToken+")")
	fs.StringVar(&n.nkey, "nats-nkey", "", "NKey seed `FILE` to sign in with")
	fs.StringVar(&n.creds, "nats-creds", "", "NATS credentials `FILE` (user JWT and seed)")
	fs.StringVar(&n.ca, "nats-ca", "", "CA certificate `FILE` to trust for TLS")
	fs.StringVar(&n.cert, "nats-cert", "", "TLS client certificate `FILE` (with --nats-key)")
	fs.StringVar(&n.key, "nats-key", "", "TLS client key `FILE` (with --nats-cert)")
	fs.DurationVar(&n.wait, "nats-wait", 0, "keep trying to reach the server this long (workers started before it)")
}

// fleetStateFile is where `spine serve` writes its URL.
func fleetStateFile() (string, error) {
	dir, err := fleet.StateDir(os.Getenv)
	return filepath.Join(dir, fleet.StateName), err
}

// options resolves the flags and the environment into connection options.
func (n *natsFlags) options() (fleet.ConnectOptions, error) {
	o := fleet.ConnectOptions{URL: n.url, User: n.user, NKeyFile: n.nkey, CredsFile: n.creds,
		CAFile: n.ca, CertFile: n.cert, KeyFile: n.key, Token: os.Getenv(envNATSToken)}
	if n.user != "" {
		o.Password = os.Getenv(envNATSPassword)
		if o.Password == "" {
			return o, usageErrorf("--nats-user %s needs its password in $%s", n.user, envNATSPassword)
		}
		o.Token = ""
	}
	if o.URL == "" {
		o.URL = os.Getenv(envNATSURL)
	}
	return o, nil
}

// connect reaches the fleet, waiting up to --nats-wait for a server (and, without a URL,
// for serve's state file).
func (n *natsFlags) connect(ctx context.Context, name string) (*fleet.Client, error) {
	o, err := n.options()
	if err != nil {
		return nil, err
	}
	o.Name = name
	deadline := time.Now().Add(n.wait)
	for {
		opts := o
		if opts.URL == "" {
			path, serr := fleetStateFile()
			var st fleet.State
			if serr == nil {
				st, serr = fleet.ReadState(path)
			}
			if serr == nil {
				opts.URL = st.URL
			} else if errors.Is(serr, os.ErrNotExist) {
				err = fmt.Errorf("no NATS URL: give --nats URL or $%s, or start a server with spine serve (no %s)", envNATSURL, path)
			} else {
				err = serr
			}
		}
		if opts.URL != "" {
			var c *fleet.Client
			if c, err = fleet.Connect(ctx, opts); err == nil {
				return c, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
