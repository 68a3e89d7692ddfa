package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Results of evaluating one rule in a cycle.
const (
	ResultTrue  = "true"
	ResultFalse = "false"
	ResultError = "error"
)

// Tie-breakers, as reported in a cycle's DecidedBy: the first criterion of the agenda
// order that separated the fired rule from the runner-up.
const (
	DecidedAlone       = "alone" // the conflict set held one rule
	DecidedSalience    = "salience"
	DecidedSpecificity = "specificity"
	DecidedRecency     = "recency"
	DecidedName        = "name"
)

// CycleResult describes one agenda cycle. It and its slices are read-only, and reused by
// the next cycle of the same session; copy what you need to keep.
type CycleResult struct {
	Cycle       int              `json:"cycle"`
	Stage       string           `json:"stage"`
	Scope       string           `json:"scope"` // "all", or "terminal" when only rules setting a terminal objective were considered
	Evaluated   []trace.RuleEval `json:"evaluated"`
	ConflictSet []string         `json:"conflict_set"` // in agenda order; the first fired
	Fired       string           `json:"fired"`        // "" when the conflict set was empty
	DecidedBy   string           `json:"decided_by,omitempty"`
	// Objectives are the scored objectives' values the rules saw, in file order; empty
	// when the rule set scores none.
	Objectives []ObjectiveEval `json:"objectives,omitempty"`
	Objective  string          `json:"-"` // the objective after the cycle
	Errors     int             `json:"-"` // how many of Evaluated have Result ResultError
}

type candidate struct {
	rule    *ruleset.Rule
	pos     int // the rule's position in the static order
	recency uint64
}

// Firing is one rule firing, as listed in a RunawayError.
type Firing struct {
	Cycle int    `json:"cycle"`
	Rule  string `json:"rule"`
	Stage string `json:"stage"`
}

// RunawayError stops a session whose rules fired more times than allowed.
type RunawayError struct {
	Limit int
	Last  []Firing // the most recent firings, oldest first
}

func (e *RunawayError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "spine: rule firings exceeded the limit of %d; last firings:", e.Limit)
	for _, f := range e.Last {
		if f.Stage == "" { // a session driven without the engine has no FSM state
			fmt.Fprintf(&b, " [cycle %d %s]", f.Cycle, f.Rule)
			continue
		}
		fmt.Fprintf(&b, " [cycle %d %s %s]", f.Cycle, f.Stage, f.Rule)
	}
	return b.String()
}

const keepFirings = 10

// runCycle runs one cycle (see step) and returns its result.
func (s *Session) runCycle(ctx context.Context, terminalOnly bool) (*CycleResult, error) {
	if _, err := s.step(ctx, terminalOnly); err != nil {
		return nil, err
	}
	return s.LastCycle(), s.Flush()
}

// Decided is what one agenda cycle decided: the rule it fired (nil when the conflict
// set was empty), the objective after it, and how many rules failed to evaluate. It is
// four words, which Go passes in registers: a larger result is copied through memory.
type Decided struct {
	Rule      *ruleset.Rule
	Objective string
	Errors    int
}

// Fired is the name of the rule the cycle fired, "" for none.
func (d Decided) Fired() string {
	if d.Rule == nil {
		return ""
	}
	return d.Rule.Name
}

// Decide runs one agenda cycle over every rule, as Cycle does, and returns what it
// decided without building the cycle's CycleResult: LastCycle builds it when read. The
// trace is the same as Cycle's.
func (s *Session) Decide(ctx context.Context) (Decided, error) {
	if s.tracer.discard && len(s.rs.ScoredObjectives()) == 0 {
		// Nobody reads the events and no objective is scored before the rules: the
		// lookup comes first, and a cycle seen before is decided without step.
		if err := s.mayCycle(ctx); err != nil {
			return Decided{}, err
		}
		s.cyc.objectives = nil
		decided, leaf := s.lookup()
		if !s.decideQuiet(leaf) {
			s.cycleFrom(false, decided, leaf)
		}
		return s.lastDecided(), s.tracer.err
	}
	if _, err := s.step(ctx, false); err != nil {
		return Decided{}, err
	}
	if s.tracer.discard { // Flush, without the call
		return s.lastDecided(), s.tracer.err
	}
	return s.lastDecided(), s.Flush()
}

// lastDecided is what the last cycle decided.
func (s *Session) lastDecided() Decided {
	c := &s.cyc
	return Decided{Rule: c.agenda.first, Objective: c.objective, Errors: c.errs}
}

