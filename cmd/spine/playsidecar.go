package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agentspine/spine/standin/scenario"
)

// sidecarsFree refuses a play whose scorecard or candidates file already exists: like
// the trace, the seed's sidecars are evidence and never overwritten.
func sidecarsFree(tracePath string) error {
	if _, err := os.Lstat(tracePath); err == nil {
		return nil // the trace's own refusal comes first
	}
	card, cands := scenario.SidecarPaths(tracePath)
	for _, p := range []string{card, cands} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%s already exists; a play never overwrites its sidecars (choose another --trace)", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// writeSidecars writes the scorecard and candidates of a signal scenario's play beside
// its trace and says where.
func writeSidecars(io stdio, tracePath string, rep *scenario.Report) error {
	card, cands, err := rep.Sidecars()
	if err != nil {
		return err
	}
	cardPath, candsPath := scenario.SidecarPaths(tracePath)
	for _, f := range []struct {
		path string
		data []byte
	}{{cardPath, card}, {candsPath, cands}} {
		if err := writeNew(f.path, f.data); err != nil {
			return err
		}
	}
	fmt.Fprintf(io.out, "scorecard written to %s, candidates to %s\n", cardPath, candsPath)
	return nil
}

// writeNew creates path, failing if it exists, and writes data to it.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
