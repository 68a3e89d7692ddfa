package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/internal/cli"
)

// The fleet's commands (serve, submit, status, worker, trace get) share how they reach
// NATS: --nats URL, else $SPINE_NATS_URL, else the URL the last `spine serve` wrote to
// its state file. Secrets never go on a command line, where ps shows them: a password
// or token comes from the environment, NKeys and creds from files.

const (
	envNATSURL      = fleet.EnvURL
	envNATSPassword = fleet.EnvPassword
	envNATSToken    = fleet.EnvToken
)

// natsFlags are the connection flags every fleet client command takes.
type natsFlags struct {
	o    fleet.ConnectOptions
	wait time.Duration
}

func (n *natsFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&n.o.URL, "nats", "", "NATS `URL` (default: $"+envNATSURL+", else the server `spine serve` started, from its state file)")
	fs.StringVar(&n.o.User, "nats-user", "", "NATS user `NAME`; the password is read from $"+envNATSPassword+" (a token from $"+envNATSToken+")")
	fs.StringVar(&n.o.NKeyFile, "nats-nkey", "", "NKey seed `FILE` to sign in with")
	fs.StringVar(&n.o.CredsFile, "nats-creds", "", "NATS credentials `FILE` (user JWT and seed)")
	fs.StringVar(&n.o.CAFile, "nats-ca", "", "CA certificate `FILE` to trust for TLS")
	fs.StringVar(&n.o.CertFile, "nats-cert", "", "TLS client certificate `FILE` (with --nats-key)")
	fs.StringVar(&n.o.KeyFile, "nats-key", "", "TLS client key `FILE` (with --nats-cert)")
	fs.DurationVar(&n.wait, "nats-wait", 0, "keep trying to reach the server this long (workers started before it)")
}

// connect reaches the fleet with the flags and the environment's secrets (FromEnv),
// waiting up to --nats-wait for a server (and, without a URL, for serve's state file).
func (n *natsFlags) connect(ctx context.Context, name string) (*fleet.Client, error) {
	o := n.o
	if err := o.FromEnv(os.Getenv); err != nil {
		return nil, cli.Usagef("--nats-user %v", err)
	}
	o.Name = name
	return fleet.Dial(ctx, o, n.wait)
}
