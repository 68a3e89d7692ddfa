package ggs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scripted"
)

// plantFunc is a plant written inline.
type plantFunc func(ctx context.Context, post *bus.Post, in ggs.RoundInput) error

func (f plantFunc) Round(ctx context.Context, post *bus.Post, in ggs.RoundInput) error {
	return f(ctx, post, in)
}

var portTask = contract.TaskSpec{TaskID: "t1", Intent: "find the port", RawInput: "find the port"}

// outcome is a round every criterion of which matched.
var outcome = &contract.OutcomeSummary{TaskID: "t1", Summary: "port 8080", ElapsedMS: 10,
	Outcomes: []contract.SubTaskOutcome{{SubTaskID: "s1", ParentTaskID: "t1", Status: contract.OutcomeMatched,
		CriteriaVerdicts: []contract.CriterionVerdict{{Criterion: "c", Verdict: contract.VerdictPass}},
		GapTrajectory:    []contract.GapAttempt{}, ToolCalls: []string{}}}}

// runLoop runs a GGS loop over plant and returns the trace and the run's error.
func runLoop(t *testing.T, task contract.TaskSpec, plant ggs.Plant, opts ...ggs.Option) (*trace.File, error) {
	t.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := ggs.NewLoop(rs, plant, task, opts...)
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	eng := engine.NewEngine(rs, loop, engine.WithTrace(sink), engine.WithClock(clock.NewStep(time.Unix(0, 0).UTC(), time.Millisecond)))
	if err := loop.Seed(eng.Session()); err != nil {
		t.Fatal(err)
	}
	_, runErr := eng.Run(context.Background())
	tf, err := trace.Read("run", strings.NewReader(string(sink.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	return tf, runErr
}

// TestRoundMailContract: GGS takes a round's report only from R7's mailbox, only from
// R4b, and refuses a round that leaves mail unread; what was posted is in the trace
// either way, and the refusal ends the task in a FinalResult (reason effector_error).
func TestRoundMailContract(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant plantFunc
		want  string
	}{
		{"no report", func(context.Context, *bus.Post, ggs.RoundInput) error { return nil },
			"round 1: R7 received no report: a round must end with R4b's ReplanRequest or OutcomeSummary"},
		{"report from R2", func(_ context.Context, p *bus.Post, in ggs.RoundInput) error {
			_, err := p.Send("R2", "R7", contract.TypeOutcomeSummary, in.TaskID, outcome)
			return err
		}, "round 1: R7 received an OutcomeSummary from R2; a round's report comes from R4b"},
		{"not a report", func(_ context.Context, p *bus.Post, in ggs.RoundInput) error {
			_, err := p.Send("R4b", "R7", contract.TypeSubTaskOutcome, in.TaskID, outcome.Outcomes[0])
			return err
		}, "round 1: R7 received a SubTaskOutcome from R4b; a round ends with a ReplanRequest or an OutcomeSummary"},
		{"a memory write from R2", func(_ context.Context, p *bus.Post, in ggs.RoundInput) error {
			if _, err := p.Send("R2", "R5", contract.TypeMegram, in.TaskID, contract.Megram{ID: "m1"}); err != nil {
				return err
			}
			_, err := p.Send("R4b", "R7", contract.TypeOutcomeSummary, in.TaskID, outcome)
			return err
		}, "round 1: the round ended with mail unread: R5: a Megram from R2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tf, err := runLoop(t, portTask, tc.plant)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got  %v\nwant …%s", err, tc.want)
			}
			msgs, ferr := bus.FromTrace("run", tf)
			if ferr != nil {
				t.Fatal(ferr)
			}
			// The refused round is an effector error, and a rule still ends the task.
			var final contract.FinalResult
			if last := msgs[len(msgs)-1]; last.Type != contract.TypeFinalResult || bus.Decode(last, &final) != nil ||
				final.Directive != contract.DirectiveAbandon || final.Reason != contract.FaultEffectorError {
				t.Errorf("the last message is %s %+v, want a FinalResult abandoning for effector_error", last.Type, final)
			}
			if tc.name == "a memory write from R2" {
				// Refused by the round, and on record for the Auditor.
				res, aerr := audit.AuditTrace(audit.DefaultConfig(), "run", tf)
				if aerr != nil {
					t.Fatal(aerr)
				}
				found := false
				for _, f := range res.Findings {
					if f.Kind == audit.KindBoundaryViolation && strings.Contains(f.Message, "Megram") {
						found = true
					}
				}
				if !found || len(msgs) != 3 {
					t.Errorf("findings %+v on %d messages; want the R2 memory write flagged", res.Findings, len(msgs))
				}
			}
		})
	}
}

// TestMegramsGoByPost: with memory attached, every Megram GGS writes is a message from
// R7 to R5 in the trace, and the store holds exactly those Megrams.
func TestMegramsGoByPost(t *testing.T) {
	sc := parseFixture(t, "ggs/change_path_then_success.yaml")
	store, withMemory := memoryForGGS(t)
	tf, err := runLoop(t, sc.Task, scripted.NewPlant(sc), withMemory)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := bus.FromTrace("run", tf)
	if err != nil {
		t.Fatal(err)
	}
	var posted []string
	for _, m := range msgs {
		if m.Type != contract.TypeMegram {
			continue
		}
		if m.From != "R7" || m.To != "R5" {
			t.Errorf("seq %d: a Megram from %s to %s", m.Seq, m.From, m.To)
		}
		var mg contract.Megram
		if err := bus.Decode(trace.Message{Type: m.Type, From: m.From, To: m.To, Payload: m.Payload}, &mg); err != nil {
			t.Fatal(err)
		}
		posted = append(posted, mg.ID)
	}
	ctx := context.Background()
	if err := store.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var stored []string
	if err := store.List(ctx, memory.ListFilter{Level: "M"}, func(r memory.Record) error {
		stored = append(stored, r.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(posted) == 0 || strings.Join(posted, ",") != strings.Join(stored, ",") {
		t.Errorf("posted Megrams %v, stored %v", posted, stored)
	}
	res, err := audit.AuditTrace(audit.DefaultConfig(), "run", tf)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Kind == audit.KindBoundaryViolation {
			t.Errorf("GGS's own memory writes were flagged: %+v", f)
		}
	}
}
