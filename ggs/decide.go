package ggs

import (
	"context"
	"fmt"
	"math"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// SignalsKind is the fact kind that carries a round's Signals in the rule set.
const SignalsKind = "signals"

// ObjectivePlan is the objective of the planning step before a task's first round.
const ObjectivePlan = "plan"

// Decision is the outcome of one agenda cycle: the macro-state and the rule that chose it.
type Decision struct {
	Directive string
	Rule      string
}

// RulesDecider chooses macro-states by running the rules of a GGS rule set over a
// `signals` fact in one spine session. It is not safe for concurrent use.
type RulesDecider struct {
	sess *engine.Session
	fact signalsFact     // the signals being decided, bound to the signals fact
	put  *engine.Binding // writes fact as the signals fact
}

// signalsFact is the part of Signals the signals fact declares, which Decide writes.
type signalsFact struct {
	Round      int     `json:"round"`
	D          float64 `json:"D"`
	P          float64 `json:"P"`
	Omega      float64 `json:"omega"`
	BetaEff    float64 `json:"beta_eff"`
	L          float64 `json:"L"`
	Grad       float64 `json:"grad"`
	Worsening  int     `json:"worsening"`
	Replans    int     `json:"replans"`
	AllMatched bool    `json:"all_matched"`
	Fault      int     `json:"fault"`
}

// NewRulesDecider opens a session over rs; see CheckRuleSet for what rs must declare.
func NewRulesDecider(rs *ruleset.RuleSet, opts ...engine.Option) (*RulesDecider, error) {
	if err := CheckRuleSet(rs); err != nil {
		return nil, err
	}
	// A solver decides once per message for as long as its input lasts: no firing limit.
	opts = append([]engine.Option{engine.WithMaxFirings(math.MaxInt)}, opts...)
	d := &RulesDecider{sess: engine.NewSession(rs, opts...)}
	var err error
	if d.put, err = d.sess.Bind(SignalsKind, &d.fact); err != nil {
		return nil, fmt.Errorf("ggs: rule set %s: %w", rs.Path(), err)
	}
	return d, nil
}

// CheckRuleSet reports whether rs can drive GGS: it must declare the signals fact kind,
// every macro-state as an objective, and every param of ParamNames.
func CheckRuleSet(rs *ruleset.RuleSet) error {
	if _, ok := rs.Kind(SignalsKind); !ok {
		return fmt.Errorf("ggs: rule set %s declares no %q fact kind", rs.Path(), SignalsKind)
	}
	for _, name := range []string{
		contract.DirectiveAccept, contract.DirectiveSuccess, contract.DirectiveAbandon,
		contract.DirectiveBreakSymmetry, contract.DirectiveChangeApproach,
		contract.DirectiveChangePath, contract.DirectiveRefine,
	} {
		if _, ok := rs.Objective(name); !ok {
			return fmt.Errorf("ggs: rule set %s declares no objective %q", rs.Path(), name)
		}
	}
	if _, err := ParamsFrom(rs); err != nil {
		return fmt.Errorf("ggs: rule set %s: %w", rs.Path(), err)
	}
	return nil
}

// Decide puts s into working memory as the signals fact and runs one agenda cycle; the
// objective the fired rule sets is the decision.
func (d *RulesDecider) Decide(ctx context.Context, s Signals) (Decision, error) {
	f := &d.fact // field by field: a copy of the struct goes through the stack
	f.Round, f.D, f.P, f.Omega, f.BetaEff, f.L = s.Round, s.D, s.P, s.Omega, s.BetaEff, s.L
	f.Grad, f.Worsening, f.Replans, f.AllMatched, f.Fault = s.Grad, s.Worsening, s.Replans, s.AllMatched, s.Fault
	if err := d.put.Write(); err != nil {
		return Decision{}, fmt.Errorf("ggs: signals fact: %w", err)
	}
	dec, err := d.sess.Decide(ctx) // the cycle's result is built only for an error below
	if err != nil {
		return Decision{}, fmt.Errorf("ggs: agenda cycle: %w", err)
	}
	if dec.Errors > 0 {
		for _, ev := range d.sess.LastCycle().Evaluated {
			if ev.Result == engine.ResultError {
				return Decision{}, fmt.Errorf("ggs: rule %s: %s", ev.Rule, ev.Error)
			}
		}
	}
	if dec.Rule == nil {
		return Decision{}, fmt.Errorf("ggs: no rule matched round %d (D=%s P=%s Ω=%s ∇L=%s worsening=%d)",
			s.Round, num(s.D), num(s.P), num(s.Omega), num(s.Grad), s.Worsening)
	}
	return Decision{Directive: dec.Objective, Rule: dec.Rule.Name}, nil
}
