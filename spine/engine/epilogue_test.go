package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

// TestJournalTapAndEpilogue: the tap sees journalled events with their trace seqs, the
// epilogue's events follow the halt, and a replay writes them again.
func TestJournalTapAndEpilogue(t *testing.T) {
	rs, err := LoadRules("finish.yaml", []byte(finishRules))
	if err != nil {
		t.Fatal(err)
	}
	var tapped []string
	sink := &trace.MemorySink{}
	eng := NewEngine(rs, &finishing{}, WithTrace(sink),
		WithJournalTap(func(seq int64, kind string, body any) {
			tapped = append(tapped, fmt.Sprintf("%d %s %s", seq, kind, body.(Exchange).Name))
		}),
		WithEpilogue(func(emit func(string, any)) {
			// A kind package trace does not know: its body is the host's to shape.
			emit("note", map[string]any{"finding": "none", "evidence": []int{}})
			emit("note", map[string]any{"kind": "clash"})
		}))
	if _, err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	trace := sink.Bytes()
	if len(tapped) != 1 || !strings.Contains(string(trace), `"seq":`+strings.Fields(tapped[0])[0]+`,`) || !strings.HasSuffix(tapped[0], "exchange tool:echo") {
		t.Fatalf("tapped %q", tapped)
	}
	lines := strings.Split(strings.TrimSpace(string(trace)), "\n")
	if !strings.Contains(lines[len(lines)-3], `"kind":"halt"`) ||
		!strings.Contains(lines[len(lines)-2], `"kind":"note","evidence":[],"finding":"none"`) ||
		!strings.Contains(lines[len(lines)-1], `"kind":"emit_error","event_kind":"note","error":"the body has the reserved key \"kind\""`) {
		t.Fatalf("epilogue not after the halt:\n%s", strings.Join(lines[len(lines)-3:], "\n"))
	}
	assertReplays(t, trace, rs)
}
