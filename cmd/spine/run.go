package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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

// command is a `spine` subcommand that parses its own flags, registered with register;
// root.go adapts it to the command tree. New commands use addCommand instead.
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
