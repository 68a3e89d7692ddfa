package fleet

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// series makes a role's runs, one a minute, with corrections and latency per call.
func series(role string, corrections []int, latency []int64) []RoleRun {
	var out []RoleRun
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range corrections {
		out = append(out, RoleRun{Run: fmt.Sprintf("run-%02d", i), Role: role, Ended: t0.Add(time.Duration(i) * time.Minute),
			Calls: 1, LatencyMS: latency[i], Corrections: corrections[i], Results: 1})
	}
	return out
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestDetectDrift(t *testing.T) {
	steadyLatency := repeat(int64(100), 15)
	noisy := []int64{100, 110, 100, 110, 100, 110, 100, 110, 100, 110, 107, 103, 108, 102, 105}
	for _, c := range []struct {
		name string
		figs []RoleRun
		cfg  DriftConfig
		want string // the drifts' String()s joined by "; ", or the error
	}{
		{"corrections jump", series("R3", append(repeat(1, 10), repeat(4, 5)...), steadyLatency), DefaultDrift,
			"R3 corrections up: 4 over the last 5 run(s), 1 ± 0 before"},
		{"steady", series("R4a", repeat(1, 15), steadyLatency), DefaultDrift, ""},
		{"noise within the history's spread", series("R2", repeat(0, 15), noisy), DefaultDrift, ""},
		{"latency halves", series("R1", repeat(0, 15), append(repeat(int64(200), 10), repeat(int64(90), 5)...)), DefaultDrift,
			"R1 latency_ms down: 90 over the last 5 run(s), 200 ± 0 before"},
		{"a shift under the metric's floor", series("R3", repeat(1, 15), append(repeat(int64(0), 10), repeat(int64(1), 5)...)), DefaultDrift, ""},
		{"too little history", series("R3", append(repeat(1, 9), repeat(4, 5)...), steadyLatency[:14]), DefaultDrift, ""},
		{"a window of one", series("R3", append(repeat(1, 14), 9), steadyLatency), DriftConfig{Window: 1, MinHistory: 2, Threshold: 3, MinShift: 0.5},
			"R3 corrections up: 9 over the last 1 run(s), 1 ± 0 before"},
		{"bad config", nil, DriftConfig{Window: 0, MinHistory: 10}, "drift: window 0 (≥ 1), history 10 (≥ 2), threshold 0 and shift 0 (≥ 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds, err := DetectDrift(c.figs, c.cfg)
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			g := strings.Join(got, "; ")
			if err != nil {
				g = err.Error()
			}
			if g != c.want {
				t.Errorf("got  %q\nwant %q", g, c.want)
			}
		})
	}
}
