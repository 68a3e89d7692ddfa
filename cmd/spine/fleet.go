package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentspine/spine/fleet"
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

// options resolves the flags and the environment into connection options.
func (n *natsFlags) options() (fleet.ConnectOptions, error) {
	o := fleet.ConnectOptions{URL: n.url, User: n.user, NKeyFile: n.nkey, CredsFile: n.creds,
		CAFile: n.ca, CertFile: n.cert, KeyFile: n.key}
	var ok bool
	if o.Password, o.Token, ok = fleet.Secrets(n.user, os.Getenv); !ok {
		return o, usageErrorf("--nats-user %s needs its password in $%s", n.user, envNATSPassword)
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
	return fleet.Dial(ctx, o, n.wait)
}

// jsonLines writes each value as one line of JSON, HTML characters as they are.
func jsonLines[T any](w io.Writer, vs ...T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}
