package cli

import (
	"bytes"
	"errors"
	"testing"
)

// TestArgCounts: the argument checks are usage errors in the command's own words.
func TestArgCounts(t *testing.T) {
	cases := []struct {
		name  string
		check func([]string) error
		args  []string
		want  string // "" when the count is right
	}{
		{"exact ok", func(a []string) error { return ExactArgs(1, "one trace file")(nil, a) }, []string{"a"}, ""},
		{"exact short", func(a []string) error { return ExactArgs(2, "two trace files, A and B")(nil, a) }, []string{"a"}, "expected two trace files, A and B"},
		{"minimum ok", func(a []string) error { return MinimumArgs(1, "one or more trace files")(nil, a) }, []string{"a", "b"}, ""},
		{"minimum none", func(a []string) error { return MinimumArgs(1, "one or more trace files")(nil, a) }, nil, "expected one or more trace files"},
		{"counted", func(a []string) error { return ExactArgsCounted(1, "one trace file")(nil, a) }, []string{"a", "b"}, "expected one trace file, got 2 arguments"},
	}
	for _, c := range cases {
		err := c.check(c.args)
		var ue *UsageError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.As(err, &ue) || ue.Msg != c.want):
			t.Errorf("%s: got %v, want the usage error %q", c.name, err, c.want)
		}
	}
}

// TestShow: --json writes each value as a JSON line with HTML characters as they are;
// without it, only the text is written.
func TestShow(t *testing.T) {
	var raw bytes.Buffer
	text := false
	if err := Show(&raw, true, map[string]string{"a": "<b>&"}, func() { text = true }); err != nil || text {
		t.Fatalf("Show --json: %v, text called %v", err, text)
	}
	if got, want := raw.String(), "{\"a\":\"<b>&\"}\n"; got != want {
		t.Errorf("Show --json wrote %q, want %q", got, want)
	}
	raw.Reset()
	if err := Show(&raw, false, 1, func() { text = true }); err != nil || !text || raw.Len() != 0 {
		t.Errorf("Show: %v, text called %v, raw %q", err, text, raw.String())
	}
	if err := JSONLines(&raw, 1, 2); err != nil || raw.String() != "1\n2\n" {
		t.Errorf("JSONLines: %v, %q", err, raw.String())
	}
}
