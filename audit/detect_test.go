package audit

import (
	"testing"

	"github.com/agentspine/spine/contract"
)

const (
	bs = contract.DirectiveBreakSymmetry
	ca = contract.DirectiveChangeApproach
	cp = contract.DirectiveChangePath
	rf = contract.DirectiveRefine
)

func failed(task, id string) contract.SubTaskOutcome {
	return outcome(task, id, contract.OutcomeFailed, 1)
}
func matched(task, id string) contract.SubTaskOutcome {
	return outcome(task, id, contract.OutcomeMatched, 1)
}

type detectCase struct {
	name  string
	cfg   func(*Config)
	build func(s *stream)
	want  []want
}

func runCases(t *testing.T, cases []detectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			var s stream
			tc.build(&s)
			checkFindings(t, audit(t, cfg, &s), tc.want)
		})
	}
}

func TestGGSThrashing(t *testing.T) {
	runCases(t, []detectCase{
		{name: "two break_symmetry, D unchanged", build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", bs, 0.5, 0.3)
		}, want: []want{{KindGGSThrashing, []int64{1, 2}, "2 consecutive break_symmetry directives without D decreasing (D 0.5 → 0.5)"}}},
		{name: "D rising counts too", build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", bs, 0.75, 0.3)
		}, want: []want{{KindGGSThrashing, []int64{1, 2}, "D 0.5 → 0.75"}}},
		{name: "D decreasing is progress", build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", bs, 0.25, 0.3)
		}},
		{name: "not consecutive", build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", ca, 0.5, 0.3)
			s.directive("t", bs, 0.5, 0.2)
		}},
		{name: "per task", build: func(s *stream) {
			s.directive("a", bs, 0.5, 0.4)
			s.directive("b", bs, 0.5, 0.4)
		}},
		{name: "one finding per run, a new run after progress", cfg: func(c *Config) { c.MaxReplans = 10 }, build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.5)
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", bs, 0.5, 0.3)
			s.directive("t", bs, 0.25, 0.2)
			s.directive("t", bs, 0.25, 0.1)
		}, want: []want{
			{KindGGSThrashing, []int64{1, 2}, "2 consecutive"},
			{KindGGSThrashing, []int64{4, 5}, "D 0.25 → 0.25"},
		}},
		{name: "longer run threshold", cfg: func(c *Config) { c.ThrashingRun, c.MaxReplans = 3, 10 }, build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.5)
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", ca, 0.5, 0.3)
			s.directive("t", bs, 0.5, 0.2)
		}},
		{name: "longer run reached", cfg: func(c *Config) { c.ThrashingRun = 3 }, build: func(s *stream) {
			s.directive("t", bs, 0.5, 0.5)
			s.directive("t", bs, 0.5, 0.4)
			s.directive("t", bs, 0.6, 0.3)
		}, want: []want{{KindGGSThrashing, []int64{1, 2, 3}, "3 consecutive break_symmetry directives without D decreasing (D 0.5 → 0.5 → 0.6)"}}},
	})
}

func TestReplanningWithoutImprovement(t *testing.T) {
	runCases(t, []detectCase{
		{name: "L flat then rising", build: func(s *stream) {
			s.directive("t", cp, 0.5, 0.31)
			s.directive("t", rf, 0.5, 0.31)
			s.directive("t", cp, 0.5, 0.35)
		}, want: []want{{KindReplanningWithoutImprovement, []int64{1, 2, 3}, "3 consecutive PlanDirectives without L decreasing (L 0.31 → 0.31 → 0.35)"}}},
		{name: "L decreases once in the middle", build: func(s *stream) {
			s.directive("t", cp, 0.5, 0.31)
			s.directive("t", rf, 0.5, 0.30)
			s.directive("t", cp, 0.5, 0.35)
		}},
		{name: "two only", build: func(s *stream) {
			s.directive("t", cp, 0.5, 0.31)
			s.directive("t", rf, 0.5, 0.40)
		}},
		{name: "threshold 2", cfg: func(c *Config) { c.StallRun = 2 }, build: func(s *stream) {
			s.directive("t", cp, 0.5, 0.31)
			s.directive("t", rf, 0.5, 0.40)
		}, want: []want{{KindReplanningWithoutImprovement, []int64{1, 2}, "L 0.31 → 0.4"}}},
		{name: "interleaved tasks keep their own runs", build: func(s *stream) {
			s.directive("a", cp, 0.5, 0.3)
			s.directive("b", cp, 0.5, 0.9)
			s.directive("a", cp, 0.5, 0.3)
			s.directive("b", cp, 0.5, 0.1)
			s.directive("a", cp, 0.5, 0.3)
		}, want: []want{{KindReplanningWithoutImprovement, []int64{1, 3, 5}, "L 0.3 → 0.3 → 0.3"}}},
	})
}

