package clock

import (
	"testing"
	"time"
)

func TestSystemIsUTC(t *testing.T) {
	if loc := (System{}).Now().Location(); loc != time.UTC {
		t.Fatalf("System.Now() is in %v, want UTC", loc)
	}
}

func TestStep(t *testing.T) {
	start := time.Date(2000, 1, 1, 1, 0, 0, 0, time.FixedZone("plus1", 3600))
	c := NewStep(start, time.Second)
	for i, want := range []string{"2000-01-01T00:00:00Z", "2000-01-01T00:00:01Z", "2000-01-01T00:00:02Z"} {
		if got := c.Now().Format(time.RFC3339); got != want {
			t.Errorf("reading %d = %s, want %s", i+1, got, want)
		}
	}
}

func TestAt(t *testing.T) {
	for _, tc := range []struct {
		at, want string // want "": System; "error": refused
	}{
		{"", ""},
		{"2025-03-01T12:00:00Z", "2025-03-01T12:00:00Z"},
		{"2025-03-01T12:00:00.5+02:00", "2025-03-01T12:00:00.5+02:00"},
		{"yesterday", "error"},
	} {
		c, err := At(tc.at)
		switch {
		case tc.want == "error":
			if err == nil {
				t.Errorf("At(%q) = %v, want an error", tc.at, c)
			}
		case err != nil:
			t.Errorf("At(%q): %v", tc.at, err)
		case tc.want == "":
			if _, ok := c.(System); !ok {
				t.Errorf("At(%q) = %T, want System", tc.at, c)
			}
		case c.Now().Format(time.RFC3339Nano) != tc.want:
			t.Errorf("At(%q).Now() = %s, want %s", tc.at, c.Now().Format(time.RFC3339Nano), tc.want)
		}
	}
}
