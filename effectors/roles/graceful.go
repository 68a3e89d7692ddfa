package roles

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
)

// GracefulFailure returns the message for an abandoned task, or nil when final did not
// abandon it. The pipeline is GGS's plant, and GGS asks it here for the FinalResult it
// delivers (ggs.FailureReporter).
func (p *Pipeline) GracefulFailure(final *contract.FinalResult) *contract.GracefulFailure {
	if final == nil || final.Directive != contract.DirectiveAbandon {
		return nil
	}
	g := &contract.GracefulFailure{TaskID: final.TaskID, Completed: []contract.CompletedPart{}, Failed: []string{}}
	rounds := p.recordedRounds()
	seen := map[string]bool{} // intents already delivered by an earlier round
	var environmental, logical []string
	var tools []string
	for _, r := range rounds {
		for i, o := range r.outcomes {
			a := r.plan[i]
			if o.Status != contract.OutcomeMatched {
				continue
			}
			if key := strings.ToLower(strings.Join(strings.Fields(a.Intent), " ")); !seen[key] {
				seen[key] = true
				g.Completed = append(g.Completed, contract.CompletedPart{Round: r.round, SubTaskID: o.SubTaskID, Intent: a.Intent, Output: o.Output})
			}
		}
	}
	if n := len(rounds); n > 0 {
		last := rounds[n-1]
		for i, o := range last.outcomes {
			for _, v := range o.CriteriaVerdicts {
				if !v.Failed() {
					continue
				}
				line := fmt.Sprintf("%s: %q failed (%s): %s", clip(last.plan[i].Intent, 60), v.Criterion, v.Class(), clip(v.Evidence, 160))
				g.Failed = append(g.Failed, line)
				switch v.Class() {
				case contract.FailureEnvironmental:
					environmental = append(environmental, v.Criterion)
				case contract.FailureLogical:
					logical = append(logical, v.Criterion)
				}
			}
			if o.Status == contract.OutcomeFailed && len(o.CriteriaVerdicts) == 0 && o.FailureReason != nil {
				g.Failed = append(g.Failed, clip(last.plan[i].Intent, 60)+": "+*o.FailureReason)
			}
			if o.Status == contract.OutcomeFailed {
				tools = append(tools, last.plan[i].Tools...)
			}
		}
		if rp := last.report.Replan; rp != nil {
			for _, v := range rp.TaskCriteriaVerdicts {
				if v.Failed() {
					g.Failed = append(g.Failed, fmt.Sprintf("merged result: %q failed (%s): %s", v.Criterion, v.Class(), clip(v.Evidence, 160)))
					if v.Class() == contract.FailureLogical {
						logical = append(logical, v.Criterion)
					} else {
						environmental = append(environmental, v.Criterion)
					}
				}
			}
		}
	}
	g.Summary = fmt.Sprintf("Stopped after %d round(s) (%d replan(s)): %s. %d part(s) of the task were done.",
		len(rounds), final.Replans, strings.TrimSuffix(final.Summary, "."), len(g.Completed))
	g.NextMoves = nextMoves(environmental, logical, sortedUnique(tools), p.blockedTargets(), final)
	return g
}

// nextMoves picks two or three concrete moves from what failed.
func nextMoves(environmental, logical, tools, targets []string, final *contract.FinalResult) []string {
	var moves []string
	if len(environmental) > 0 {
		m := fmt.Sprintf("Fix what the environment refused for %q (a missing file, a permission, a refused command)", environmental[0])
		if len(targets) > 0 {
			m += fmt.Sprintf(", or name in the task where the data really is: %s did not work", strings.Join(clipAll(targets, 3), ", "))
		}
		moves = append(moves, m+", then run the task again.")
	}
	if len(logical) > 0 {
		m := fmt.Sprintf("Say more precisely what %q should mean, or split the task so that this part can be checked on its own", logical[0])
		if len(tools) > 0 {
			m += fmt.Sprintf("; the approach with %s kept producing the wrong result", strings.Join(tools, ", "))
		}
		moves = append(moves, m+".")
	}
	switch final.Reason {
	case contract.FaultCancelled:
		moves = append(moves, "Run the task again when you are ready: it was cancelled, not judged; the trace has every step up to that point.")
	case contract.FaultIterationBound:
		moves = append(moves, "Run the task again with a higher iteration bound, or split it so that each part needs fewer rounds.")
	case contract.FaultEffectorError:
		moves = append(moves, "Fix what the failed call names (the trace's effector_result error), then run the task again.")
	}
	if fm := faultMoves[final.Reason]; fm != nil {
		// A fault of the machinery ended the task: nothing was judged against the
		// criteria and the budget was not what ran out, so the moves are about the fault.
		return append(moves, fm...)
	}
	moves = append(moves, fmt.Sprintf("Narrow the scope or give the task more budget (Ω reached %.2f after %d replan(s)); the trace has every tool call and verdict.", final.Loss.Omega, final.Replans))
	if len(moves) < 2 {
		moves = append([]string{"Check the failed criteria above against the working directory, correct what they point at, and run the task again."}, moves...)
	}
	if len(moves) > 3 {
		moves = moves[:3]
	}
	return moves
}