func TestBudgetOverrun(t *testing.T) {
	runCases(t, []detectCase{
		{name: "max_replans directives are within budget", build: func(s *stream) {
			s.directive("t", cp, 0.9, 0.9)
			s.directive("t", cp, 0.8, 0.8)
			s.directive("t", cp, 0.7, 0.7)
			s.final("t", 3)
		}},
		{name: "one directive more", build: func(s *stream) {
			s.directive("t", cp, 0.9, 0.9)
			s.directive("t", cp, 0.8, 0.8)
			s.directive("t", cp, 0.7, 0.7)
			s.directive("t", cp, 0.6, 0.6)
			s.final("t", 4)
		}, want: []want{{KindBudgetOverrun, []int64{1, 2, 3, 4}, "4 PlanDirectives issued for the task; max_replans is 3"}}},
		{name: "declared by the FinalResult alone", build: func(s *stream) {
			s.final("t", 5)
		}, want: []want{{KindBudgetOverrun, []int64{1}, "the FinalResult declares 5 replans; max_replans is 3"}}},
		{name: "elapsed at the budget", build: func(s *stream) {
			s.replan("t", 300_000, failed("t", "a"))
		}},
		{name: "elapsed beyond the budget, once per task", build: func(s *stream) {
			s.replan("t", 300_001, failed("t", "a"))
			s.summary("t", 400_000, matched("t", "b"))
		}, want: []want{{KindBudgetOverrun, []int64{1}, "R4b's ReplanRequest reports 300001 ms elapsed; the time budget is 300000 ms"}}},
		{name: "operator's budget", cfg: func(c *Config) { c.TimeBudgetMS = 1000; c.MaxReplans = 0 }, build: func(s *stream) {
			s.summary("t", 1001, matched("t", "b"))
			s.directive("t", cp, 0.9, 0.9)
		}, want: []want{
			{KindBudgetOverrun, []int64{1}, "1001 ms elapsed; the time budget is 1000 ms"},
			{KindBudgetOverrun, []int64{2}, "1 PlanDirectives issued for the task; max_replans is 0"},
		}},
	})
}

func TestExcessiveRetries(t *testing.T) {
	runCases(t, []detectCase{
		{name: "corrections within budget", build: func(s *stream) {
			s.correction("t", "a")
			s.correction("t", "a")
			s.correction("t", "b")
			s.send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome("t", "a", "failed", 3))
		}},
		{name: "one correction too many", build: func(s *stream) {
			s.correction("t", "a")
			s.correction("t", "a")
			s.correction("t", "a")
			s.send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome("t", "a", "failed", 4))
		}, want: []want{{KindExcessiveRetries, []int64{1, 2, 3}, `subtask "a": 3 CorrectionSignals from R4a; the retry budget is 2`}}},
		{name: "attempts in the gap trajectory", build: func(s *stream) {
			s.correction("t", "a")
			s.send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome("t", "a", "failed", 4))
		}, want: []want{{KindExcessiveRetries, []int64{1, 2}, `subtask "a" took 4 attempts; the retry budget allows 3`}}},
		{name: "a correction signal without a task belongs to the task at hand", build: func(s *stream) {
			s.subtask("t", "a")
			s.correction("", "a")
			s.correction("", "a")
			s.correction("", "a")
		}, want: []want{{KindExcessiveRetries, []int64{2, 3, 4}, `subtask "a": 3 CorrectionSignals`}}},
		{name: "correction_count per reported subtask", build: func(s *stream) {
			s.send("R4b", "R7", contract.TypeReplanRequest, "t", contract.ReplanRequest{TaskID: "t", CorrectionCount: 4,
				Outcomes: []contract.SubTaskOutcome{failed("t", "a"), matched("t", "b")}})
			s.send("R4b", "R7", contract.TypeReplanRequest, "t", contract.ReplanRequest{TaskID: "t", CorrectionCount: 5,
				Outcomes: []contract.SubTaskOutcome{failed("t", "c"), matched("t", "d")}})
			s.send("R4b", "R7", contract.TypeReplanRequest, "t", contract.ReplanRequest{TaskID: "t", CorrectionCount: 3})
		}, want: []want{
			{KindExcessiveRetries, []int64{2}, "R4b reports correction_count 5 over 2 subtask(s); the retry budget allows 2 per subtask"},
			{KindExcessiveRetries, []int64{3}, "correction_count 3 over 1 subtask(s)"},
		}},
		{name: "no retries allowed", cfg: func(c *Config) { c.MaxCorrections = 0 }, build: func(s *stream) {
			s.correction("t", "a")
		}, want: []want{{KindExcessiveRetries, []int64{1}, "the retry budget is 0"}}},
	})
}

