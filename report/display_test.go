package report

import (
	"testing"
	"time"
)

func TestHuman(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{-time.Second, "−1.0 s"},
		{400 * time.Microsecond, "0.4 ms"},
		{1129551 * time.Nanosecond, "1.1 ms"},
		{250 * time.Millisecond, "250.0 ms"},
		{999940 * time.Microsecond, "999.9 ms"},
		{time.Second, "1.0 s"},
		{2345 * time.Millisecond, "2.3 s"},
		{59900 * time.Millisecond, "59.9 s"},
		{245 * time.Second, "4 min 05 s"},
		{3*time.Hour + 7*time.Minute, "3 h 07 min"},
	} {
		if got := human(c.d); got != c.want {
			t.Errorf("human(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestShortIDs(t *testing.T) {
	for _, c := range []struct {
		in, want string
		cut      bool
	}{
		{"2ae3a1f3be085a99d07ffde8474183e8 · completed", "2ae3a1f3… · completed", true},
		{"→ R4a ExecutionResult: 2ae3a1f3be085a99d07ffde8474183e8", "→ R4a ExecutionResult: 2ae3a1f3…", true},
		{"sub-1 · completed", "sub-1 · completed", false},
		// Longer than an id: a hash, left whole.
		{"2ae3a1f3be085a99d07ffde8474183e8ff", "2ae3a1f3be085a99d07ffde8474183e8ff", false},
	} {
		got, cut := shortIDs(c.in)
		if got != c.want || cut != c.cut {
			t.Errorf("shortIDs(%q) = %q, %v; want %q, %v", c.in, got, cut, c.want, c.cut)
		}
	}
}
