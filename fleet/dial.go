package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// EnvURL names the environment variable a client's NATS URL comes from when no flag
// gives one.
const EnvURL = "SPINE_NATS_URL"

// StateFile is where `spine serve` writes its URL: StateName in StateDir.
func StateFile(getenv func(string) string) (string, error) {
	dir, err := StateDir(getenv)
	return filepath.Join(dir, StateName), err
}

// Dial connects to the fleet, trying again for up to wait while no server answers (a
// worker may start before its server). Without a URL in o it takes the one the last
// `spine serve` wrote to its state file, read again on every try.
func Dial(ctx context.Context, o ConnectOptions, wait time.Duration) (*Client, error) {
	deadline := time.Now().Add(wait)
	for {
		opts := o
		var err error
		if opts.URL == "" {
			path, serr := StateFile(os.Getenv)
			var st State
			if serr == nil {
				st, serr = ReadState(path)
			}
			if serr == nil {
				opts.URL = st.URL
			} else if errors.Is(serr, os.ErrNotExist) {
				err = fmt.Errorf("no NATS URL: give --nats URL or $%s, or start a server with spine serve (no %s)", EnvURL, path)
			} else {
				err = serr
			}
		}
		if opts.URL != "" {
			var c *Client
			if c, err = Connect(ctx, opts); err == nil {
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
