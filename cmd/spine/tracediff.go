package main

import (
	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// `spine trace diff A B` says where two traces part (runlog.Compare): the first differing
// event and, kind by kind, what each side decided, sent and exchanged.

func init() {
	addCommand("trace", func(io stdio) *cobra.Command {
		return &cobra.Command{
			Use:   "diff [flags] A B",
			Short: "compare two traces: the first differing event, then decisions, messages and exchanges side by side (exit 0 identical, 1 different)",
			Args:  cli.ExactArgs(2, "two trace files, A and B"),
			RunE: func(c *cobra.Command, args []string) error {
				return runTraceDiff(io, args[0], args[1])
			},
		}
	})
}

func runTraceDiff(io stdio, pathA, pathB string) error {
	var files [2]*trace.File
	for i, path := range []string{pathA, pathB} {
		f, err := readTraceFile("diff", path, io.err)
		if err != nil {
			return err
		}
		files[i] = f
	}
	if textview.Diff(io.out, pathA, pathB, runlog.Compare(files[0], files[1])) {
		return nil
	}
	return cli.Exit(exitFail)
}
