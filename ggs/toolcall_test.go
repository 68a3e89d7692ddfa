package ggs

import (
	"testing"

	"github.com/agentspine/spine/effectors/sandbox"
)

// GGS reads what R3 writes: an entry formatted by the sandbox gives back its tool and
// target, and the blocked-target key splits back into the memory tags.
func TestToolCallRoundTrip(t *testing.T) {
	for _, tc := range []struct{ tool, target, output, key string }{
		{"shell", "ls /var/log/nginx", "ls: cannot access '/var/log/nginx': No such file or directory", "shell:ls /var/log/nginx"},
		{"read_file", "/srv/a:b.log", "permission denied", "read_file:/srv/a:b.log"},
		{"list_files", "", "", "list_files"},
	} {
		entry := sandbox.FormatToolCall(tc.tool, tc.target, tc.output)
		c, ok := ParseToolCall(entry)
		if !ok || c.Tool != tc.tool || c.Target != tc.target || c.Key() != tc.key {
			t.Errorf("%q parsed to %+v, %v; want tool %q target %q key %q", entry, c, ok, tc.tool, tc.target, tc.key)
		}
		if tc.target != "" {
			if tool, target := SplitTarget(c.Key()); tool != tc.tool || target != tc.target {
				t.Errorf("SplitTarget(%q) = %q, %q", c.Key(), tool, target)
			}
		}
	}
	for _, bad := range []string{"", "→ only evidence", "no colon → x", "two words:x → y"} {
		if c, ok := ParseToolCall(bad); ok {
			t.Errorf("ParseToolCall(%q) = %+v, want no tool", bad, c)
		}
	}
}
