package memory

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCalibratePlan: the calibration of a plan touching 10 pairs over the
// 1,000,000-Megram store: the intent, a tool as a whole, and eight tool × target pairs
// of 100 entries each (a third mostly failed, a third mostly worked, a third mixed; one
// in ten with a C entry).
func BenchmarkCalibratePlan(b *testing.B) {
	base := benchBase(b)
	if benchStore.svc == nil {
		s, err := OpenLevelDB(base, Options{Clock: newClock(), Timer: newManualTimer()})
		if err != nil {
			b.Fatal(err)
		}
		benchStore.svc = s
	}
	r := benchStore.svc.Reader()
	pairs := []Pair{IntentPair("Rotate the data files under /srv/data"), ToolPair("tool001")}
	for p := 0; p < 8; p++ {
		pairs = append(pairs, TargetPair(fmt.Sprintf("tool%03d", p%97), fmt.Sprintf("/srv/data/%05d", p)))
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cal, err := Calibrate(ctx, r, pairs)
		if err != nil {
			b.Fatal(err)
		}
		if len(cal.Pairs) != 10 || len(cal.MustNot) == 0 || len(cal.ShouldPrefer) == 0 {
			b.Fatalf("calibration: %d pairs, %d must not, %d should prefer", len(cal.Pairs), len(cal.MustNot), len(cal.ShouldPrefer))
		}
	}
}
