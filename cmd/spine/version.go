package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/buildinfo"
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
				fmt.Fprintln(io.out, buildinfo.Line(version, bi))
				return nil
			},
		}
	})
}
