package audit

import (
	"bytes"
	"slices"
	"testing"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/spine/trace"
)

// FuzzAuditTrace feeds arbitrary traces through the adapter and the Auditor: no panic,
// findings in order, evidence that names only messages of the trace.
func FuzzAuditTrace(f *testing.F) {
	for _, tp := range designedTraces(f) {
		f.Add(tp.raw)
	}
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R4b","to":"R7","type":"ReplanRequest","payload":{"outcomes":[{"gap_trajectory":7}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := trace.Read("fuzz", bytes.NewReader(data))
		if tf == nil || err != nil {
			return
		}
		res, aerr := AuditTrace(DefaultConfig(), "fuzz", tf)
		msgs, _ := bus.FromTrace("fuzz", tf)
		if aerr == nil && res.Messages != len(msgs) {
			t.Fatalf("audited %d messages, the trace has %d", res.Messages, len(msgs))
		}
		seqs := map[int64]bool{}
		for _, m := range msgs {
			seqs[m.Seq] = true
		}
		sorted := slices.Clone(res.Findings)
		sortFindings(sorted)
		for i, f := range res.Findings {
			if f.Kind != sorted[i].Kind || !slices.Equal(f.Evidence, sorted[i].Evidence) {
				t.Fatalf("findings not ordered by seq then kind: %v", res.Findings)
			}
			if f.Severity != Severity(f.Kind) || f.Message == "" || len(f.Evidence) == 0 {
				t.Fatalf("incomplete finding %+v", f)
			}
			for _, s := range f.Evidence {
				if !seqs[s] {
					t.Fatalf("finding %+v names seq %d, not a message of the trace", f, s)
				}
			}
		}
	})
}
