package spine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestJournalTapAndEpilogue: the tap sees journalled events with their trace seqs, the
// epilogue's events follow the halt, and a replay writes them again.
func TestJournalTapAndEpilogue(t *testing.T) {
	rs, err := LoadRules("finish.yaml", []byte(finishRules))
	if err != nil {
		t.Fatal(err)
	}
	var tapped []string
	sink := &MemorySink{}
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

func TestRecordedErrorKeepsContextErrors(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{"context canceled", context.Canceled},
		{"round 2: context canceled", context.Canceled},
		{"call: context deadline exceeded", context.DeadlineExceeded},
		{"connection refused", nil},
	} {
		err := recordedError(tc.msg)
		if err.Error() != tc.msg {
			t.Errorf("%q: text became %q", tc.msg, err)
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%q: not recognised as %v", tc.msg, tc.want)
		}
		if tc.want == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			t.Errorf("%q: taken for a context error", tc.msg)
		}
	}
}
