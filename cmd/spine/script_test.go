package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("rewrite", false, "rewrite the expected output in testscript files (cmp against files in the archive)")

func TestMain(m *testing.M) {
	// spine run snapshots its work dir into the state directory by default: the tests'
	// runs keep theirs out of the user's (one store for every run of the tests: it is
	// safe to share). The scripts' spine commands keep the environment their script sets.
	if os.Getenv("XDG_STATE_HOME") == "" && filepath.Base(os.Args[0]) != "spine" {
		os.Setenv("XDG_STATE_HOME", filepath.Join(os.TempDir(), "spine-test-state"))
	}
	testscript.Main(m, map[string]func(){
		// As main does: the interrupt testscript sends a background command at the end of
		// a script (spine serve, spine worker) cancels the run, even when the test was
		// started with SIGINT ignored (a job started with & by a non-interactive shell),
		// where the default action would never end the process and the script would hang.
		"spine": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		},
	})
}

// TestScripts runs the CLI scenarios in testdata/script: each .txtar is a shell-like script
// with its input files, the commands to run and the exact output expected.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			// Scripts copy the shipped rule files to edit them, as users do.
			rulesDir, err := filepath.Abs("../../rules")
			env.Setenv("RULES", rulesDir)
			// A worker makes its signing key in the state directory: the script's own.
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
			return err
		},
	})
}
