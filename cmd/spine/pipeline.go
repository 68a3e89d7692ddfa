package main

import (
	"fmt"
	"github.com/agentspine/spine/spine/trace"
	"io"
	"strings"

	"github.com/agentspine/spine/contract"
)

// pipelineDisplay prints one line (and a few indented details) per bus message as it
// passes: the pipeline view of a GGS run.
type pipelineDisplay struct {
	w       io.Writer
	epsilon float64
	round   int
}

func (d *pipelineDisplay) message(m trace.Message) {
	if m.From == "R4b" {
		d.round++
		fmt.Fprintf(d.w, "── round %d\n", d.round)
	}
	head := fmt.Sprintf("%-4s → %-4s %-15s", m.From, m.To, m.Type)
	switch p := typedPayload(m).(type) {
	case *contract.ReplanRequest:
		failed := 0
		for _, o := range p.Outcomes {
			if o.Status == contract.OutcomeFailed {
				failed++
			}
		}
		fmt.Fprintf(d.w, "%s %s · %d/%d subtask(s) failed · %s\n", head, p.TaskID, failed, len(p.Outcomes), p.GapSummary)
	case *contract.OutcomeSummary:
		fmt.Fprintf(d.w, "%s %s · all subtasks matched · %s\n", head, p.TaskID, p.Summary)
	case *contract.PlanDirective:
		fmt.Fprintf(d.w, "%s %s · %s · %s → %s\n", head, p.TaskID, lossLine(p.Loss, p.GradL, d.epsilon), p.PrevDirective, p.Directive)
		if len(p.BlockedTools) > 0 {
			fmt.Fprintf(d.w, "%28s blocked tools: %s\n", "", strings.Join(p.BlockedTools, ", "))
		}
		if len(p.BlockedTargets) > 0 {
			fmt.Fprintf(d.w, "%28s blocked targets: %s\n", "", strings.Join(p.BlockedTargets, "; "))
		}
		fmt.Fprintf(d.w, "%28s %s\n", "", p.Rationale)
	case *contract.FinalResult:
		mark := "✅"
		if p.Loss.D > 0 && p.Directive == contract.DirectiveAbandon {
			mark = "❌"
		}
		fmt.Fprintf(d.w, "%s %s · %s · %s → %s %s · %d replan(s)\n", head, p.TaskID, lossLine(p.Loss, p.GradL, d.epsilon), p.PrevDirective, p.Directive, mark, p.Replans)
		fmt.Fprintf(d.w, "%28s %s\n", "", p.Summary)
		if p.Reason != "" {
			fmt.Fprintf(d.w, "%28s reason: %s\n", "", p.Reason)
		}
		if g := p.Failure; g != nil {
			fmt.Fprintf(d.w, "%28s graceful failure: %d part(s) done, %d failure(s); next moves:\n", "", len(g.Completed), len(g.Failed))
			for i, m := range g.NextMoves {
				fmt.Fprintf(d.w, "%28s   %d. %s\n", "", i+1, oneLine(m, 160))
			}
		}
	case *contract.Megram:
		fmt.Fprintf(d.w, "%s %s %s · %s · f %.2f σ %+.2f k %.2f\n", head, p.Space, p.Entity, p.State, p.F, p.Sigma, p.K)
	case *contract.MemoryQuery:
		fmt.Fprintf(d.w, "%s %s\n", head, memoryQueryLine(p))
	case *contract.MemoryAnswer:
		fmt.Fprintf(d.w, "%s %s\n", head, memoryAnswerLine(p))
	default:
		fmt.Fprintf(d.w, "%s %s\n", head, compactJSON(m.Payload))
	}
}

// lossLine shows D, P, ∇L with the direction of the loss, and Ω.
func lossLine(l contract.Loss, grad, epsilon float64) string {
	arrow := "→"
	switch {
	case grad < -epsilon:
		arrow = "↓"
	case grad > epsilon:
		arrow = "↑"
	}
	return fmt.Sprintf("D %.3f  P %.3f  ∇L %+.3f %s  Ω %.3f", l.D, l.P, grad, arrow, l.Omega)
}
