package mcp

import (
	"context"
	"os"

	"github.com/agentspine/spine/effectors/sandbox"
)

// OpenListing starts servers as a run would, in a sandbox over workdir (bubblewrap
// unless unconfined), to list their tools: nothing is called. done closes the toolbox,
// then the sandbox.
func OpenListing(ctx context.Context, servers []Server, workdir string, unconfined bool) (tb *Toolbox, done func(), err error) {
	var jail sandbox.Jail = sandbox.Unconfined{}
	if !unconfined {
		b, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
		if err != nil {
			return nil, nil, err
		}
		jail = b
	}
	box, err := sandbox.New(workdir, sandbox.Options{Jail: jail})
	if err != nil {
		return nil, nil, err
	}
	// The work dir is handed to the sandbox's uid before a server writes in it.
	if _, err := box.Isolation(); err != nil {
		box.Close()
		return nil, nil, err
	}
	starter, _ := jail.(sandbox.Starter)
	tb, err = Open(ctx, nil, Options{Servers: servers, Starter: starter, Dir: box.Root(), Env: os.LookupEnv})
	if err != nil {
		box.Close()
		return nil, nil, err
	}
	return tb, func() {
		tb.Close()
		box.Close()
	}, nil
}
