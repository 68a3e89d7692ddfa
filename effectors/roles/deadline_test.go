package roles

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// manualClock is a fake clock the test moves: it reads the same time until set, so a
// deadline passes exactly where the test says (as a scripted call begins), never by
// waiting.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// TestSubtaskStoppedAtItsDeadline: a subtask's deadline passes on the pipeline's clock
// while R4a judges its first attempt; it is not tried again but reported failed, its
// one failed criterion the deadline, of class environmental, and GGS reads it so (D = 1,
// P = 0, failure class environmental); the next round, without a deadline, succeeds.
func TestSubtaskStoppedAtItsDeadline(t *testing.T) {
	r := newRig(t)
	clock := &manualClock{t: epoch}
	r.cfg.Clock = clock
	r.cfg.RetryBudget = 2 // R4a may correct R3: the deadline, not the budget, stops the subtask
	r.file("config/app.yaml", "port: 8080\n")
	deadline := "2026-03-01T09:00:30Z"
	st := readPort
	st.Deadline = &deadline
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, st))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 80"))
	late := judged("read the whole file", verdict(st.Criteria[0], "fail", "logical", "port: 80 is not what it says"))
	late.Begin = func() { clock.set(epoch.Add(time.Minute)) } // the deadline passes while R4a judges
	r.script(llm.R4a, late)
	// Round 2, without a deadline, reads a copy (change_path blocked the first target)
	// and succeeds.
	r.file("config/app.copy.yaml", "port: 8080\n")
	again := sub{Intent: "Read config/app.copy.yaml and report its port", Criteria: []string{"the port is read from the copy"},
		Sequence: 1, Tools: []string{"read_file"}, Targets: []string{"config/app.copy.yaml"}}
	r.script(llm.R2, planned(portCriteria, again))
	r.script(llm.R3, toolCall("c2", "read_file", `{"path":"config/app.copy.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(again.Criteria[0], "pass", "", "read_file:config/app.copy.yaml → port: 8080")))
	r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	outs := messages(t, got.trace, contract.TypeSubTaskOutcome)
	if len(outs) != 2 {
		t.Fatalf("%d outcomes", len(outs))
	}
	o := decode[contract.SubTaskOutcome](t, outs[0])
	if o.Status != contract.OutcomeFailed || o.FailureReason == nil || !strings.HasPrefix(*o.FailureReason, "deadline: the deadline 2026-03-01T09:00:30Z passed") {
		t.Fatalf("outcome %+v", o)
	}
	if len(o.CriteriaVerdicts) != 1 || o.CriteriaVerdicts[0].Criterion != DeadlineCriterion || !o.CriteriaVerdicts[0].Failed() ||
		o.CriteriaVerdicts[0].Class() != contract.FailureEnvironmental {
		t.Errorf("verdicts %+v, want the deadline failed, environmental", o.CriteriaVerdicts)
	}
	if len(o.GapTrajectory) != 2 || len(o.ToolCalls) != 1 {
		t.Errorf("trajectory %+v, tool calls %q: the first attempt is kept", o.GapTrajectory, o.ToolCalls)
	}
	if n := len(messages(t, got.trace, contract.TypeCorrectionSignal)); n != 1 || len(r.requests(llm.R3)) != 4 {
		t.Errorf("%d correction(s), %d R3 call(s): the correction is set aside, not run", n, len(r.requests(llm.R3)))
	}
	rq := decode[contract.ReplanRequest](t, messages(t, got.trace, contract.TypeReplanRequest)[0])
	pd := decode[contract.PlanDirective](t, messages(t, got.trace, contract.TypePlanDirective)[0])
	if rq.Outcomes[0].CriteriaVerdicts[0].Criterion != DeadlineCriterion || pd.Loss.D != 1 || pd.Loss.P != 0 ||
		pd.FailureClass != contract.FailureEnvironmental || pd.FailedCriterion != DeadlineCriterion {
		t.Errorf("ReplanRequest %+v, PlanDirective %+v", rq.Outcomes, pd)
	}
	if finalDirective(got) != contract.DirectiveAccept {
		t.Errorf("final %s", finalDirective(got))
	}
}

// TestTaskDeadlineBoundsTheTimeBudget: a task whose deadline is 100 s away has a time
// budget of 100000 ms, below time_budget_ms (300000): Ω = w₂·elapsed/100000.
func TestTaskDeadlineBoundsTheTimeBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline any
		budgetMS float64
	}{
		{"deadline before the budget", "2026-03-01T09:01:40Z", 100000},
		{"deadline past the budget", "2026-03-01T12:00:00Z", 300000},
		{"no deadline", nil, 300000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			clock := &manualClock{t: epoch}
			r.cfg.Clock = clock
			r.file("config/app.yaml", "port: 8080\n")
			// R1 reads the deadline from the task; 40 s have passed when R4b reports.
			r.script(llm.R1, jsonText(map[string]any{"intent": "Find the port that config/app.yaml sets",
				"constraints": map[string]any{"scope": nil, "deadline": tc.deadline}, "questions": []string{}}))
			r.script(llm.R2, planned(portCriteria, readPort))
			r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
			r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
			r.script(llm.R4b, beginAt(merged("config/app.yaml sets port 8080", "8080",
				verdict(portCriteria[0], "pass", "", "the subtask read port: 8080")), func() { clock.set(epoch.Add(40 * time.Second)) }))
			got := r.run(context.Background(), portTask)
			fr := got.res.Final
			if got.err != nil || fr == nil || fr.Directive != contract.DirectiveAccept {
				t.Fatalf("err %v, final %+v", got.err, fr)
			}
			// By hand: w₂ = 0.4, λ = 0.4, no replan, D = 0.
			omega := 0.4 * 40000 / tc.budgetMS
			if math.Abs(fr.Loss.Omega-omega) > 1e-6 || math.Abs(fr.Loss.L-0.4*omega) > 1e-6 {
				t.Errorf("Ω = %v, L = %v; want Ω = 0.4·40000/%v = %v, L = %v", fr.Loss.Omega, fr.Loss.L, tc.budgetMS, omega, 0.4*omega)
			}
		})
	}
}

func beginAt(r llmtest.Reply, f func()) llmtest.Reply { r.Begin = f; return r }
