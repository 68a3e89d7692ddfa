package ggs

import (
	"math"

	"github.com/agentspine/spine/contract"
)

// Signals is one round of one task as the rules see it: the `signals` fact of
// rules/ggs.yaml. The json names are the fact's declared fields.
type Signals struct {
	Round      int     `json:"round"`       // 1 on a task's first decision; 0 while planning
	D          float64 `json:"D"`           // intent-result distance
	P          float64 `json:"P"`           // process implausibility
	Omega      float64 `json:"omega"`       // resource cost
	BetaEff    float64 `json:"beta_eff"`    // β·(1−Ω)
	L          float64 `json:"L"`           // loss
	Grad       float64 `json:"grad"`        // ∇L = L − L_prev, 0 on the first round
	Worsening  int     `json:"worsening"`   // consecutive rounds with ∇L > ε, this one included
	Replans    int     `json:"replans"`     // PlanDirectives already issued for the task
	AllMatched bool    `json:"all_matched"` // an OutcomeSummary: every subtask matched
	// Fault is what a fault of the machinery (contract.Fault) leaves the rules to decide:
	// FaultNone, FaultRetry or FaultEnds. One field rather than the three facts it is
	// made of keeps the rule analysis's regions few.
	Fault int `json:"fault"`

	// What Fault is made of, for the rationale and summary; not part of the fact.
	FaultRounds int    `json:"-"` // consecutive rounds a fault cut short, this one included
	FaultOnly   bool   `json:"-"` // the fault is all that failed: nothing was judged on its merits
	FaultFatal  bool   `json:"-"` // trying again cannot help (the planner is cornered, the key refused)
	FaultRole   string `json:"-"` // the role the round's fault names, "" without one
	FaultKind   string `json:"-"` // and its kind (contract.Fault…)
	// Interrupted is the kind of the interruption that ends the round (cancelled,
	// iteration_bound, effector_error), "" for none.
	Interrupted     string `json:"-"`
	InterruptDetail string `json:"-"` // what the interruption's fault says happened
}

// Values of Signals.Fault.
const (
	// FaultNone: no fault, or one beside real failures with retries left; the round is
	// decided on its merits (the fault's subtasks stay out of D and P).
	FaultNone = 0
	// FaultRetry: only a fault failed, and max_fault_retries allows another go.
	FaultRetry = 1
	// FaultEnds: a fault that retrying cannot cure, or faults that cut more than
	// max_fault_retries rounds short in a row.
	FaultEnds = 2
)

// Loss returns the loss breakdown carried by PlanDirective and FinalResult.
func (s Signals) Loss() contract.Loss {
	return contract.Loss{D: s.D, P: s.P, Omega: s.Omega, L: s.L}
}

// precision is the resolution of every signal. Signals are rounded to it before they are
// compared or printed, so that thresholds written as decimals compare as written
// (0.7 − 0.6 is exactly ε = 0.1, not 0.09999999999999998) and no -0 is ever printed.
const precision = 1e6