// cycleState is what a cycle keeps to build its CycleResult when a sink or a caller
// reads it: the evaluation list (s.evals), the agenda and what is not derived from them.
type cycleState struct {
	agenda       *agenda
	errs         int
	terminalOnly bool
	stage        string
	objective    string          // the objective after the cycle
	objectives   []ObjectiveEval // the scored objectives' values, nil when none are scored
	built        bool            // res holds this cycle's result
}

// LastCycle returns the result of the session's last cycle, built from what the cycle
// kept; nil before the first cycle. It is read-only and reused by the next cycle.
func (s *Session) LastCycle() *CycleResult {
	c := &s.cyc
	if c.agenda == nil {
		return nil
	}
	res := &s.res
	if !c.built {
		// The result is reused: every field is written in place, not the struct rebuilt.
		res.Cycle, res.Stage, res.Scope, res.Errors = s.cycle, c.stage, "all", c.errs
		res.Evaluated, res.Objectives = s.evals, c.objectives
		if c.terminalOnly {
			res.Scope = "terminal"
		}
		res.ConflictSet, res.DecidedBy, res.Fired = c.agenda.names, c.agenda.decidedBy, ""
		if c.agenda.first != nil {
			res.Fired = c.agenda.first.Name
		}
		c.built = true
	}
	res.Objective = c.objective
	return res
}

// step evaluates the rules, orders the conflict set and fires its first rule, which it
// returns (nil for none). With terminalOnly, only rules whose objective is terminal
// take part. It keeps what the cycle's result is built from (see LastCycle) and builds
// the result only for a sink that writes the conflict set.
func (s *Session) step(ctx context.Context, terminalOnly bool) (*ruleset.Rule, error) {
	if err := s.mayCycle(ctx); err != nil {
		return nil, err
	}
	s.cyc.objectives = nil
	if len(s.rs.ScoredObjectives()) > 0 {
		s.cyc.objectives = s.evalObjectives() // before the rules, which may read them
	}
	decided, leaf := s.lookup()
	return s.cycleFrom(terminalOnly, decided, leaf), nil
}

// mayCycle reports why the session may not run another cycle: the context's error, the
// exchanger's cancellation point, or a runaway.
func (s *Session) mayCycle(ctx context.Context) error {
	if err := s.canceled(ctx); err != nil {
		return err
	}
	if s.nFirings >= s.opts.maxFirings {
		return &RunawayError{Limit: s.opts.maxFirings, Last: s.lastFirings()}
	}
	return nil
}

// lookup decides every analysable rule on the working memory's input: their outcomes
// by rule index and the matcher's leaf (see cond.Matcher.Decide).
func (s *Session) lookup() ([]uint8, int) {
	if len(s.decided) != len(s.rs.Order()) { // a reload brought another matcher
		s.decided = make([]uint8, len(s.rs.Order()))
	}
	return s.rs.Matcher().Decide(&s.wm.in, s.decided)
}

// cycleFrom is the cycle after the scored objectives (s.cyc.objectives) and the lookup:
// it evaluates the rules left, orders the conflict set, fires its first rule and
// returns it (nil for none).
func (s *Session) cycleFrom(terminalOnly bool, decided []uint8, leaf int) *ruleset.Rule {
	s.cycle++
	s.cset = s.cset[:0]
	c := &s.cyc
	errs, agenda := s.evaluate(terminalOnly, decided, leaf)
	if agenda == nil {
		agenda = s.order()
	}
	c.agenda, c.errs, c.terminalOnly, c.stage, c.built = agenda, errs, terminalOnly, s.stage(), false
	first := agenda.first
	if s.tracer.discard {
		// Nobody reads the events: the conflict set's and the firing's only take their
		// seqs, and the objective's fact event takes its own (see putObjective).
		if first == nil {
			s.tracer.skip()
		} else {
			s.fire(first)
		}
	} else {
		s.tracer.emit(trace.KindConflictSet, s.LastCycle())
		if first != nil {
			s.fire(first)
		}
	}
	if first != nil && first.Then.Objective != "" {
		c.objective = first.Then.Objective // what fire set last, without reading it back
	} else {
		c.objective = s.Objective()
	}
	return first
}

// agenda is a conflict set in agenda order: its names, its first rule (nil when it is
// empty) and what put that rule first.
type agenda struct {
	names     []string
	first     *ruleset.Rule
	decidedBy string
}

// order sorts the cycle's conflict set into the agenda.
func (s *Session) order() *agenda {
	s.agenda = agendaOf(s.cset, s.agenda.names[:0])
	return &s.agenda
}

