package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	off := func(err error) (*snapshot.Store, error) {
		var limit *snapshot.LimitError
		if explicit && !errors.As(err, &limit) {
			return nil, failWith(exitUsage, fmt.Errorf("--snapshot: %w", err))
		}
		warn(io, fmt.Sprintf("no snapshots of the work dir: %v (--snapshot=false says so quietly)", err))
		return nil, nil
	}
	state, err := fleet.StateDir(os.Getenv)
	if err != nil {
		return off(fmt.Errorf("no state directory: %w", err))
	}
	dir := snapshot.DefaultDir(state)
	if inside(dir, workdir) {
		return off(fmt.Errorf("the snapshot store %s is inside the work dir %s", dir, workdir))
	}
	s, err := snapshot.Open(dir)
	if err != nil {
		return off(err)
	}
	// The first snapshot is the check that the work dir can be snapshotted, and makes
	// the run's own first one incremental.
	if _, _, err := s.Take(workdir); err != nil {
		return off(err)
	}
	return s, nil
}

// inside reports whether path is dir or lies under it, symlinks resolved as far as they
// exist.
func inside(path, dir string) bool {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		return a
	}
	p, d := abs(path), abs(dir)
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
