package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/agentspine/spine/spine"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise the module
// version from the build info is used.
var version = ""

func init() {
	register(&command{
		name:    "version",
		summary: "print the version of spine and its trace format",
		usage:   "",
		run:     runVersion,
	})
}

func runVersion(ctx context.Context, io stdio, args []string) int {
	c := commands["version"]
	fs := newFlags(c, io)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	fmt.Fprintf(io.out, "spine %s (trace format %s)\n", v, spine.TraceFormat)
	return exitOK
}
