package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/agentspine/spine/spine/trace"
)

// verifyKeyUsage is --verify-key's help, the same on every reader of traces.
const verifyKeyUsage = "refuse a trace not signed by a trusted key: a public key `FILE` (spine keygen's FILE.pub) or a directory of them (*.pub, *.pem)"

// addVerifyKey adds --verify-key to a reader of traces.
func addVerifyKey(fs *pflag.FlagSet) *string {
	return fs.String("verify-key", "", verifyKeyUsage)
}

// loadVerifyKey reads the trusted keys --verify-key names; nil when it names none.
func loadVerifyKey(path string) (trace.KeyRing, error) {
	if path == "" {
		return nil, nil
	}
	ring, err := trace.LoadKeyRing(path)
	if err != nil {
		return nil, fmt.Errorf("--verify-key: %w", err)
	}
	return ring, nil
}
