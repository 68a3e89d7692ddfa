package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/termtext"
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

// WriteListing shows what OpenListing found, for `spine mcp ls`: each server with its
// transport, then its tools with their descriptions and schemas, or why it or a tool is
// unavailable. The servers' words go out one escaped line each. It reports whether a
// server was unavailable.
func (tb *Toolbox) WriteListing(w io.Writer) (unavailable bool) {
	for _, st := range tb.Status() {
		if st.Unavailable != "" {
			unavailable = true
			fmt.Fprintf(w, "%s (%s): unavailable: %s\n", st.Name, st.Transport, termtext.Line(st.Unavailable))
			continue
		}
		fmt.Fprintf(w, "%s (%s)\n", st.Name, st.Transport)
		for _, t := range tb.Tools() {
			if t.Server != st.Name {
				continue
			}
			if t.Refused != "" {
				fmt.Fprintf(w, "  refused %s: %s\n", termtext.Line(t.Remote), termtext.Line(t.Refused))
				continue
			}
			var schema any
			_ = json.Unmarshal(t.Schema, &schema)
			compact, _ := json.Marshal(schema)
			fmt.Fprintf(w, "  %s\n    %s\n    schema: %s\n", t.Name, termtext.Line(t.Description), termtext.Line(string(compact)))
		}
	}
	return unavailable
}
