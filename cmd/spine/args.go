package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/spine/trace"
)

// The helpers the trace commands share for their arguments and output files.

// traceArgs expands directories into the *.jsonl files under them, sorted
// (trace.Paths). No argument is a usage error (exit 2); an argument that does not
// exist, or a directory with no trace under it, is an input error (exit 1), as for
// every command that reads a file.
func traceArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, cli.Usagef("expected trace files or directories")
	}
	paths, err := trace.Paths(args)
	if err != nil {
		return nil, cli.FileError(err)
	}
	return paths, nil
}

// readTraceFile reads a spine trace whole for a `spine trace` subcommand, with the
// verdicts of trace show: a file that is not a spine trace, or has an unreadable line,
// is an error; an incomplete recording is said on warn and read up to where it ends.
// The hash chain is checked (File.Chain, File.ChainErr); what a broken one means is the
// caller's to say. The error's long quoted input is cut (linecap.BoundQuotes).
func readTraceFile(sub, path string, warn io.Writer) (*trace.File, error) {
	f, err := trace.ReadFile(path)
	if err != nil {
		return nil, errors.New(linecap.BoundQuotes(cli.FileError(err).Error()))
	}
	if inc := f.Incomplete(); inc != "" {
		fmt.Fprintf(warn, "spine trace %s: %s: %s\n", sub, path, inc)
	}
	return f, nil
}