func TestDuplicateSubtaskIDs(t *testing.T) {
	runCases(t, []detectCase{
		{name: "a replan of the same task may list an ID again", build: func(s *stream) {
			s.manifest("t", "a", "b")
			s.summary("t", 1, matched("t", "a"), matched("t", "b"))
			s.manifest("t", "a")
			s.outcome("t", "a", "matched")
			s.summary("t", 1, matched("t", "a"))
		}},
		{name: "two tasks' manifests", build: func(s *stream) {
			s.manifest("t", "a")
			s.manifest("u", "a")
			s.summary("t", 1, matched("t", "a"))
			s.summary("u", 1, matched("u", "a"))
		}, want: []want{{KindDuplicateSubtaskIDs, []int64{1, 2}, `subtask "a" belongs to task "t" (seq 1) and again to task "u"`}}},
		{name: "twice in one manifest", build: func(s *stream) {
			s.manifest("t", "a", "b", "a", "a")
			s.summary("t", 1, matched("t", "a"), matched("t", "b"))
		}, want: []want{{KindDuplicateSubtaskIDs, []int64{1}, `subtask "a" is listed 3 times in one DispatchManifest`}}},
		{name: "a dispatched subtask reported for another task", build: func(s *stream) {
			s.subtask("t", "a")
			s.outcome("u", "a", "matched")
			s.outcome("u", "a", "matched")
		}, want: []want{{KindDuplicateSubtaskIDs, []int64{1, 2}, `subtask "a" belongs to task "t" (seq 1) and again to task "u"`}}},
		{name: "in R4b's reports", build: func(s *stream) {
			s.replan("t", 1, failed("t", "a"))
			s.replan("u", 1, failed("u", "a"))
		}, want: []want{{KindDuplicateSubtaskIDs, []int64{1, 2}, `and again to task "u"`}}},
	})
}

func TestFaninIncomplete(t *testing.T) {
	runCases(t, []detectCase{
		{name: "every outcome arrives before the summary", build: func(s *stream) {
			s.manifest("t", "a", "b")
			s.outcome("t", "b", "matched")
			s.outcome("t", "a", "matched")
			s.summary("t", 1, matched("t", "a"), matched("t", "b"))
		}},
		{name: "outcomes carried by the report itself", build: func(s *stream) {
			s.manifest("t", "a", "b")
			s.replan("t", 1, failed("t", "a"), matched("t", "b"))
		}},
		{name: "R4b reports before the fan-in completes", build: func(s *stream) {
			s.manifest("t", "a", "b", "c")
			s.outcome("t", "a", "failed")
			s.replan("t", 1, failed("t", "a"))
		}, want: []want{{KindFaninIncomplete, []int64{1, 2, 3}, "the DispatchManifest lists 3 subtask(s); no outcome arrived for b, c before R4b's ReplanRequest"}}},
		{name: "an outcome of another task does not count", build: func(s *stream) {
			s.manifest("t", "a")
			s.manifest("u", "b")
			s.outcome("u", "b", "matched")
			s.final("t", 0)
			s.final("u", 0)
		}, want: []want{{KindFaninIncomplete, []int64{1, 4}, "no outcome arrived for a before the FinalResult"}}},
		{name: "R2 dispatches again first", build: func(s *stream) {
			s.manifest("t", "a")
			s.manifest("t", "b")
			s.outcome("t", "b", "matched")
			s.summary("t", 1, matched("t", "b"))
		}, want: []want{{KindFaninIncomplete, []int64{1, 2}, "no outcome arrived for a before the next DispatchManifest"}}},
		{name: "the stream ends", build: func(s *stream) {
			s.manifest("t", "a", "b")
			s.outcome("t", "a", "matched")
		}, want: []want{{KindFaninIncomplete, []int64{1, 2}, "no outcome arrived for b by the end of the stream"}}},
	})
}

