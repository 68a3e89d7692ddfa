package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/snapshot"
)

const snapshotFlagHelp = "snapshot the work dir before the first round, after every tool call that may change it and after every round into the state directory's store, each root hash in the trace, for spine resume and fork (default on without --memory; off with a warning when the work dir is over 256 MiB or 20,000 entries)"

// runSnapshots is the store spine run snapshots its work dir into, nil for none. On by
// default, it is turned off with a warning when the work dir cannot be snapshotted
// (fleet.RunSnapshots); asked for explicitly (explicit), it is an error then, except
// over the store's limits.
func runSnapshots(io stdio, on, explicit bool, workdir string) (*snapshot.Store, error) {
	if !on {
		return nil, nil
	}
	s, err := fleet.RunSnapshots(workdir, os.Getenv)
	if _, limit := errors.AsType[*snapshot.LimitError](err); err != nil && explicit && !limit {
		return nil, cli.Fail(exitUsage, fmt.Errorf("--snapshot: %w", err))
	} else if err != nil {
		warn(io, fmt.Sprintf("no snapshots of the work dir: %v (--snapshot=false says so quietly)", err))
		return nil, nil
	}
	return s, nil
}