// faultMoves are the next moves after a fault of the machinery ended the task, by the
// fault's kind (the FinalResult's reason).
var faultMoves = map[string][]string{
	contract.FaultKeyRefused: {
		"Set the key's variable to a key this endpoint accepts (one for another provider, or a revoked one, is refused), then run the task again.",
		"Check that the base URL (--base-url or the config's base_url) is the endpoint the key belongs to.",
	},
	contract.FaultModelUnavailable: {
		"Check that the model endpoint answers: the base URL, the network, the model name, the key; the trace's exchange lines show each failed call and its error.",
		"Run the task again when the endpoint answers: the task was not judged, a fault of the machinery stopped it.",
	},
	contract.FaultContractBroken: {
		"Use a model that keeps to the role's JSON output (a stronger one for the role the reason names): its answers broke the role's contract after the corrective turn.",
		"Run the task again: the task was not judged; the trace has each answer and why it was refused.",
	},
	contract.FaultResponseTooLarge: {
		"Lower the model's max_tokens, or narrow the task so that an answer fits: the model's answer was over the size limit and refused unread.",
		"Run the task again: the task was not judged, a fault of the machinery stopped it.",
	},
	contract.FaultToolUnavailable: {
		"Check that the tool's server (the MCP server the reason names) starts and stays up: R3's call did not reach a working tool.",
		"Run the task again when it does: the task was not judged, a fault of the machinery stopped it.",
	},
	contract.FaultPlannerCornered: {
		"Loosen what the task forbids, or say in the task which tool or target may be used: every plan R2 could make broke the MUST NOT set.",
		"Run the task again: the task was not judged, a fault of the machinery stopped it.",
	},
}

// blockedTargets lists the targets GGS blocked over the task, sorted.
func (p *Pipeline) blockedTargets() []string {
	var out []string
	for _, r := range p.r2.plans {
		if r.directive != nil {
			out = append(out, r.directive.BlockedTargets...)
		}
	}
	return sortedUnique(out)
}

func sortedUnique(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	n := 0
	for i, x := range out {
		if i == 0 || x != out[i-1] {
			out[n] = x
			n++
		}
	}
	return out[:n]
}

func clipAll(xs []string, n int) []string {
	if len(xs) > n {
		xs = append(append([]string(nil), xs[:n]...), fmt.Sprintf("and %d more", len(xs)-n))
	}
	return xs
}

// roundRecord is what a round did, as its messages recorded it: R2's SubTasks, R4a's
// outcomes in plan order, and R4b's report.
type roundRecord struct {
	round    int
	plan     []contract.Assignment
	outcomes []contract.SubTaskOutcome
	report   ggs.Message
}

// recordedRounds reads the rounds back from the messages the roles posted. A message
// that does not decode is skipped: the record was written from these very types.
func (p *Pipeline) recordedRounds() []roundRecord {
	var out []roundRecord
	for i, msgs := range p.record {
		r := roundRecord{round: i + 1}
		byID := map[string]contract.SubTaskOutcome{}
		for _, m := range msgs {
			switch m.Type {
			case contract.TypeSubTask:
				var a contract.Assignment
				if bus.Decode(m, &a) == nil {
					r.plan = append(r.plan, a)
				}
			case contract.TypeSubTaskOutcome:
				var o contract.SubTaskOutcome
				if bus.Decode(m, &o) == nil {
					byID[o.SubTaskID] = o
				}
			case contract.TypeReplanRequest:
				r.report.Replan = new(contract.ReplanRequest)
				if bus.Decode(m, r.report.Replan) != nil {
					r.report.Replan = nil
				}
			}
		}
		for _, a := range r.plan {
			r.outcomes = append(r.outcomes, byID[a.SubTaskID])
		}
		out = append(out, r)
	}
	return out
}