func round(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	r := math.Round(x*precision) / precision
	if r == 0 {
		return 0 // turns -0 into 0
	}
	return r
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// Tally is what a round's criteria verdicts say, before weighting into D and P.
type Tally struct {
	Failed        float64 // Σ weighted failures: 1 per verifiable fail, k/N per plausible fail
	Total         int     // Σ criteria
	Logical       int     // failed criteria of class logical
	Environmental int     // failed criteria of class environmental
	Primary       string  // the failed criterion with the largest weight (first on ties)
}

// TallyReplan reads every criteria verdict of req: each outcome's criteria_verdicts and
// R4b's task_criteria_verdicts on the merged result. A plausible failure weighs k/N, N the
// attempts of its subtask's gap trajectory and k those that list the criterion; the final
// verdict is itself a failed attempt, so k is at least 1, and without a trajectory the
// weight is 1. A missing mode is verifiable.
//
// A ReplanRequest always reports a failure, and it is never read as D = 0 for lack of
// verdicts: a failed outcome with no failed verdict counts as one failed verifiable
// criterion (named by its failure_reason), and when nothing at all failed, R4b's rejection
// counts as one (named by gap_summary). Neither has a failure class.
func TallyReplan(req *contract.ReplanRequest) Tally {
	var t Tally
	best := -1.0
	add := func(name string, weight float64, class string) {
		t.Total++
		t.Failed += weight
		switch class {
		case contract.FailureLogical:
			t.Logical++
		case contract.FailureEnvironmental:
			t.Environmental++
		}
		if weight > best {
			best, t.Primary = weight, name
		}
	}
	verdicts := func(vs []contract.CriterionVerdict, traj []contract.GapAttempt) (failed bool) {
		for _, v := range vs {
			if !v.Failed() {
				t.Total++
				continue
			}
			failed = true
			w := 1.0
			if v.Mode == contract.ModePlausible {
				w = plausibleWeight(v.Criterion, traj)
			}
			add(v.Criterion, w, v.Class())
		}
		return failed
	}
	anyFailed := false
	for i := range req.Outcomes {
		o := &req.Outcomes[i]
		if o.Fault != nil {
			continue // the machinery failed, not the task: no verdict, nothing in D or P
		}
		failed := verdicts(o.CriteriaVerdicts, o.GapTrajectory)
		if !failed && o.Status == contract.OutcomeFailed {
			name := "subtask " + o.SubTaskID + " failed"
			if o.FailureReason != nil && *o.FailureReason != "" {
				name = *o.FailureReason
			}
			add(name, 1, "")
			failed = true
		}
		anyFailed = anyFailed || failed
	}
	if verdicts(req.TaskCriteriaVerdicts, nil) {
		anyFailed = true
	}
	if !anyFailed && RoundFault(req) == nil {
		name := req.GapSummary
		if name == "" {
			name = "merged result rejected"
		}
		add(name, 1, "")
	}
	return t
}

// RoundFault is the fault of the machinery a ReplanRequest reports: the round's own (a
// role that could not do its job) or else the first faulted subtask's; nil when none.
func RoundFault(req *contract.ReplanRequest) *contract.Fault {
	if req.Fault != nil {
		return req.Fault
	}
	for i := range req.Outcomes {
		if f := req.Outcomes[i].Fault; f != nil {
			return f
		}
	}
	return nil
}

// faultOnly tells whether a ReplanRequest's only failures are faults of the machinery:
// no failed verdict, no failed outcome without a fault.
func faultOnly(req *contract.ReplanRequest) bool {
	if RoundFault(req) == nil {
		return false
	}
	for i := range req.Outcomes {
		o := &req.Outcomes[i]
		if o.Fault != nil {
			continue
		}
		if o.Status == contract.OutcomeFailed {
			return false
		}
		for _, v := range o.CriteriaVerdicts {
			if v.Failed() {
				return false
			}
		}
	}
	for _, v := range req.TaskCriteriaVerdicts {
		if v.Failed() {
			return false
		}
	}
	return true
}

// plausibleWeight is k/N for a plausible criterion over a gap trajectory.
func plausibleWeight(criterion string, traj []contract.GapAttempt) float64 {
	if len(traj) == 0 {
		return 1
	}
	k := 0
	for _, a := range traj {
		for _, fc := range a.FailedCriteria {
			if fc.Criterion == criterion {
				k++
				break
			}
		}
	}
	k = max(k, 1)
	return float64(k) / float64(len(traj))
}

// D is Σ weighted failures / Σ criteria, in [0, 1].
func (t Tally) D() float64 {
	if t.Total == 0 {
		return 0
	}
	return round(clamp01(t.Failed / float64(t.Total)))
}

// P is logical / (logical + environmental), 0 when no failure has a class.
func (t Tally) P() float64 {
	n := t.Logical + t.Environmental
	if n == 0 {
		return 0
	}
	return round(float64(t.Logical) / float64(n))
}

// Class is the dominant failure class of the round; a tie, including no classified
// failure at all, is mixed.
func (t Tally) Class() string {
	switch {
	case t.Logical > t.Environmental:
		return contract.FailureLogical
	case t.Environmental > t.Logical:
		return contract.FailureEnvironmental
	}
	return contract.FailureMixed
}

// Omega is w₁·replans/maxReplans + w₂·elapsed/time_budget, the sum clamped to [0, 1]. The
// terms are not capped one by one. A negative elapsed time counts as 0.
func Omega(p Params, replans int, elapsedMS int64) float64 {
	var r, e float64
	if p.MaxReplans > 0 {
		r = float64(replans) / float64(p.MaxReplans)
	}
	if p.TimeBudgetMS > 0 && elapsedMS > 0 {
		e = float64(elapsedMS) / p.TimeBudgetMS
	}
	return round(clamp01(p.W1*r + p.W2*e))
}

// BetaEff is β·(1−Ω): process implausibility matters less as the budget runs out.
func BetaEff(p Params, omega float64) float64 { return round(p.Beta * (1 - omega)) }

// Loss is α·D + β_eff·P + λ·Ω.
func Loss(p Params, d, pp, omega float64) float64 {
	return round(p.Alpha*d + BetaEff(p, omega)*pp + p.Lambda*omega)
}

// Gradient is L − L_prev, 0 on the first round.
func Gradient(l, lPrev float64, first bool) float64 {
	if first {
		return 0
	}
	return round(l - lPrev)
}
