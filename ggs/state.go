package ggs

import (
	"slices"

	"github.com/agentspine/spine/contract"
)

// taskState is what GGS remembers about one task between rounds.
type taskState struct {
	rounds    int      // decisions made so far
	lPrev     float64  // loss of the previous round
	worsening int      // consecutive rounds with ∇L > ε
	prev      string   // previous directive; init before the first
	replans   int      // PlanDirectives issued
	targets   set      // "<tool>:<target>" of every failing call of every round
	latest    []string // the targets of the most recent round that had any
	blocked   set      // targets the issued PlanDirectives blocked; never shrinks
	tools     set      // tools blocked by earlier directives
	intent    string   // the task's intent, as last given
	pending   *pendingRound
}

// tracker holds the state of every open task. A task is closed, and forgotten, when it
// reaches a terminal directive; a later message with the same task_id starts afresh.
type tracker struct {
	tasks map[string]*taskState
}

func newTracker() *tracker { return &tracker{tasks: map[string]*taskState{}} }

// get returns the state of taskID, opening it when unknown.
func (t *tracker) get(taskID string) *taskState {
	st, ok := t.tasks[taskID]
	if !ok {
		st = &taskState{prev: contract.DirectiveInit}
		t.tasks[taskID] = st
	}
	return st
}

// open lists the task_ids that have state, sorted.
func (t *tracker) open() []string {
	ids := make([]string, 0, len(t.tasks))
	for id := range t.tasks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// signals computes a round's signals from its D and P, the elapsed time and the task's
// state, without changing the state.
func (st *taskState) signals(p Params, d, pp float64, elapsedMS int64, allMatched bool) Signals {
	omega := Omega(p, st.replans, elapsedMS)
	l := Loss(p, d, pp, omega)
	grad := Gradient(l, st.lPrev, st.rounds == 0)
	worsening := 0
	if grad > p.Epsilon {
		worsening = st.worsening + 1
	}
	return Signals{
		Round:      st.rounds + 1,
		D:          d,
		P:          pp,
		Omega:      omega,
		BetaEff:    BetaEff(p, omega),
		L:          l,
		Grad:       grad,
		Worsening:  worsening,
		Replans:    st.replans,
		AllMatched: allMatched,
	}
}

// advance records a decided round.
func (st *taskState) advance(s Signals, directive string) {
	st.rounds = s.Round
	st.lPrev = s.L
	st.worsening = s.Worsening
	st.prev = directive
	if !contract.IsTerminal(directive) {
		st.replans++
	}
}

// remember adds a round's failing calls and what its directive blocked.
func (st *taskState) remember(rc roundCalls, b blocked) {
	st.targets.add(rc.targets...)
	if len(rc.targets) > 0 {
		st.latest = slices.Clone(rc.targets) // the directive holds rc.targets too
	}
	st.tools.add(b.tools...)
	st.blocked.add(b.targets...)
}

// set is a string set whose listing is sorted.
type set map[string]struct{}

func (s *set) add(items ...string) {
	if *s == nil {
		*s = set{}
	}
	for _, it := range items {
		(*s)[it] = struct{}{}
	}
}

func (s set) sorted() []string {
	out := make([]string, 0, len(s))
	for it := range s {
		out = append(out, it)
	}
	slices.Sort(out)
	return out
}

// sortedUnique sorts items and drops duplicates and empty strings, in items' own memory
// (callers pass slices they own); never nil.
func sortedUnique(items []string) []string {
	out := items[:0]
	for _, it := range items {
		if it != "" {
			out = append(out, it)
		}
	}
	if out == nil {
		return []string{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
