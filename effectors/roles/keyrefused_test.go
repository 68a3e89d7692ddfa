package roles

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestKeyRefusedAbandonsAtOnce: R1's endpoint answers 401 or 403. The same key would be
// refused again, so the call is made once, no round is run again, and the task is
// abandoned by rule with key_refused as the reason; the summary and the next moves say
// what to do about the key, not about criteria or budget; the trace replays.
func TestKeyRefusedAbandonsAtOnce(t *testing.T) {
	for _, status := range []int{401, 403} {
		r := newRig(t)
		r.script(llm.R1, llmtest.Fail(status, "Incorrect API key provided"))
		got := r.run(context.Background(), portTask)
		if got.err != nil {
			t.Fatal(got.err)
		}
		fr := got.res.Final
		if fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultKeyRefused ||
			!strings.Contains(fr.Summary, contract.KeyRefusedAdvice) || strings.Contains(fr.Summary, "Incorrect API key") {
			t.Fatalf("%d: final = %+v", status, fr)
		}
		if d := directives(t, got); len(d) != 0 {
			t.Errorf("%d: directives = %v, want none: a refused key is not retried", status, d)
		}
		if n := len(exchanges(t, got.trace, "llm:R1")); n != 1 {
			t.Errorf("%d: %d R1 exchanges in the trace, want 1", status, n)
		}
		g := got.res.Failure
		if g == nil || len(g.NextMoves) == 0 || !strings.Contains(g.NextMoves[0], "a key this endpoint accepts") {
			t.Fatalf("%d: graceful failure = %+v", status, g)
		}
		for _, m := range g.NextMoves {
			if strings.Contains(m, "budget") || strings.Contains(m, "criteria") {
				t.Errorf("%d: next move %q speaks of what the fault did not touch", status, m)
			}
		}
	}
}
