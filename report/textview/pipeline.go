package textview

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// Pipeline prints one line (and a few indented details) per bus message as it
// passes: the pipeline view of a GGS run, the roles' messages (spine run) and GGS's.
type Pipeline struct {
	W       io.Writer
	Epsilon float64 // GGS's ε, for the direction of ∇L

	round   int
	lastGap string // the last ReplanRequest gap printed whole, and its round
	gapAt   int
}

func (d *Pipeline) Message(m trace.Message) {
	if m.From == "R4b" {
		d.round++
		termtext.Printf(d.W, "── round %d", d.round)
	}
	head := fmt.Sprintf("%-4s → %-4s %-15s", m.From, m.To, m.Type)
	pad := strings.Repeat(" ", 28)
	switch p := runlog.Payload(m).(type) {
	case *contract.TaskSpec:
		line := fmt.Sprintf("%s %s · %q", head, p.TaskID, p.Intent)
		if s := p.Constraints.Scope; s != nil && *s != "" {
			line += " · scope " + *s
		}
		if dl := p.Constraints.Deadline; dl != nil && *dl != "" {
			line += " · by " + *dl
		}
		termtext.Printf(d.W, "%s", line)
	case *contract.Assignment:
		termtext.Printf(d.W, "%s %s · step %d · %s · tools %s", head, termtext.ShortID(p.SubTaskID), p.Sequence, oneLine(p.Intent, 70), strings.Join(p.Tools, ", "))
	case *contract.DispatchManifest:
		termtext.Printf(d.W, "%s %d subtask(s) · task criteria:", head, len(p.SubTaskIDs))
		for _, c := range p.TaskCriteria {
			mode := ""
			if c.Plausible() {
				mode = " (plausible)"
			}
			termtext.Printf(d.W, "%s - %s%s", pad, oneLine(c.Criterion, 90), mode)
		}
	case *contract.ExecutionResult:
		termtext.Printf(d.W, "%s %s · %s · %d tool call(s)", head, termtext.ShortID(p.SubTaskID), p.Status, len(p.ToolCalls))
	case *contract.CorrectionSignal:
		termtext.Printf(d.W, "%s %s · attempt %d failed %q (%s)", head, termtext.ShortID(p.SubTaskID), p.AttemptNumber, oneLine(p.FailedCriterion, 60), p.FailureClass)
		termtext.Printf(d.W, "%s %s", pad, oneLine(p.WhatToDo, 90))
	case *contract.SubTaskOutcome:
		termtext.Printf(d.W, "%s %s · %s", head, termtext.ShortID(p.SubTaskID), outcomeLine(p))
	case *contract.ReplanRequest:
		failed := 0
		for _, o := range p.Outcomes {
			if o.Status == contract.OutcomeFailed {
				failed++
			}
		}
		gap := p.GapSummary
		if p.Fault != nil && gap == d.lastGap { // a fault met again: said once
			gap = fmt.Sprintf("%s (%s) again, as in round %d", p.Fault.Role, p.Fault.Kind, d.gapAt)
		} else {
			d.lastGap, d.gapAt = gap, d.round
		}
		termtext.Printf(d.W, "%s %s · %d/%d subtask(s) failed · %s", head, p.TaskID, failed, len(p.Outcomes), gap)
	case *contract.OutcomeSummary:
		termtext.Printf(d.W, "%s %s · all subtasks matched · %s", head, p.TaskID, p.Summary)
	case *contract.PlanDirective:
		termtext.Printf(d.W, "%s %s · %s · %s → %s", head, p.TaskID, lossLine(p.Loss, p.GradL, d.Epsilon), p.PrevDirective, p.Directive)
		if len(p.BlockedTools) > 0 {
			termtext.Printf(d.W, "%28s blocked tools: %s", "", strings.Join(p.BlockedTools, ", "))
		}
		if len(p.BlockedTargets) > 0 {
			termtext.Printf(d.W, "%28s blocked targets: %s", "", strings.Join(p.BlockedTargets, "; "))
		}
		termtext.Printf(d.W, "%28s %s", "", p.Rationale)
	case *contract.FinalResult:
		mark := "✅"
		if p.Loss.D > 0 && p.Directive == contract.DirectiveAbandon {
			mark = "❌"
		}
		termtext.Printf(d.W, "%s %s · %s · %s → %s %s · %d replan(s)", head, p.TaskID, lossLine(p.Loss, p.GradL, d.Epsilon), p.PrevDirective, p.Directive, mark, p.Replans)
		termtext.Printf(d.W, "%28s %s", "", p.Summary)
		if p.Reason != "" {
			termtext.Printf(d.W, "%28s reason: %s", "", p.Reason)
		}
		if g := p.Failure; g != nil {
			termtext.Printf(d.W, "%28s graceful failure: %d part(s) done, %d failure(s); next moves:", "", len(g.Completed), len(g.Failed))
			for i, m := range g.NextMoves {
				termtext.Printf(d.W, "%28s   %d. %s", "", i+1, oneLine(m, 160))
			}
		}
	case *contract.Megram:
		termtext.Printf(d.W, "%s %s %s · %s · f %.2f σ %+.2f k %.2f", head, p.Space, p.Entity, p.State, p.F, p.Sigma, p.K)
	case *contract.MemoryQuery:
		termtext.Printf(d.W, "%s %s", head, MemoryQueryLine(p))
	case *contract.MemoryAnswer:
		termtext.Printf(d.W, "%s %s", head, MemoryAnswerLine(p))
	default:
		termtext.Printf(d.W, "%s %s", head, CompactJSON(m.Payload))
	}
}

// lossLine shows D, P, ∇L with the direction of the loss (runlog.GradArrow), and Ω.
func lossLine(l contract.Loss, grad, epsilon float64) string {
	return fmt.Sprintf("D %.3f  P %.3f  ∇L %+.3f %s  Ω %.3f", l.D, l.P, grad, runlog.GradArrow(grad, epsilon), l.Omega)
}

// outcomeLine is R4a's final state of a subtask: the mark, how many criteria passed, the
// attempts, and the first failed criterion with its class.
func outcomeLine(o *contract.SubTaskOutcome) string {
	passed, failed := o.Tally()
	n, attempts := len(o.CriteriaVerdicts), len(o.GapTrajectory)
	switch {
	case o.Status == contract.OutcomeMatched:
		return fmt.Sprintf("✓ matched · %d/%d criteria · %d attempt(s)", passed, n, attempts)
	case failed != nil:
		return fmt.Sprintf("✗ failed · %d/%d criteria · %d attempt(s) · %q (%s)", passed, n, attempts, oneLine(failed.Criterion, 60), failed.Class())
	case o.FailureReason != nil:
		return "✗ " + oneLine(*o.FailureReason, 90)
	}
	return "✗ failed"
}
