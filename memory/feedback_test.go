package memory

import (
	"context"
	"strings"
	"testing"
)

// The user's verdict on a finished task is a record of its own kind against the outcome
// GGS wrote: same pair, state negative_feedback, origin user:feedback; the outcome itself
// is untouched and the pair's decision drops.
func TestUserFeedback(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			e := newEnv(t, bc, nil)
			ctx := context.Background()
			intent := "Summarise the meeting notes into five bullet points"
			e.write(TerminalMegrams(intent, Quantum{State: "accept", F: 0.9, Sigma: 1, K: 0.05}, "five bullets")...)
			e.flush()
			ids := e.rec.durableIDs() // the seed's tag, then the full tag
			before := e.mk(IntentFullSpace(intent), EntityLocal)
			e.s.UserFeedback().RecordNegativeFeedback(ctx, ids[1], "task notes-1: the bullets miss the decisions")
			e.flush()
			e.noErrors()
			ids = e.rec.durableIDs()
			got, err := e.s.Get(ctx, ids[2])
			if err != nil {
				t.Fatal(err)
			}
			if got.Space != IntentFullSpace(intent) || got.Entity != EntityLocal || got.State != StateNegativeFeedback ||
				got.Origin != OriginUserFeedback || got.Sigma >= 0 || got.F != DefaultFeedback.F ||
				got.Content != "task notes-1: the bullets miss the decisions" {
				t.Errorf("feedback record %+v", got)
			}
			rule, err := e.s.Get(ctx, ids[1])
			if err != nil || rule.State != "accept" || rule.Origin != OriginGGS {
				t.Errorf("the outcome changed: %+v, %v", rule, err)
			}
			after := e.mk(IntentFullSpace(intent), EntityLocal)
			if !near(after.Decision, before.Decision-DefaultFeedback.F) {
				t.Errorf("decision %v → %v, want a drop of %v", before.Decision, after.Decision, DefaultFeedback.F)
			}
			// GGS's own feedback keeps its origin.
			e.s.RecordNegativeFeedback(ctx, ids[0], "stale")
			e.flush()
			if r, err := e.s.Get(ctx, e.rec.durableIDs()[3]); err != nil || r.Origin != OriginGGS {
				t.Errorf("GGS feedback %+v, %v", r, err)
			}
		})
	}
}

func TestUserFeedbackRefusals(t *testing.T) {
	for _, tc := range []struct{ rule, want string }{
		{"m-9", "memory: negative feedback on rule m-9: "},
		{"bad id!", "memory: negative feedback: rule "},
	} {
		e := newEnv(t, backendCases[1], nil)
		e.s.UserFeedback().RecordNegativeFeedback(context.Background(), tc.rule, "why")
		e.flush()
		errs := e.rec.errors()
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("feedback on %q: errors %v, want one starting %q", tc.rule, errs, tc.want)
		}
	}
}
