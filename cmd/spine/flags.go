package main

import (
	"flag"
	"fmt"
	"strings"
	"time"
)

// Flags may come before, between or after positional arguments: `spine run "task"
// --workdir DIR` is the order the help shows, and Go's flag package alone would stop at
// "task" and take the flags for task text. Every command parses through parseArgs, so
// the rule is the same everywhere: "--" ends the flags, "-" alone is a positional (stdin),
// a boolean flag never takes the next argument, any other flag does unless written
// --flag=value, and an unknown flag is an error that names it.

// flagArg is one flag as written on the command line.
type flagArg struct {
	arg       string // the argument it came from
	written   string // the flag as typed, without "=value": "--trace", "-all"
	name      string // without dashes
	value     string
	hasValue  bool // a value was given (inline, or the next argument)
	missing   bool // a flag that takes a value ended the command line
	malformed bool // "---x", "-=x": not a flag name at all
}

// isFlagArg reports whether arg is written as a flag rather than a positional.
func isFlagArg(arg string) bool {
	return len(arg) > 1 && arg[0] == '-'
}

// isBoolFlag reports whether the flag takes no value unless one is given inline.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// splitArgs separates the flags of args from its positional arguments, keeping the order
// of each. fs says which flags are boolean; a flag fs does not define takes no value (it
// is an error anyway, reported by parseArgs).
func splitArgs(fs *flag.FlagSet, args []string) (flags []flagArg, positional []string) {
	flags, at := scanArgs(fs, args)
	for _, i := range at {
		positional = append(positional, args[i])
	}
	return flags, positional
}

// scanArgs is splitArgs giving the positionals as indexes into args.
func scanArgs(fs *flag.FlagSet, args []string) (flags []flagArg, positional []int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for j := i + 1; j < len(args); j++ {
				positional = append(positional, j)
			}
			break
		}
		if !isFlagArg(a) {
			positional = append(positional, i)
			continue
		}
		name := strings.TrimPrefix(a[1:], "-")
		fa := flagArg{arg: a, written: a, name: name}
		if n, v, ok := strings.Cut(name, "="); ok {
			fa.name, fa.value, fa.hasValue = n, v, true
			fa.written = a[:len(a)-len(v)-1]
		}
		if fa.name == "" || fa.name[0] == '-' || fa.name[0] == '=' {
			fa.malformed = true
			flags = append(flags, fa)
			continue
		}
		if f := fs.Lookup(fa.name); f != nil && !fa.hasValue && !isBoolFlag(f) {
			if i+1 < len(args) {
				i++
				fa.value, fa.hasValue = args[i], true
			} else {
				fa.missing = true
			}
		}
		flags = append(flags, fa)
	}
	return flags, positional
}

// parseArgs sets fs's flags from args wherever they appear and records the positional
// arguments as fs.Args(). It returns flag.ErrHelp for -h, -help or --help (unless fs
// defines them), or an error naming the flag, the bad value and what was expected.
func parseArgs(fs *flag.FlagSet, args []string) error {
	flags, positional := splitArgs(fs, args)
	for _, fa := range flags {
		if err := setFlag(fs, fa); err != nil {
			return err
		}
	}
	// Parsing "--" then the positionals sets fs.Args() and marks fs as parsed.
	return fs.Parse(append([]string{"--"}, positional...))
}

func setFlag(fs *flag.FlagSet, fa flagArg) error {
	if fa.malformed {
		return fmt.Errorf("bad flag syntax %q: write --name or --name=value", fa.arg)
	}
	f := fs.Lookup(fa.name)
	if f == nil {
		if fa.name == "h" || fa.name == "help" {
			return flag.ErrHelp
		}
		return fmt.Errorf("unknown flag %s", fa.written)
	}
	value := fa.value
	switch {
	case fa.missing:
		if want := flagExpects(f); want != "" {
			return fmt.Errorf("flag %s needs a value: %s", fa.written, want)
		}
		return fmt.Errorf("flag %s needs a value", fa.written)
	case !fa.hasValue: // a boolean flag given alone
		value = "true"
	}
	if err := fs.Set(fa.name, value); err != nil {
		if want := flagExpects(f); want != "" {
			return fmt.Errorf("%s=%q: %s", fa.written, value, want)
		}
		return fmt.Errorf("%s=%q: %v", fa.written, value, err)
	}
	return nil
}

// flagExpects says what value f takes, for the flag package's own types (their errors
// say only "parse error"); "" for other types, whose Set errors say it themselves.
func flagExpects(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case bool:
		return "expected true or false"
	case int, int64:
		return "expected an integer"
	case uint, uint64:
		return "expected a non-negative integer"
	case float64:
		return "expected a number"
	case time.Duration:
		return "expected a duration with a unit, e.g. 120s or 2m"
	}
	return ""
}
