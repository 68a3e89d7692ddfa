package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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
//   - exitStatus(code): the command has already said what was wrong; exit code;
//   - usageErrorf(...): the command line was wrong; said on stderr as "spine <cmd>: ...",
//     with a pointer to --help; exit 2;
//   - failWith(code, err): said on stderr as "spine <cmd>: ..."; exit code;
//   - any other error: said on stderr as "spine <cmd>: ..."; exit 1.
//
// Flag errors and argument-count errors (cobra.ExactArgs and the like) are usage errors.

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

// statusError ends a command with an exit status after the command has said why.
type statusError int

func (s statusError) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// exitStatus turns a command's exit status into RunE's result.
func exitStatus(code int) error {
	if code == exitOK {
		return nil
	}
	return statusError(code)
}

// usageErrorf is a wrong command line (cli.UsageError): exit 2.
func usageErrorf(format string, a ...any) error { return cli.Usagef(format, a...) }

// groupCommand is a command that only holds subcommands (cli.GroupCommand).
func groupCommand(use, short, noun string) *cobra.Command { return cli.GroupCommand(use, short, noun) }

// codedError is a command's error that ends the run with an exit status other than 1
// (exitFail): Run prints it like any other error and returns its code.
type codedError struct {
	code int
	err  error
}

func (c *codedError) Error() string { return c.err.Error() }
func (c *codedError) Unwrap() error { return c.err }

// failWith ends a command with err, printed once by Run, and exit status code.
func failWith(code int, err error) error {
	if err == nil {
		return exitStatus(code)
	}
	return &codedError{code: code, err: err}
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
	if cmd == nil {
		cmd = root
	}
	var (
		st statusError
		ce *codedError
		ue *cli.UsageError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ce):
		fmt.Fprintf(io.err, "%s: %v\n", cmd.CommandPath(), ce.err)
		return ce.code
	case !errors.As(err, &ue): // a command's own error: cobra's are all usage errors
		fmt.Fprintf(io.err, "%s: %v\n", cmd.CommandPath(), err)
		return exitFail
	}
	fmt.Fprintf(io.err, "%s: %s\n", cmd.CommandPath(), strings.TrimRight(ue.Msg, "\n"))
	switch {
	case cmd.Name() == "help" && cmd.Parent() == root:
		fmt.Fprintln(io.err, "Run 'spine help' for the commands.")
	case cli.IsGroup(cmd) || cmd == root:
		fmt.Fprintf(io.err, "Run '%s --help' for its commands.\n", cmd.CommandPath())
	default:
		fmt.Fprintf(io.err, "Run '%s --help' for its flags.\n", cmd.CommandPath())
	}
	return exitUsage
}

// newRoot builds the command tree for one Run.
func newRoot(io stdio) *cobra.Command {
	root := &cobra.Command{
		Use:           "spine",
		Short:         "a deterministic control spine for LLM agents",
		SilenceErrors: true,
		SilenceUsage:  true,
		// `spine rn` suggests run, `spine trce` trace.
		SuggestionsMinimumDistance: 2,
		// Without Args and RunE cobra would print help and exit 0 for `spine frob`.
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			if near := c.SuggestionsFor(args[0]); len(near) > 0 {
				return usageErrorf("unknown command %q; did you mean %s?", args[0], strings.Join(near, " or "))
			}
			return usageErrorf("unknown command %q", args[0])
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usageErrorf("expected a command")
		},
	}
	root.SetIn(io.in)
	root.SetOut(io.out)
	root.SetErr(io.err)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { cli.WriteHelp(c.OutOrStdout(), c) })
	root.SetHelpCommand(cli.HelpCommand())
	root.SetFlagErrorFunc(cli.FlagError)
	root.CompletionOptions.HiddenDefaultCmd = false

	// Parents before children: a builder's parent may be registered in a later file.
	byPath := map[string]*cobra.Command{"": root}
	ordered := slices.Clone(builders)
	slices.SortStableFunc(ordered, func(a, b commandBuilder) int {
		return len(strings.Fields(a.parent)) - len(strings.Fields(b.parent))
	})
	for _, b := range ordered {
		c := b.build(io)
		path := strings.TrimSpace(b.parent + " " + c.Name())
		if byPath[path] != nil || byPath[b.parent] == nil {
			panic(fmt.Sprintf("spine: command %q registered twice, or under a parent no command makes", path))
		}
		byPath[b.parent].AddCommand(c)
		byPath[path] = c
	}
	root.InitDefaultHelpCmd()
	cli.CompletionCommand(root)
	cli.MarkUsageErrors(root)
	return root
}
