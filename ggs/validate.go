package ggs

import (
	"fmt"

	"github.com/agentspine/spine/contract"
)

// InputError is a message GGS cannot read: Type is its bus type, Err says which field is
// wrong and what was expected.
type InputError struct {
	Type string
	Err  error
}

func (e *InputError) Error() string { return "ggs: invalid " + e.Type + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// ValidateReplan checks what GGS relies on in a ReplanRequest: a task_id, a non-negative
// elapsed time, known enumerated values, named criteria, and outcomes of this task.
func ValidateReplan(req *contract.ReplanRequest) error {
	if req.TaskID == "" {
		return fmt.Errorf("missing task_id")
	}
	if req.ElapsedMS < 0 {
		return fmt.Errorf("elapsed_ms: must not be negative, got %d", req.ElapsedMS)
	}
	if req.CorrectionCount < 0 {
		return fmt.Errorf("correction_count: must not be negative, got %d", req.CorrectionCount)
	}
	switch req.Recommendation {
	case "", "replan", "retry", "abandon":
	default:
		return fmt.Errorf("recommendation: got %q, want \"replan\", \"retry\" or \"abandon\"", req.Recommendation)
	}
	for _, f := range faults(req) {
		if err := validateFault(f); err != nil {
			return err
		}
	}
	if err := validateOutcomes(req.TaskID, req.Outcomes, false); err != nil {
		return err
	}
	return validateVerdicts(func() string { return "task_criteria_verdicts" }, req.TaskCriteriaVerdicts)
}

// ValidateOutcome checks an OutcomeSummary: a task_id, a non-negative elapsed time, and,
// when outcomes are listed, only matched ones of this task.
func ValidateOutcome(sum *contract.OutcomeSummary) error {
	if sum.TaskID == "" {
		return fmt.Errorf("missing task_id")
	}
	if sum.ElapsedMS < 0 {
		return fmt.Errorf("elapsed_ms: must not be negative, got %d", sum.ElapsedMS)
	}
	return validateOutcomes(sum.TaskID, sum.Outcomes, true)
}

// The field paths of error messages are built only when there is an error: every
// message of every round is validated.

func validateOutcomes(taskID string, outcomes []contract.SubTaskOutcome, allMatched bool) error {
	for i := range outcomes {
		o := &outcomes[i]
		at := func() string { return fmt.Sprintf("outcomes[%d]", i) }
		switch o.Status {
		case contract.OutcomeMatched:
		case contract.OutcomeFailed:
			if allMatched {
				return fmt.Errorf("%s.status: an OutcomeSummary holds matched subtasks only, got \"failed\"", at())
			}
		default:
			return fmt.Errorf("%s.status: got %q, want \"matched\" or \"failed\"", at(), o.Status)
		}
		if o.ParentTaskID != "" && o.ParentTaskID != taskID {
			return fmt.Errorf("%s.parent_task_id: %q is not this task (%q)", at(), o.ParentTaskID, taskID)
		}
		if len(o.CriteriaVerdicts) > 0 {
			if err := validateVerdicts(func() string { return at() + ".criteria_verdicts" }, o.CriteriaVerdicts); err != nil {
				return err
			}
		}
		for j, a := range o.GapTrajectory {
			for k, fc := range a.FailedCriteria {
				if !validClass(fc.FailureClass) {
					return classError(fmt.Sprintf("%s.gap_trajectory[%d].failed_criteria[%d].failure_class", at(), j, k), fc.FailureClass)
				}
			}
		}
	}
	return nil
}

// validateVerdicts checks each verdict; at names the list in an error (built only then).
func validateVerdicts(at func() string, vs []contract.CriterionVerdict) error {
	for i, v := range vs {
		here := func() string { return fmt.Sprintf("%s[%d]", at(), i) }
		if v.Criterion == "" {
			return fmt.Errorf("%s.criterion: missing", here())
		}
		switch v.Mode {
		case "", contract.ModeVerifiable, contract.ModePlausible:
		default:
			return fmt.Errorf("%s.mode: got %q, want \"verifiable\" or \"plausible\"", here(), v.Mode)
		}
		switch v.Verdict {
		case contract.VerdictPass, contract.VerdictFail:
		default:
			return fmt.Errorf("%s.verdict: got %q, want \"pass\" or \"fail\"", here(), v.Verdict)
		}
		if !validClass(v.Class()) {
			return classError(here()+".failure_class", v.Class())
		}
	}
	return nil
}

// validClass accepts logical, environmental, and no class (null or "").
func validClass(class string) bool {
	switch class {
	case "", contract.FailureLogical, contract.FailureEnvironmental:
		return true
	}
	return false
}

func classError(at, class string) error {
	return fmt.Errorf("%s: got %q, want \"logical\", \"environmental\" or null", at, class)
}

// faults lists the faults a ReplanRequest carries, the round's own first.
func faults(req *contract.ReplanRequest) []*contract.Fault {
	var out []*contract.Fault
	if req.Fault != nil {
		out = append(out, req.Fault)
	}
	for i := range req.Outcomes {
		if f := req.Outcomes[i].Fault; f != nil {
			out = append(out, f)
		}
	}
	return out
}

// validateFault checks a fault's role and kind, which GGS's summary and FinalResult name.
func validateFault(f *contract.Fault) error {
	switch f.Kind {
	case contract.FaultModelUnavailable, contract.FaultContractBroken, contract.FaultPlannerCornered, contract.FaultResponseTooLarge,
		contract.FaultToolUnavailable, contract.FaultKeyRefused:
	default:
		return fmt.Errorf("fault.kind: got %q, want %s, %s, %s, %s, %s or %s", f.Kind,
			contract.FaultModelUnavailable, contract.FaultContractBroken, contract.FaultPlannerCornered, contract.FaultResponseTooLarge,
			contract.FaultToolUnavailable, contract.FaultKeyRefused)
	}
	if f.Role == "" {
		return fmt.Errorf("fault.role: missing")
	}
	return nil
}