// agendaOf sorts cset into the agenda, appending its names to names. Rules are
// evaluated in the static order, so the set is usually sorted already; only recency can
// disturb it.
func agendaOf(cset []candidate, names []string) agenda {
	if !slices.IsSortedFunc(cset, compareCandidates) {
		slices.SortFunc(cset, compareCandidates)
	}
	a := agenda{names: names}
	for _, c := range cset {
		a.names = append(a.names, c.rule.Name)
	}
	if len(cset) > 0 {
		a.first, a.decidedBy = cset[0].rule, DecidedAlone
		if len(cset) > 1 {
			a.decidedBy = tieBreaker(cset[0], cset[1])
		}
	}
	return a
}

// evaluate decides every rule (only those setting a terminal objective with
// terminalOnly) into s.evals and the true ones that are not refracted into s.cset, and
// returns how many failed, and the agenda when a leaf's holds. One lookup in the matcher
// decides every analysable rule whose facts are present; expr's VM runs the others.
func (s *Session) evaluate(terminalOnly bool, decided []uint8, leaf int) (errs int, a *agenda) {
	m, order := s.rs.Matcher(), s.rs.Order()
	if !terminalOnly {
		c := &s.leaves
		if leaf >= 0 && c.m == m && c.entries[leaf] != nil { // a leaf seen before: no call
			return 0, s.evaluateLeaf(c.entries[leaf], order)
		}
		if e := c.get(m, leaf, order, decided); e != nil {
			return 0, s.evaluateLeaf(e, order)
		}
	}
	if cap(s.own) < len(order) { // a reload brought more rules
		s.own = make([]trace.RuleEval, len(order))
	}
	evals := s.own[:len(order)]
	n := 0
	for pos, r := range order {
		if terminalOnly && !r.Terminal() {
			continue
		}
		outcome := decided[r.Index()]
		ok := outcome == cond.True
		var err error
		if outcome == cond.VM {
			ok, err = s.evalVM(r)
		}
		// Write the outcome field by field into the slice, which has room for every
		// rule: cheaper than building a RuleEval and copying it in.
		ev := &evals[n]
		n++
		*ev = trace.RuleEval{Rule: r.Name, Result: ResultFalse}
		if err != nil {
			ev.Result, ev.Error = ResultError, err.Error()
			errs++
		} else if ok {
			ev.Result = ResultTrue
			s.candidate(r, pos, &ev.Refracted)
		}
	}
	s.evals, s.sharedEvals = evals[:n], false
	return errs, nil
}

// evaluateLeaf is evaluate for a leaf whose list the cache holds: the list is the
// cycle's own when no rule is refracted, and a copy with the refracted rules marked
// otherwise. When the leaf has an agenda and no rule is refracted, that is the cycle's.
func (s *Session) evaluateLeaf(e *leafEvals, order []*ruleset.Rule) *agenda {
	s.evals, s.sharedEvals = e.evals, true
	if e.agenda.names != nil && s.fresh(e) {
		return &e.agenda
	}
	for _, pos := range e.trues {
		var refracted bool
		if s.candidate(order[pos], int(pos), &refracted); !refracted {
			continue
		}
		if s.sharedEvals {
			s.own = append(s.own[:0], e.evals...)
			s.evals, s.sharedEvals = s.own, false
		}
		s.evals[pos].Refracted = true
	}
	return nil
}

// fresh reports whether no true rule of leaf entry e, which has an agenda, is
// refracted. The true rules read the same kinds: one recency, which must not be below
// the firedAt of any of them. No firedAt is above the last firing's, so a recency at or
// above it needs no look at the rules.
func (s *Session) fresh(e *leafEvals) bool {
	var rec uint64
	if e.read >= 0 {
		rec = s.wm.kinds[e.read].rev
	} else {
		for _, k := range e.reads {
			rec = max(rec, s.wm.kinds[k].rev)
		}
	}
	if rec >= s.lastFiredAt {
		return true
	}
	for _, i := range e.trueRules {
		if rec < s.firedAt[i] {
			return false
		}
	}
	return true
}

// candidate adds true rule r, at pos in the static order, to the conflict set unless it
// is refracted, which it reports in refracted.
func (s *Session) candidate(r *ruleset.Rule, pos int, refracted *bool) {
	rec, ref := s.recency(r)
	if *refracted = ref; !ref {
		s.cset = append(s.cset, candidate{rule: r, pos: pos, recency: rec})
	}
}

// evalVM runs a rule's predicate on expr's VM. A predicate that fails or panics is that
// rule's outcome for the cycle; it never stops the engine.
func (s *Session) evalVM(r *ruleset.Rule) (bool, error) {
	out, err := s.run(r.Program())
	if err != nil {
		return false, err
	}
	b, isBool := out.(bool)
	if !isBool {
		return false, fmt.Errorf("predicate returned %T, not bool", out)
	}
	return b, nil
}

