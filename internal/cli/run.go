package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// How a command's RunE ends a run (Finish says it and picks the exit status):
//   - nil: exit 0;
//   - Exit(code): the command has already written its result, which the status
//     reports; exit code;
//   - a UsageError (Usagef, and every error cobra finds in a command line): said on
//     stderr as "spine <cmd>: ...", with a pointer to --help; exit 2;
//   - Fail(code, err): said on stderr as "spine <cmd>: ..."; exit code;
//   - any other error: said on stderr as "spine <cmd>: ..."; exit 1.
const (
	exitFail  = 1
	exitUsage = 2
)

// ExitStatus ends a command with an exit status after the command has said why.
type ExitStatus int

func (s ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Exit turns a command's exit status into RunE's result: nil for 0.
func Exit(code int) error {
	if code == 0 {
		return nil
	}
	return ExitStatus(code)
}

// CodedError is a command's error that ends the run with an exit status other than 1:
// Finish prints it like any other error and returns its code.
type CodedError struct {
	Code int
	Err  error
}

func (c *CodedError) Error() string { return c.Err.Error() }
func (c *CodedError) Unwrap() error { return c.Err }

// Fail ends a command with err, said once by Finish, and exit status code.
func Fail(code int, err error) error {
	if err == nil {
		return Exit(code)
	}
	return &CodedError{Code: code, Err: err}
}

// Finish says on w the error cmd (root's, or root when nil) ended with, and returns the
// run's exit status.
func Finish(w io.Writer, root, cmd *cobra.Command, err error) int {
	if cmd == nil {
		cmd = root
	}
	var (
		st ExitStatus
		ce *CodedError
		ue *UsageError
	)
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ce):
		fmt.Fprintf(w, "%s: %v\n", cmd.CommandPath(), ce.Err)
		return ce.Code
	case !errors.As(err, &ue): // a command's own error: cobra's are all usage errors
		fmt.Fprintf(w, "%s: %v\n", cmd.CommandPath(), err)
		return exitFail
	}
	fmt.Fprintf(w, "%s: %s\n", cmd.CommandPath(), strings.TrimRight(ue.Msg, "\n"))
	switch {
	case cmd.Name() == "help" && cmd.Parent() == root:
		fmt.Fprintf(w, "Run '%s help' for the commands.\n", root.Name())
	case IsGroup(cmd) || cmd == root:
		fmt.Fprintf(w, "Run '%s --help' for its commands.\n", cmd.CommandPath())
	default:
		fmt.Fprintf(w, "Run '%s --help' for its flags.\n", cmd.CommandPath())
	}
	return exitUsage
}

// NewRoot is the root of a command tree worded as every command is: errors left to
// Finish, a near command suggested for a mistyped one, an unknown command or none at
// all a usage error, help and completion in this package's words.
func NewRoot(use, short string, in io.Reader, out, errW io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           use,
		Short:         short,
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
				return Usagef("unknown command %q; did you mean %s?", args[0], strings.Join(near, " or "))
			}
			return Usagef("unknown command %q", args[0])
		},
		RunE: func(c *cobra.Command, args []string) error {
			return Usagef("expected a command")
		},
	}
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errW)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { WriteHelp(c.OutOrStdout(), c) })
	root.SetHelpCommand(HelpCommand())
	root.SetFlagErrorFunc(FlagError)
	root.CompletionOptions.HiddenDefaultCmd = false
	return root
}

// Builder makes one command of the tree under Parent: "" for a command of the root,
// else the parent's path below it ("trace", "fleet audit").
type Builder struct {
	Parent string
	Build  func() *cobra.Command
}

// Assemble adds the builders' commands to root, parents before children whatever the
// order they come in, then the help and completion commands, and makes every error in
// a command line a usage error. A command made twice, or under a parent no builder
// makes, is a programming error: it panics.
func Assemble(root *cobra.Command, builders []Builder) {
	byPath := map[string]*cobra.Command{"": root}
	ordered := slices.Clone(builders)
	slices.SortStableFunc(ordered, func(a, b Builder) int {
		return len(strings.Fields(a.Parent)) - len(strings.Fields(b.Parent))
	})
	for _, b := range ordered {
		c := b.Build()
		path := strings.TrimSpace(b.Parent + " " + c.Name())
		if byPath[path] != nil || byPath[b.Parent] == nil {
			panic(fmt.Sprintf("%s: command %q registered twice, or under a parent no command makes", root.Name(), path))
		}
		byPath[b.Parent].AddCommand(c)
		byPath[path] = c
	}
	root.InitDefaultHelpCmd()
	CompletionCommand(root)
	MarkUsageErrors(root)
}

// JSONLines writes each value as one line of JSON, HTML characters as they are.
func JSONLines[T any](w io.Writer, vs ...T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// Show is a command's result as --json chooses: v as one JSON line on raw (JSONLines),
// or text.
func Show[T any](raw io.Writer, asJSON bool, v T, text func()) error {
	if asJSON {
		return JSONLines(raw, v)
	}
	text()
	return nil
}
