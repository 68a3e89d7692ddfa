package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/spine/trace"
)

// workerSigner reads the key a worker signs its traces with, once: path, or its own key
// in the state directory, made (with its .pub) when there is none yet.
func workerSigner(io stdio, path string) (*trace.Signer, string, error) {
	dir, err := fleet.StateDir(os.Getenv)
	if err != nil && path == "" {
		return nil, "", errors.New("no state directory for the worker's signing key: $XDG_STATE_HOME and $HOME are unset; pass --sign-key FILE")
	}
	sg, path, made, err := fleet.WorkerSigner(path, dir)
	if made != "" {
		fmt.Fprintf(io.err, "spine worker: made its signing key %s (public key %s.pub, fingerprint %s)\n", path, path, made)
	}
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(io.err, "spine worker: signing traces with %s\n", sg.Fingerprint())
	return sg, path, nil
}