// recency is the newest revision among the fact kinds r reads; r is refracted, fired
// already on the current revisions of what it reads, while it is below r's firedAt.
func (s *Session) recency(r *ruleset.Rule) (rec uint64, refracted bool) {
	for _, k := range r.ReadKinds() {
		rec = max(rec, s.wm.kinds[k].rev)
	}
	return rec, rec < s.firedAt[r.Index()]
}

// compareCandidates is the agenda order: salience ↓, specificity ↓, recency ↓, name ↑.
// Rule names are unique, so the order is total.
func compareCandidates(a, b candidate) int {
	// cmp.Compare, not subtraction, so that no value can overflow.
	if c := cmp.Compare(b.rule.Salience, a.rule.Salience); c != 0 {
		return c
	}
	if c := cmp.Compare(b.rule.Specificity, a.rule.Specificity); c != 0 {
		return c
	}
	if c := cmp.Compare(b.recency, a.recency); c != 0 {
		return c
	}
	// Among equal salience and specificity the static order is by name.
	return cmp.Compare(a.pos, b.pos)
}

func tieBreaker(a, b candidate) string {
	switch {
	case a.rule.Salience != b.rule.Salience:
		return DecidedSalience
	case a.rule.Specificity != b.rule.Specificity:
		return DecidedSpecificity
	case a.recency != b.recency:
		return DecidedRecency
	}
	return DecidedName
}

// fire carries out a rule's then. Action errors (updating a fact that is not there, a
// field of the wrong type) are recorded in the rule_fired event; they do not stop the
// engine. With the Discard sink it also counts the cycle's conflict set event.
func (s *Session) fire(r *ruleset.Rule) {
	s.record(r)
	t := &r.Then
	if s.tracer.discard {
		// Nobody reads them: do not build the bodies. The conflict set, the firing and
		// the objective's fact event take their seqs together.
		if r.ObjectiveOnly() && s.wm.objectiveInPlace(t.Objective, r.Name) {
			s.tracer.own += 3
			s.requested = t.Transition
			return
		}
		s.tracer.own += 2
	} else {
		s.emitFired(r)
	}
	var errs []string
	if len(t.Retract)+len(t.Assert)+len(t.Update) > 0 {
		errs = s.act(r)
	}
	if t.Objective != "" {
		s.wm.putBuiltin(objectiveIndex, t.Objective, r.Name, 0)
	}
	s.requested = t.Transition
	if len(errs) > 0 {
		s.tracer.emit(trace.KindRuleError, trace.RuleError{Cycle: s.cycle, Rule: r.Name, Errors: errs})
	}
}

// record notes that r fires in this cycle: its firedAt, and the ring of the last
// firings.
func (s *Session) record(r *ruleset.Rule) {
	s.firedAt[r.Index()] = s.wm.rev + 1
	s.lastFiredAt = s.wm.rev + 1
	f := &s.firings[s.ring]
	f.Cycle, f.Rule, f.Stage = s.cycle, r.Name, s.cyc.stage
	s.nFirings++
	if s.ring++; s.ring == keepFirings {
		s.ring = 0
	}
}

// act makes the fact changes of a rule's then and returns their errors.
func (s *Session) act(r *ruleset.Rule) (errs []string) {
	note := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	for _, a := range r.Then.Retract {
		_, err := s.wm.retract(a.Kind, a.ID)
		note(err)
	}
	for i, a := range r.Then.Assert {
		_, err := s.wm.change(a.Kind, a.ID, r.AssertFields(i), "")
		note(err)
	}
	for i, a := range r.Then.Update {
		_, err := s.wm.change(a.Kind, a.ID, r.UpdateFields(i), OpUpdate)
		note(err)
	}
	return errs
}

// emitFired writes the rule_fired event, with the rule's then as encoded at load.
func (s *Session) emitFired(r *ruleset.Rule) {
	then, err := r.ThenJSON()
	if err != nil {
		s.tracer.failSeq(trace.KindRuleFired, err)
		return
	}
	s.tracer.emit(trace.KindRuleFired, &trace.RuleFiredEncoded{Cycle: s.cycle, Rule: r.Name, Salience: r.Salience, Then: then})
}

// lastFirings lists the ring from its oldest firing.
func (s *Session) lastFirings() []Firing {
	if s.nFirings < keepFirings {
		return slices.Clone(s.firings[:s.nFirings])
	}
	return slices.Concat(s.firings[s.ring:], s.firings[:s.ring])
}

func (s *Session) stage() string { return s.wm.builtin(stateIndex, 0) }
