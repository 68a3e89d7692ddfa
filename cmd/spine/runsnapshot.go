package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/snapshot"
)

const snapshotFlagHelp = "snapshot the work dir before the first round and after every round into the state directory's store, each root hash in the trace, for spine resume and fork (default on without --memory; off with a warning when the work dir is over 256 MiB or 20,000 entries)"

// runSnapshots is the store spine run snapshots its work dir into, nil for none. On by
// default, it is turned off with a warning when the work dir cannot be snapshotted (over
// the store's limits, a file a snapshot cannot hold, the store inside the work dir);
// asked for explicitly (explicit), it is an error then, except over the limits.
func runSnapshots(io stdio, on, explicit bool, workdir string) (*snapshot.Store, error) {
	if !on {
		return nil, nil
	}
	state, err := fleet.StateDir(os.Getenv)
	var s *snapshot.Store
	if err != nil {
		err = fmt.Errorf("no state directory: %w", err)
	} else if s, err = snapshot.OpenFor(state, workdir); err == nil {
		return s, nil
	}
	var limit *snapshot.LimitError
	if explicit && !errors.As(err, &limit) {
		return nil, failWith(exitUsage, fmt.Errorf("--snapshot: %w", err))
	}
	warn(io, fmt.Sprintf("no snapshots of the work dir: %v (--snapshot=false says so quietly)", err))
	return nil, nil
}
