// Package buildinfo says which spine a binary is: its version, the VCS revision it was
// built from and the trace format it writes, in one line for `spine version`. It reads
// only the build info it is given; it does not look at the process or the disk.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/agentspine/spine/spine/trace"
)

// Line says which spine this is: the version set at link time (linked), else the module
// version from the build info (absent under `go run` and `go build` in the module), then
// the VCS revision the binary was built from, "+dirty" when the tree had changes, and its
// commit time. bi may be nil.
func Line(linked string, bi *debug.BuildInfo) string {
	var parts []string
	v := linked
	if v == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v != "" {
		parts = append(parts, v)
	}
	if bi != nil {
		if c := commit(bi.Settings); c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "(devel)")
	}
	return fmt.Sprintf("spine %s (trace format %s)", strings.Join(parts, ", "), trace.Format)
}

// commit is "commit REV[+dirty] [TIME]" from the build's VCS settings, "" without a revision.
func commit(settings []debug.BuildSetting) string {
	var rev, at string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	c := "commit " + rev[:min(len(rev), 12)]
	if dirty {
		c += "+dirty"
	}
	if at != "" {
		c += " " + at
	}
	return c
}
