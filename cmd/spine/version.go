package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/spine/trace"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3") and then wins over the
// module version of the build info.
var version = ""

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "print the version of spine (module version, VCS revision) and its trace format",
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				bi, ok := debug.ReadBuildInfo()
				if !ok {
					bi = nil
				}
				fmt.Fprintln(io.out, versionLine(version, bi))
				return nil
			},
		}
	})
}

// versionLine says which spine this is: the version set at link time, else the module
// version from the build info (absent under `go run` and `go build` in the module), then
// the VCS revision the binary was built from, "+dirty" when the tree had changes, and its
// commit time. bi may be nil.
func versionLine(linked string, bi *debug.BuildInfo) string {
	var parts []string
	v := linked
	if v == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v != "" {
		parts = append(parts, v)
	}
	if bi != nil {
		var rev, at string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			c := "commit " + rev[:min(len(rev), 12)]
			if dirty {
				c += "+dirty"
			}
			if at != "" {
				c += " " + at
			}
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "(devel)")
	}
	return fmt.Sprintf("spine %s (trace format %s)", strings.Join(parts, ", "), trace.Format)
}
