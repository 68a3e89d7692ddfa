package report

import (
	"encoding/json"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// Ending is why the run ended, as the overview tells it: the FinalResult GGS sent (its
// directive, summary, the fault's kind and R2's graceful failure), or, for a run that
// sent none, the last fault the trace recorded and what is missing from the recording.
type Ending struct {
	Failed    bool   // the run did not succeed (or did not end)
	Directive string // the FinalResult's, "" when there was none
	Summary   string
	Reason    string // the fault's kind a FinalResult names (model_unavailable, …)
	Failure   *contract.GracefulFailure
	Anchor    string // of the FinalResult's message
	Fault     string // without a FinalResult: the last fault recorded
	FaultAt   string // its anchor, "" when the page does not show it
	Missing   string // without a FinalResult: what the recording lacks (the trace_incomplete note)
}

// Told says whether there is anything to tell.
func (e Ending) Told() bool {
	return e.Directive != "" || e.Summary != "" || e.Fault != "" || e.Missing != "" || e.Failed
}

// endings follows the trace for the FinalResult and the faults.
type endings struct {
	final   *contract.FinalResult
	finalAt int64
	fault   string
	faultAt int64
}

func (n *endings) event(e *trace.Event) {
	switch body := e.Body.(type) {
	case trace.Message:
		if body.Type != contract.TypeFinalResult {
			return
		}
		var fr contract.FinalResult
		if json.Unmarshal(body.Payload, &fr) == nil {
			n.final, n.finalAt = &fr, e.Seq
		}
	case trace.Exchange:
		if body.Error != "" {
			n.fault, n.faultAt = body.Name+": "+body.Error, e.Seq
		}
	case trace.EffectorResult:
		if body.Error != "" {
			n.fault, n.faultAt = "effector "+body.Op+": "+body.Error, e.Seq
		}
	case trace.RuleError:
		if len(body.Errors) > 0 {
			n.fault, n.faultAt = "rule "+body.Rule+": "+body.Errors[len(body.Errors)-1], e.Seq
		}
	case trace.EmitError:
		n.fault, n.faultAt = "could not record "+body.Kind+": "+body.Error, e.Seq
	}
}

// ending tells it, once the whole trace has been read into r.
func (n *endings) ending(r *Report) Ending {
	var end Ending
	if r.Halt == nil || r.Halt.Outcome != "success" {
		end.Failed = true
	}
	if fr := n.final; fr != nil {
		end.Directive, end.Summary, end.Reason, end.Failure = fr.Directive, fr.Summary, fr.Reason, fr.Failure
		end.Anchor = anchor(n.finalAt)
		if fr.Directive == "abandon" {
			end.Failed = true
		}
		return end
	}
	if !end.Failed {
		return Ending{} // a rule set that sends no FinalResult and succeeded: the outcome says it
	}
	end.Fault = n.fault
	if n.fault != "" {
		end.FaultAt = r.anchorOf(n.faultAt)
	}
	end.Missing = r.Incomplete
	if end.Fault == "" && end.Missing == "" && r.Halt != nil && r.Halt.Reason == "" {
		end.Summary = "the run halted with objective " + r.Halt.Objective + "; the trace records no fault"
	}
	return end
}

// anchorOf is the anchor the page shows seq at, "" when it shows none.
func (r *Report) anchorOf(seq int64) string {
	for _, it := range r.Items {
		if it.Seq == seq {
			return it.Anchor
		}
	}
	return ""
}
