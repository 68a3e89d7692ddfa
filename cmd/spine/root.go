package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// usageError is a wrong command line: exit 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

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
		writeHelp(io.err, root)
		return exitUsage
	}
	root.SetArgs(normalizeArgs(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	if cmd == nil {
		cmd = root
	}
	var (
		st statusError
		ce *codedError
		ue *usageError
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
	fmt.Fprintf(io.err, "%s: %s\n", cmd.CommandPath(), strings.TrimRight(ue.msg, "\n"))
	switch {
	case cmd.Name() == "help" && cmd.Parent() == root:
		fmt.Fprintln(io.err, "Run 'spine help' for the commands.")
	case isGroup(cmd) || cmd == root:
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
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c.OutOrStdout(), c) })
	root.SetHelpCommand(helpCommand())
	root.SetFlagErrorFunc(flagError)
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
	completionCommand(root)
	markUsageErrors(root)
	return root
}

func findChild(parent *cobra.Command, name string) *cobra.Command {
	for _, c := range parent.Commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// markUsageErrors makes every argument check's error a usage error (flag errors are,
// through flagError), so that every error cobra finds in a command line is one, and
// words every command's --help.
func markUsageErrors(c *cobra.Command) {
	c.InitDefaultHelpFlag()
	if h := c.Flags().Lookup("help"); h != nil {
		h.Usage = "show this help"
	}
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				var ue *usageError
				if errors.As(err, &ue) {
					return err
				}
				return &usageError{msg: err.Error()}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markUsageErrors(sub)
	}
}

// groupCommand is a command that only holds subcommands (`spine trace`, `spine memory`):
// run alone or with an unknown subcommand it is a usage error naming the choices.
func groupCommand(use, short, noun string) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short}
	makeGroup(c, noun)
	return c
}

func makeGroup(c *cobra.Command, noun string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations["group"] = noun
	c.Args = nil
	c.RunE = func(c *cobra.Command, args []string) error {
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		if len(args) == 0 {
			return usageErrorf("expected a %s: %s", noun, strings.Join(names, ", "))
		}
		return usageErrorf("unknown %s %q: want one of %s", noun, args[0], strings.Join(names, ", "))
	}
}

// completionCommand words cobra's `spine completion` as the other commands are worded,
// and makes an unknown shell a usage error.
func completionCommand(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	c := findChild(root, "completion")
	if c == nil {
		return
	}
	c.Short = "print the shell completion script for bash, zsh, fish or powershell"
	c.Long = c.Short + `; e.g. source <(spine completion bash) in ~/.bashrc,
spine completion zsh > "${fpath[1]}/_spine",
spine completion fish > ~/.config/fish/completions/spine.fish`
	makeGroup(c, "shell")
	for _, sh := range c.Commands() {
		sh.Short = "print the completion script for " + sh.Name()
	}
}

// helpCommand is `spine help [command...]`; an unknown command is a usage error, where
// cobra's own help command prints the root's usage and exits 0.
func helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "show the help of spine or of a command",
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 && target == c.Root() {
				return usageErrorf("unknown command %q", strings.Join(args, " "))
			}
			if len(rest) > 0 {
				return usageErrorf("%s has no command %q", target.CommandPath(), rest[0])
			}
			target.InitDefaultHelpFlag()
			writeHelp(c.OutOrStdout(), target)
			return nil
		},
	}
}

// writeHelp writes c's usage line, description, commands and flags.
func writeHelp(w io.Writer, c *cobra.Command) {
	var b strings.Builder
	if !c.HasParent() {
		fmt.Fprintf(&b, "spine: %s\n\nUsage: spine <command> [flags] [arguments]\n", c.Short)
	} else {
		use := c.UseLine()
		if isGroup(c) || c.HasAvailableSubCommands() && !c.Runnable() {
			use = c.CommandPath() + " <command> [flags]"
		}
		fmt.Fprintf(&b, "Usage: %s\n\n", use)
		desc := c.Long
		if desc == "" {
			desc = c.Short
		}
		fmt.Fprintf(&b, "%s\n", strings.TrimRight(desc, "\n"))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		width := 0
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				width = max(width, len(sub.Name()))
			}
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "  %-*s  %s\n", width, sub.Name(), sub.Short)
			}
		}
	}
	if c.HasParent() && c.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\nFlags:\n%s", c.LocalFlags().FlagUsages())
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\nFlags of %s:\n%s", c.Parent().CommandPath(), c.InheritedFlags().FlagUsages())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nRun '%s <command> --help' for a command's flags.\n", c.CommandPath())
	}
	io.WriteString(w, b.String())
}

