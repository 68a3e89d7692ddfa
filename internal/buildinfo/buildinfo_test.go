package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

// TestLine: the linked version wins, then the module version; the VCS revision,
// "+dirty" and its time follow when the build recorded them.
func TestLine(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		s := []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}, {Key: "vcs", Value: "git"}}
		if rev != "" {
			s = append(s, debug.BuildSetting{Key: "vcs.revision", Value: rev})
		}
		if at != "" {
			s = append(s, debug.BuildSetting{Key: "vcs.time", Value: at})
		}
		if modified != "" {
			s = append(s, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return s
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tf := " (trace format " + trace.Format + ")"
	for _, tc := range []struct {
		name, linked string
		bi           *debug.BuildInfo
		want         string
	}{
		{"no build info", "", nil, "spine (devel)" + tf},
		{"go run", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "spine (devel)" + tf},
		{"module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "spine v1.4.0" + tf},
		{"clean checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs(rev, "2026-11-26T08:00:00Z", "false")},
			"spine commit 0123456789ab 2026-11-26T08:00:00Z" + tf},
		{"dirty checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs(rev, "2026-11-26T08:00:00Z", "true")},
			"spine commit 0123456789ab+dirty 2026-11-26T08:00:00Z" + tf},
		{"module version and revision", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261126080000-0123456789ab"},
			Settings: vcs(rev, "", "")},
			"spine v1.4.1-0.20261126080000-0123456789ab, commit 0123456789ab" + tf},
		{"linked version wins", "v2.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"},
			Settings: vcs(rev, "2026-11-26T08:00:00Z", "true")},
			"spine v2.0.0, commit 0123456789ab+dirty 2026-11-26T08:00:00Z" + tf},
		{"short revision", "", &debug.BuildInfo{Settings: vcs("abc", "", "true")}, "spine commit abc+dirty" + tf},
	} {
		if got := Line(tc.linked, tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
