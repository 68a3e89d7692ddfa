package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/spine/ruleset"
)

// ObjectiveEval is one scored objective's evaluation in a cycle. An evaluation that
// fails (an expression error, a panic, a score that is not a finite number, a satisfied
// that is not a bool) is recorded in Error, and rules then see score 0 and satisfied
// false, so a broken objective never reads as met.
type ObjectiveEval struct {
	Objective    string
	Score        float64
	Satisfied    bool
	HasScore     bool // the objective declares a score
	HasSatisfied bool // the objective declares satisfied
	Error        string
}

// MarshalJSON writes {"objective", "score", "satisfied", "error"}, leaving out the parts
// the objective does not declare and both values when the evaluation failed.
func (o ObjectiveEval) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// evalObjectives evaluates every scored objective, in file order, against the current
// facts, and stores the values where rules read them. It returns nil when the rule set
// scores no objective. The returned slice is reused by the next evaluation.
func (s *Session) evalObjectives() []ObjectiveEval {
	scored := s.rs.ScoredObjectives()
	if len(scored) == 0 {
		s.objEvals = s.objEvals[:0]
		return nil
	}
	evals := s.objEvals[:0]
	for _, o := range scored {
		ev := ObjectiveEval{Objective: o.Name, HasScore: o.Score != "", HasSatisfied: o.Satisfied != ""}
		score, satisfied := o.Programs()
		var errs []string
		if ev.HasScore {
			v, err := s.run(score)
			if err == nil {
				ev.Score, err = scoreOf(v)
			}
			if err != nil {
				errs = append(errs, "score: "+err.Error())
			}
		}
		if ev.HasSatisfied {
			v, err := s.run(satisfied)
			if err == nil {
				b, isBool := v.(bool)
				if !isBool {
					err = fmt.Errorf("got %T, not a bool", v)
				}
				ev.Satisfied = b
			}
			if err != nil {
				errs = append(errs, "satisfied: "+err.Error())
			}
		}
		if len(errs) > 0 {
			ev.Error = strings.Join(errs, "; ")
			ev.Score, ev.Satisfied = 0, false
		}
		s.rs.StoreObjective(s.wm.env, o, ev.Score, ev.Satisfied)
		evals = append(evals, ev)
	}
	s.objEvals = evals
	return evals
}

// Objectives evaluates the scored objectives against the current facts and returns a
// copy of the result, in file order; nil when the rule set scores none. It writes no
// trace event: the conflict_set events record the evaluations the rules saw.
func (s *Session) Objectives() []ObjectiveEval {
	return slices.Clone(s.evalObjectives())
}

// run runs one compiled expression (a rule's predicate, an objective's score or
// satisfied) against the facts; a panic is its error.
func (s *Session) run(p *vm.Program) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return s.vm.Run(p, s.wm.envValue())
}

// scoreOf is a score's value as a float64: any number, as the loader accepts any numeric
// static type for a score.
func scoreOf(v any) (float64, error) {
	f, ok := ruleset.Number(v)
	if !ok {
		return 0, fmt.Errorf("got %T, not a number", v)
	}
	if !finite(f) {
		return 0, fmt.Errorf("%v is not a finite number", f)
	}
	return f, nil
}
