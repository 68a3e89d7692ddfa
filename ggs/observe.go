package ggs

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// OBSERVE: memory's calibration as facts. Before each round the Loop asks its plant
// which (space, entity) pairs memory holds entries for that the next plan can touch, and
// hands them to the rules one at a time as the memory_pair fact (its M_attention,
// M_decision and action, and the run's caution policy, "" when the run follows the
// rules' caution param). The memory_* rules of
// rules/ggs.yaml rule on each pair — the ruling is the cycle's objective, and the rule
// asks for observe again — before any rule picks the round's macro-state. The rulings
// travel to the plant with the round (RoundInput.Rulings), which refuses a plan or a tool
// call that uses a refused pair and names the rule. Every pair and ruling is a fact
// change and a rule firing in the trace, so `spine check --analyze` covers the rules,
// `spine what-if` re-decides them and a replay reproduces them from the recorded observe
// results.

// MemoryKind is the fact kind of the pair the rules are ruling on.
const MemoryKind = "memory_pair"

// The rulings a memory_* rule may give a pair: objectives of the rule set.
const (
	RulingRefuse = "memory_refuse" // a plan or tool call that uses the pair is refused
	RulingAllow  = "memory_allow"  // the pair may be used
	RulingLog    = "memory_log"    // the pair may be used, and each use is recorded
)

// Caution policies: what a pair memory advises Caution for gets, as memory_pair.policy.
const (
	CautionRefuse = "refuse"
	CautionAllow  = "allow"
	CautionLog    = "log"
)

// ParamCaution is the rule set's param holding the default caution policy.
const ParamCaution = "caution"

// HostParams are the params GGS reads from its rule set: ParamNames and the caution policy.
var HostParams = append(append([]string(nil), ParamNames...), ParamCaution)

// PairPotentials is memory's live reading of one (space, entity) pair.
type PairPotentials struct {
	Space  string  `json:"space"`
	Entity string  `json:"entity"`
	MAtt   float64 `json:"m_att"`
	MDec   float64 `json:"m_dec"`
	Action string  `json:"action"` // contract.ActionExploit, ActionAvoid, ActionCaution or ActionIgnore
}

// Pair is the pair as messages cite it: "tool:read_file × path:config/app.yaml".
func (p PairPotentials) Pair() string { return p.Space + " × " + p.Entity }

// Ruling is the rules' decision on one pair.
type Ruling struct {
	PairPotentials
	Policy string `json:"policy"` // the caution policy in force: the run's, else the rules' param
	Ruling string `json:"ruling"` // RulingRefuse, RulingAllow or RulingLog
	Rule   string `json:"rule"`   // the rule that gave it
}

// PairSource is a plant that can say, before a round, what memory holds on the pairs its
// next plan can touch. Its memory reads are journalled in the observe call, so a replay
// serves them again.
type PairSource interface {
	// ReadsMemory reports whether the plant has a memory to read at all; without one,
	// observe stays a pass-through.
	ReadsMemory() bool
	MemoryPairs(ctx context.Context, in RoundInput) ([]PairPotentials, error)
}

// WithCautionPolicy sets the caution policy of a Loop's run (refuse, allow or log),
// overriding the rule set's caution param; "" keeps the param.
func WithCautionPolicy(policy string) Option {
	return func(s *Solver) { s.caution = policy }
}

// CheckCautionPolicy reports whether p is a caution policy ("" is none).
func CheckCautionPolicy(p string) error {
	switch p {
	case "", CautionRefuse, CautionAllow, CautionLog:
		return nil
	}
	return fmt.Errorf("caution policy %q: expected %s, %s or %s", p, CautionRefuse, CautionAllow, CautionLog)
}

// observing is a Loop whose plant reads memory: the engine's Observer.
type observing struct{ *Loop }

var _ engine.Observer = observing{}

// Effector is the engine effector of the Loop: the Loop itself, observing memory when its
// plant is a PairSource with a memory and its rule set declares the memory_pair kind
// and the rulings.
// A run without memory keeps observe a pass-through.
func (l *Loop) Effector() engine.Effector {
	if ps, ok := l.plant.(PairSource); ok && ps.ReadsMemory() && l.observesMemory(l.rs) {
		return observing{l}
	}
	return l
}