func TestBoundaryViolations(t *testing.T) {
	runCases(t, []detectCase{
		{name: "every route of the contract", build: func(s *stream) {
			for _, typ := range sortedKeys(routes) {
				r := routes[typ]
				if typ == contract.TypeMemoryAnswer {
					s.send("R2", "R5", contract.TypeMemoryQuery, "", contract.MemoryQuery{}) // R5 answers only what was asked
				}
				for _, from := range r.from {
					for _, to := range r.to {
						s.send(from, to, typ, "", map[string]any{})
					}
				}
			}
		}},
		{name: "ReplanRequest to R2 directly", build: func(s *stream) {
			s.send("R4b", "R2", contract.TypeReplanRequest, "t", contract.ReplanRequest{TaskID: "t"})
		}, want: []want{{KindBoundaryViolation, []int64{1}, "R4b sent a ReplanRequest to R2; it goes to R7"}}},
		{name: "memory written by another role than GGS", build: func(s *stream) {
			s.send("R4b", "R5", contract.TypeMegram, "", contract.Megram{ID: "m1"})
			s.send("R2", "R5", contract.TypeMegram, "", contract.Megram{ID: "m2"})
		}, want: []want{
			{KindBoundaryViolation, []int64{1}, "R4b sent a Megram (a memory write); only R7 may send it"},
			{KindBoundaryViolation, []int64{2}, "R2 sent a Megram (a memory write); only R7 may send it"},
		}},
		{name: "FinalResult not from GGS", build: func(s *stream) {
			s.send("R4b", "User", contract.TypeFinalResult, "t", contract.FinalResult{TaskID: "t"})
		}, want: []want{{KindBoundaryViolation, []int64{1}, "R4b sent a FinalResult; only R7 may send it"}}},
		{name: "an OutcomeSummary to the user", build: func(s *stream) {
			s.send("R4b", "User", contract.TypeOutcomeSummary, "t", contract.OutcomeSummary{TaskID: "t"})
		}, want: []want{{KindBoundaryViolation, []int64{1}, "R4b sent an OutcomeSummary to User; it goes to R7"}}},
		{name: "instructing the Auditor", build: func(s *stream) {
			s.send("R7", "R6", "AuditQuery", "t", map[string]any{"mute": true})
			s.send("R2", "R6", contract.TypePlanDirective, "t", contract.PlanDirective{TaskID: "t"})
		}, want: []want{
			{KindBoundaryViolation, []int64{1}, `R7 sent a message of type "AuditQuery" to the Auditor; R6 takes no messages from any role`},
			{KindBoundaryViolation, []int64{2}, "R2 sent a PlanDirective to the Auditor"},
		}},
		{name: "the Auditor sending to a role", build: func(s *stream) {
			s.send("R6", "R2", contract.TypePlanDirective, "t", contract.PlanDirective{TaskID: "t"})
		}, want: []want{{KindBoundaryViolation, []int64{1}, "R6 sent a PlanDirective to R2; the Auditor sends nothing but its reports to the operator"}}},
		{name: "a type no contract defines", build: func(s *stream) {
			s.send("R3", "R2", "Shortcut", "t", map[string]any{})
		}, want: []want{{KindBoundaryViolation, []int64{1}, `R3 sent a message of type "Shortcut" to R2; no role contract defines that type`}}},
		{name: "memory reads: R2 asks R5, R5 answers R2 and nobody else", build: func(s *stream) {
			s.send("R2", "R5", contract.TypeMemoryQuery, "t", contract.MemoryQuery{Intent: "deploy", Tools: []string{"shell"}})
			s.send("R5", "R2", contract.TypeMemoryAnswer, "t", contract.MemoryAnswer{Avoid: []string{"shell on prod"}})
			s.send("R3", "R5", contract.TypeMemoryQuery, "t", contract.MemoryQuery{Tools: []string{"shell"}})
			s.send("R5", "R3", contract.TypeMemoryAnswer, "t", contract.MemoryAnswer{})
			s.send("R5", "R2", contract.TypeMemoryAnswer, "t", contract.MemoryAnswer{Exploit: []string{"use blue-green"}})
			s.send("R2", "R5", contract.TypeMemoryAnswer, "t", contract.MemoryAnswer{})
			s.send("R5", "R2", contract.TypeMemoryQuery, "t", "not an object")
		}, want: []want{
			{KindBoundaryViolation, []int64{3}, "R3 sent a MemoryQuery; only R2 may send it"},
			{KindBoundaryViolation, []int64{4}, "R5 sent a MemoryAnswer to R3; it goes to R2"},
			{KindBoundaryViolation, []int64{5}, "R5 sent a MemoryAnswer to R2 that no MemoryQuery asked for"},
			{KindBoundaryViolation, []int64{6}, "R2 sent a MemoryAnswer; only R5 may send it"},
			{KindBoundaryViolation, []int64{7}, "R5 sent a MemoryQuery; only R2 may send it"},
			{KindMalformedMessage, []int64{7}, "MemoryQuery from R5: the payload is not a JSON object"},
		}},
		{name: "GGS has no model", build: func(s *stream) {
			s.modelCall("R7", "t")
		}, want: []want{{KindBoundaryViolation, []int64{1}, "R7 sent a model call; only R1, R2, R3, R4a, R4b, R5 may send it"}}},
	})
}

