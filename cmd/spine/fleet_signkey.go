package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentspine/spine/spine/trace"
)

// workerKeyName is the worker's own signing key in its state directory.
const workerKeyName = "worker-sign.key"

// workerSigner reads the key a worker signs its traces with, once: path, or its own key
// in the state directory, made (with its .pub) when there is none yet.
func workerSigner(io stdio, path string) (*trace.Signer, string, error) {
	if path == "" {
		dir, err := stateDir()
		if err != nil {
			return nil, "", err
		}
		path = filepath.Join(dir, workerKeyName)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, "", err
			}
			// Workers started together race to make it: one does, the others read it.
			if fp, err := keygen(path); err == nil {
				fmt.Fprintf(io.err, "spine worker: made its signing key %s (public key %s.pub, fingerprint %s)\n", path, path, fp)
			} else if !errors.Is(err, os.ErrExist) {
				return nil, "", fmt.Errorf("making the worker's signing key: %w", err)
			}
		}
	}
	sg, err := trace.LoadSigner(path)
	if err != nil {
		return nil, "", fmt.Errorf("--sign-key: %w", err)
	}
	fmt.Fprintf(io.err, "spine worker: signing traces with %s\n", sg.Fingerprint())
	return sg, path, nil
}

// stateDir is $XDG_STATE_HOME/spine, else ~/.local/state/spine.
func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "spine"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New("no state directory for the worker's signing key: $XDG_STATE_HOME and $HOME are unset; pass --sign-key FILE")
	}
	return filepath.Join(h, ".local", "state", "spine"), nil
}
