package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Exit statuses shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found a problem (bad input line, divergence, finding)
	exitUsage = 2 // the command line itself was wrong
)

// io bundles the standard streams a subcommand may use; subcommands never touch os.Std*.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one `spine` subcommand. Each lives in its own file and registers itself in
// an init function, so adding one touches no shared list.
type command struct {
	name    string
	summary string // one line for `spine help`
	usage   string // argument synopsis, e.g. "[--rules FILE] TRACE"
	// run parses its own flags from args with newFlags and returns an exit status.
	run func(ctx context.Context, io stdio, args []string) int
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("spine: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// Run is the whole CLI: main only wires the process's streams and signals to it, and the
// testscript tests call it in-process.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	io := stdio{in: stdin, out: stdout, err: stderr}
	if len(args) == 0 {
		usage(io.err)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(ctx, io, []string{"--help"})
			}
		}
		usage(io.out)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(io.err, "spine: unknown command %q\n\n", args[0])
		usage(io.err)
		return exitUsage
	}
	return c.run(ctx, io, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "spine: a deterministic control spine for LLM agents")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: spine <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'spine <command> --help' for a command's flags.")
}

// newFlags returns a FlagSet for c whose --help text names the command and its synopsis.
// Parse it with parseFlags, which reports errors and --help on io.err.
func newFlags(c *command, io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet("spine "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintf(io.err, "Usage: spine %s %s\n\n%s\n", c.name, c.usage, c.summary)
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.err)
		if b.Len() > 0 {
			fmt.Fprintf(io.err, "\nFlags:\n%s", b.String())
		}
	}
	return fs
}

// parseFlags parses args, flags anywhere among the positionals (see parseArgs), and
// reports (status, done): done is true when the caller must return status at once
// (--help was asked for, or the command line was wrong: said on fs's output).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	err := parseArgs(fs, args)
	switch {
	case err == nil:
		return exitOK, false
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK, true
	}
	fmt.Fprintf(fs.Output(), "%s: %v\nRun '%s --help' for its flags.\n", fs.Name(), err, fs.Name())
	return exitUsage, true
}