// observesMemory reports whether rs rules on memory pairs.
func (l *Loop) observesMemory(rs *ruleset.RuleSet) bool {
	if _, ok := rs.Kind(MemoryKind); !ok {
		return false
	}
	for _, o := range []string{RulingRefuse, RulingAllow, RulingLog} {
		if _, ok := rs.Objective(o); !ok {
			return false
		}
	}
	return true
}

// policy is the caution policy in force: the run's, else the rule set's param, else refuse.
func (l *Loop) policy() string {
	if l.solver.caution != "" {
		return l.solver.caution
	}
	if v, ok := l.rs.Param(ParamCaution); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return CautionRefuse
}

// Observe hands the rules the next memory pair. On an iteration's first observe it asks
// the plant for the pairs of the coming round; on a later one (a memory_* rule asked for
// observe again) it first takes the ruling the rules gave the pair in hand.
func (o observing) Observe(ctx context.Context, req engine.ObserveRequest) (engine.Signals, error) {
	l := o.Loop
	var changes []engine.Change
	if l.obs.iteration != req.Iteration {
		l.obs = observation{iteration: req.Iteration}
		if _, held := l.sess.Get(MemoryKind, ""); held {
			// A pair the rules left unruled last iteration.
			changes = append(changes, engine.Change{Op: engine.ChangeRetract, Kind: MemoryKind})
		}
		pairs, err := o.plant.(PairSource).MemoryPairs(ctx, RoundInput{TaskID: l.task.TaskID, Intent: l.task.Intent, Round: l.round + 1})
		if err != nil {
			return engine.Signals{}, fmt.Errorf("observe: memory: %w", err)
		}
		l.obs.pending = pairs
	} else if cur := l.obs.current; cur != nil {
		r, err := l.ruling(*cur)
		if err != nil {
			return engine.Signals{}, err
		}
		l.obs.rulings = append(l.obs.rulings, r)
		l.obs.current = nil
	}
	if len(l.obs.pending) == 0 {
		if _, held := l.sess.Get(MemoryKind, ""); held && len(changes) == 0 {
			changes = append(changes, engine.Change{Op: engine.ChangeRetract, Kind: MemoryKind})
		}
		return engine.Signals{Changes: nonNilChanges(changes)}, nil
	}
	next := l.obs.pending[0]
	l.obs.pending = l.obs.pending[1:]
	l.obs.current = &next
	changes = append(changes, engine.Change{Op: engine.ChangePut, Kind: MemoryKind, Fields: ruleset.Fields{
		"space": next.Space, "entity": next.Entity, "m_att": next.MAtt, "m_dec": next.MDec,
		"action": next.Action, "policy": l.solver.caution}})
	return engine.Signals{Changes: changes}, nil
}

func nonNilChanges(cs []engine.Change) []engine.Change {
	if cs == nil {
		return []engine.Change{}
	}
	return cs
}

// ruling reads the objective the last cycle chose for the pair in hand.
func (l *Loop) ruling(p PairPotentials) (Ruling, error) {
	f, ok := l.sess.Get(ruleset.KindObjective, "")
	if !ok {
		return Ruling{}, errors.New("observe: no objective after the memory pair's cycle")
	}
	name, _ := f.Get("name")
	rule, _ := f.Get("rule")
	r := Ruling{PairPotentials: p, Policy: l.policy(), Ruling: fmt.Sprint(name), Rule: fmt.Sprint(rule)}
	switch r.Ruling {
	case RulingRefuse, RulingAllow, RulingLog:
		return r, nil
	}
	return Ruling{}, fmt.Errorf("observe: the rules chose %s (rule %s) for memory pair %s; a memory_* rule must rule on it", r.Ruling, r.Rule, p.Pair())
}

// observation is OBSERVE's state within one iteration.
type observation struct {
	iteration int
	pending   []PairPotentials // pairs not yet handed to the rules
	current   *PairPotentials  // the pair the rules are ruling on
	rulings   []Ruling
}

// takeRulings ends the iteration's observation for the round about to run: its rulings,
// in the order given. A pair still in hand got no ruling (the rules went on to a
// macro-state), and the plant falls back on memory's own action for it.
func (l *Loop) takeRulings() []Ruling {
	rs := l.obs.rulings
	l.obs.rulings, l.obs.current, l.obs.pending = nil, nil, nil
	return rs
}
