package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
)

// The command tree is spf13/cobra's: it gives nested commands (`spine trace show`,
// `spine memory ls`), flags anywhere among the arguments, help for every command and
// shell completion. Each command lives in its own file and registers a builder in an init
// function with addCommand, so adding one touches no shared list. The tree is built anew
// for every Run, so flag values never leak from one call to the next (tests call Run many
// times in one process).
//
// A command's RunE returns
//   - nil: exit 0;
//   - cli.Exit(code): the command has already said what was wrong; exit code;
//   - cli.Usagef(...): the command line was wrong; said on stderr as "spine <cmd>: ...",
//     with a pointer to --help; exit 2;
//   - cli.Fail(code, err): said on stderr as "spine <cmd>: ..."; exit code;
//   - any other error: said on stderr as "spine <cmd>: ..."; exit 1.
//
// Flag errors and argument-count errors (cobra.ExactArgs and the like) are usage errors.
// internal/cli says them (cli.Finish).

// commandBuilder is one addCommand registration.
type commandBuilder struct {
	parent string // "" for a top-level command, else the parent's path below spine: "trace"
	build  func(io stdio) *cobra.Command
}

var builders []commandBuilder

// addCommand registers a command under parent ("" for `spine X`, "trace" for
// `spine trace X`, "memory" for `spine memory X`). build makes the command with its flags
// declared on it; it is called once for every Run with that Run's streams.
func addCommand(parent string, build func(io stdio) *cobra.Command) {
	builders = append(builders, commandBuilder{parent: parent, build: build})
}

// Run is the whole CLI: main only wires the process's streams and signals to it, and the
// testscript tests call it in-process.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	io, flush := newStdio(stdin, stdout, stderr)
	defer flush()
	root := newRoot(io)
	if len(args) == 0 {
		cli.WriteHelp(io.err, root)
		return exitUsage
	}
	root.SetArgs(cli.NormalizeArgs(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	return cli.Finish(io.err, root, cmd, err)
}

// newRoot builds the command tree for one Run.
func newRoot(io stdio) *cobra.Command {
	root := cli.NewRoot("spine", "a deterministic control spine for LLM agents", io.in, io.out, io.err)
	subs := make([]cli.Builder, len(builders))
	for i, b := range builders {
		subs[i] = cli.Builder{Parent: b.parent, Build: func() *cobra.Command { return b.build(io) }}
	}
	cli.Assemble(root, subs)
	return root
}