func TestR4bFanInGate(t *testing.T) {
	runCases(t, []detectCase{
		{name: "model after every subtask matched", build: func(s *stream) {
			s.manifest("t", "a", "b")
			s.outcome("t", "a", "matched")
			s.outcome("t", "b", "matched")
			s.modelCall("R4b", "t")
			s.summary("t", 1, matched("t", "a"), matched("t", "b"))
		}},
		{name: "merged result fails the task criteria: a ReplanRequest without failed subtasks", build: func(s *stream) {
			s.outcome("t", "a", "matched")
			s.modelCall("R4b", "t")
			s.replan("t", 1, matched("t", "a"))
		}},
		{name: "model after a failed outcome", build: func(s *stream) {
			s.manifest("t", "a", "b")
			s.outcome("t", "a", "failed")
			s.outcome("t", "b", "matched")
			s.modelCall("R4b", "t")
			s.replan("t", 1, failed("t", "a"), matched("t", "b"))
		}, want: []want{{KindBoundaryViolation, []int64{2, 4}, `R4b called its model after subtask "a" failed`}}},
		{name: "model call without a task id belongs to the task at hand", build: func(s *stream) {
			s.outcome("t", "a", "failed")
			s.modelCall("R4b", "")
		}, want: []want{{KindBoundaryViolation, []int64{1, 2}, `after subtask "a" failed`}}},
		{name: "failure seen only in R4b's report", build: func(s *stream) {
			s.modelCall("R4b", "t")
			s.modelCall("R4b", "t")
			s.replan("t", 1, failed("t", "a"))
		}, want: []want{{KindBoundaryViolation, []int64{1, 2, 3}, "R4b called its model 2 time(s) in a round whose ReplanRequest reports failed subtask(s) a"}}},
		{name: "a new round forgets the old failure", build: func(s *stream) {
			s.outcome("t", "a", "failed")
			s.replan("t", 1, failed("t", "a"))
			s.directive("t", cp, 0.5, 0.3)
			s.outcome("t", "b", "matched")
			s.modelCall("R4b", "t")
			s.summary("t", 2, matched("t", "b"))
		}},
		{name: "another role's model is not gated", build: func(s *stream) {
			s.outcome("t", "a", "failed")
			s.modelCall("R2", "t")
		}},
	})
}

func TestMalformedMessages(t *testing.T) {
	runCases(t, []detectCase{
		{name: "payload of the wrong shape", build: func(s *stream) {
			s.send("R7", "R2", contract.TypePlanDirective, "t", map[string]any{"task_id": "t", "loss": map[string]any{"L": "low"}})
			s.send("R4b", "R7", contract.TypeReplanRequest, "t", []int{1})
			s.send("R2", "R4b", contract.TypeDispatchManifest, "t", map[string]any{"task_id": "t", "subtask_ids": "a,b"})
		}, want: []want{
			{KindMalformedMessage, []int64{1}, "PlanDirective from R7: payload field loss.L is a JSON string, want a number"},
			{KindMalformedMessage, []int64{2}, "ReplanRequest from R4b: the payload is not a JSON object"},
			{KindMalformedMessage, []int64{3}, "DispatchManifest from R2: payload field subtask_ids is a JSON string, want an array"},
		}},
		{name: "envelope and payload disagree on the task", build: func(s *stream) {
			s.send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome("u", "a", "matched", 1))
		}, want: []want{{KindMalformedMessage, []int64{1}, `SubTaskOutcome from R4a is addressed to task "t" but its payload names task "u"`}}},
		{name: "seq out of order", build: func(s *stream) {
			s.outcome("t", "a", "matched")
			s.outcome("t", "b", "matched")
			s.msgs[1].Seq = 1
		}, want: []want{{KindMalformedMessage, []int64{1}, "SubTaskOutcome from R4a has seq 1 after seq 1; messages must be observed in publish order"}}},
		{name: "no sender", build: func(s *stream) {
			s.send("", "R7", contract.TypeReplanRequest, "t", contract.ReplanRequest{TaskID: "t"})
		}, want: []want{{KindMalformedMessage, []int64{1}, "does not name its sender, receiver and type"}}},
	})
}