// isGroup reports whether c was made by groupCommand: runnable only to say what is
// missing.
func isGroup(c *cobra.Command) bool {
	return c.Annotations["group"] != ""
}

// normalizeArgs prepares a command line for cobra, so that flags work anywhere as they
// did with spine's own parser:
//   - a long flag written with one dash (-all, -jobs=3) is rewritten in the two-dash form
//     pflag reads; Go's flag package, which spine used before, took both;
//   - a flag written before a subcommand that only the subcommand knows (`spine trace
//     --all show FILE`) is moved after it, where cobra looks for it.
//
// Everything after "--" and every flag's value stay as written.
func normalizeArgs(root *cobra.Command, args []string) []string {
	out := []string{}
	var pending []string // flags the current command does not know, given before its subcommand
	cur := root
	sawPositional := false
	lookup := func(name string) *pflag.Flag {
		if f := cur.LocalFlags().Lookup(name); f != nil {
			return f
		}
		return cur.InheritedFlags().Lookup(name)
	}
	// long returns a as a two-dash flag when it is a long flag of cur written with one.
	long := func(a string) string {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			if name, _, _ := strings.Cut(a[1:], "="); len(name) > 1 && (name == "help" || lookup(name) != nil) {
				return "-" + a
			}
		}
		return a
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, pending...)
			pending = nil
			out = append(out, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if !sawPositional && !cur.DisableFlagParsing {
				if sub := findChild(cur, a); sub != nil {
					cur = sub
					out = append(out, a)
					for _, p := range pending {
						out = append(out, long(p))
					}
					pending = nil
					continue
				}
			}
			sawPositional = true
			out = append(out, a)
			continue
		}
		if cur.DisableFlagParsing {
			out = append(out, a)
			continue
		}
		a = long(a)
		if a[1] != '-' {
			if len(a) > 2 && !sawPositional && cur.HasSubCommands() {
				pending = append(pending, a) // -all before the subcommand that has it
				continue
			}
			out = append(out, a)
			// A shorthand, possibly taking the next argument as its value.
			if len(a) == 2 && i+1 < len(args) {
				if f := cur.Flags().ShorthandLookup(a[1:]); f != nil && f.NoOptDefVal == "" {
					i++
					out = append(out, args[i])
				}
			}
			continue
		}
		name, _, inline := strings.Cut(a[2:], "=")
		f := lookup(name)
		if f == nil && name != "help" && !sawPositional && cur.HasSubCommands() {
			pending = append(pending, a)
			continue
		}
		out = append(out, a)
		if f != nil && !inline && f.NoOptDefVal == "" && i+1 < len(args) {
			i++ // its value, which may start with a dash
			out = append(out, args[i])
		}
	}
	return append(out, pending...)
}

// flagError words pflag's errors as spine always has: the flag as written, the bad value
// and what was expected.
func flagError(c *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		required *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &notExist):
		if short := notExist.GetSpecifiedShortnames(); short != "" {
			name, _, _ := strings.Cut(short, "=")
			return usageErrorf("unknown flag -%s", name)
		}
		return usageErrorf("unknown flag --%s", notExist.GetSpecifiedName())
	case errors.As(err, &required):
		written := "--" + required.GetSpecifiedName()
		if required.GetSpecifiedShortnames() != "" {
			written = "-" + required.GetSpecifiedName()
		}
		if want := flagExpects(required.GetFlag()); want != "" {
			return usageErrorf("flag %s needs a value: %s", written, want)
		}
		return usageErrorf("flag %s needs a value", written)
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		if want := flagExpects(f); want != "" {
			return usageErrorf("--%s=%q: %s", f.Name, invalid.GetValue(), want)
		}
		return usageErrorf("--%s=%q: %v", f.Name, invalid.GetValue(), errors.Unwrap(invalid))
	case errors.As(err, &syntax):
		return usageErrorf("bad flag syntax %q: write --name or --name=value", syntax.GetSpecifiedFlag())
	}
	return &usageError{msg: err.Error()}
}

// flagExpects says what value f takes, for pflag's own types (their errors quote
// strconv's); "" for other types, whose Set errors say it themselves.
func flagExpects(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		return "expected true or false"
	case "int", "int8", "int16", "int32", "int64":
		return "expected an integer"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "expected a non-negative integer"
	case "float32", "float64":
		return "expected a number"
	case "duration":
		return "expected a duration with a unit, e.g. 120s or 2m"
	}
	return ""
}
