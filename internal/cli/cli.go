// Package cli is the command line's glue around spf13/cobra, the same for every command
// of spine: help worded and laid out one way, flags anywhere among the arguments (and
// Go's one-dash long flags), and every error cobra finds in a command line (a flag, an
// argument count, an unknown command) made a UsageError in spine's wording. It knows
// no command: cmd/spine registers its commands (Assemble) and hands each run's end to
// Finish, which says an error once and picks the exit status.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// UsageError is a wrong command line: cmd/spine says it with a pointer to --help and
// exits 2.
type UsageError struct{ Msg string }

func (u *UsageError) Error() string { return u.Msg }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

func findChild(parent *cobra.Command, name string) *cobra.Command {
	for _, c := range parent.Commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// MarkUsageErrors makes every argument check's error a usage error (flag errors are,
// through FlagError), so that every error cobra finds in a command line is one, and
// words every command's --help.
func MarkUsageErrors(c *cobra.Command) {
	c.InitDefaultHelpFlag()
	if h := c.Flags().Lookup("help"); h != nil {
		h.Usage = "show this help"
	}
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				var ue *UsageError
				if errors.As(err, &ue) {
					return err
				}
				return &UsageError{Msg: err.Error()}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		MarkUsageErrors(sub)
	}
}

// GroupCommand is a command that only holds subcommands (`spine trace`, `spine memory`):
// run alone or with an unknown subcommand it is a usage error naming the choices.
func GroupCommand(use, short, noun string) *cobra.Command {
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
			return Usagef("expected a %s: %s", noun, strings.Join(names, ", "))
		}
		return Usagef("unknown %s %q: want one of %s", noun, args[0], strings.Join(names, ", "))
	}
}

// CompletionCommand words cobra's `spine completion` as the other commands are worded,
// and makes an unknown shell a usage error.
func CompletionCommand(root *cobra.Command) {
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

// HelpCommand is `spine help [command...]`; an unknown command is a usage error, where
// cobra's own help command prints the root's usage and exits 0.
func HelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "show the help of spine or of a command",
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 && target == c.Root() {
				return Usagef("unknown command %q", strings.Join(args, " "))
			}
			if len(rest) > 0 {
				return Usagef("%s has no command %q", target.CommandPath(), rest[0])
			}
			target.InitDefaultHelpFlag()
			WriteHelp(c.OutOrStdout(), target)
			return nil
		},
	}
}

// WriteHelp writes c's usage line, description, commands and flags.
func WriteHelp(w io.Writer, c *cobra.Command) {
	var b strings.Builder
	if !c.HasParent() {
		fmt.Fprintf(&b, "spine: %s\n\nUsage: spine <command> [flags] [arguments]\n", c.Short)
	} else {
		use := c.UseLine()
		if IsGroup(c) || c.HasAvailableSubCommands() && !c.Runnable() {
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

// IsGroup reports whether c was made by GroupCommand: runnable only to say what is
// missing.
func IsGroup(c *cobra.Command) bool {
	return c.Annotations["group"] != ""
}

// NormalizeArgs prepares a command line for cobra, so that flags work anywhere as they
// did with spine's own parser:
//   - a long flag written with one dash (-all, -jobs=3) is rewritten in the two-dash form
//     pflag reads; Go's flag package, which spine used before, took both;
//   - a flag written before a subcommand that only the subcommand knows (`spine trace
//     --all show FILE`) is moved after it, where cobra looks for it.
//
// Everything after "--" and every flag's value stay as written.
func NormalizeArgs(root *cobra.Command, args []string) []string {
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

// FlagError words pflag's errors as spine always has: the flag as written, the bad value
// and what was expected.
func FlagError(c *cobra.Command, err error) error {
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
			return Usagef("unknown flag -%s", name)
		}
		return Usagef("unknown flag --%s", notExist.GetSpecifiedName())
	case errors.As(err, &required):
		written := "--" + required.GetSpecifiedName()
		if required.GetSpecifiedShortnames() != "" {
			written = "-" + required.GetSpecifiedName()
		}
		if want := flagExpects(required.GetFlag()); want != "" {
			return Usagef("flag %s needs a value: %s", written, want)
		}
		return Usagef("flag %s needs a value", written)
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		if want := flagExpects(f); want != "" {
			return Usagef("--%s=%q: %s", f.Name, invalid.GetValue(), want)
		}
		return Usagef("--%s=%q: %v", f.Name, invalid.GetValue(), errors.Unwrap(invalid))
	case errors.As(err, &syntax):
		return Usagef("bad flag syntax %q: write --name or --name=value", syntax.GetSpecifiedFlag())
	}
	return &UsageError{Msg: err.Error()}
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

// ExactArgs is cobra.ExactArgs worded as the command's own usage error: "expected " +
// what ("one trace file").
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return Usagef("expected %s", what)
		}
		return nil
	}
}

// ExactArgsCounted is ExactArgs saying how many were given: "expected one trace file,
// got 2 arguments".
func ExactArgsCounted(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return Usagef("expected %s, got %d arguments", what, len(args))
		}
		return nil
	}
}

// MinimumArgs is cobra.MinimumNArgs worded as ExactArgs is.
func MinimumArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return Usagef("expected %s", what)
		}
		return nil
	}
}
