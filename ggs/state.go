package ggs

import (
	"slices"
	"strings"

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
	lastTools []string // tools the latest PlanDirective blocked, for a retry
	d, p      float64  // D and P of the latest round judged on its merits
	faults    int      // consecutive rounds cut short by a fault of the machinery
	judged    int      // rounds judged on their merits (not only faulted)
	intent    string   // the task's intent, as last given
	budgetMS  float64  // the task's own time budget from its deadline, 0 for none
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

// signals computes a round's signals from its message and the task's state, without
// changing the state. A round that only faulted says nothing new about the task: its D
// and P are the last judged round's (1 and 0 before any), ∇L is 0 and the worsening
// count stands; Ω still grows with the time spent.
func (st *taskState) signals(p Params, in message) Signals {
	p = st.paramsFor(p)
	d, pp := in.d, in.p
	if in.faultOnly {
		d, pp = st.d, st.p
		if st.rounds == 0 || st.judged == 0 {
			d, pp = 1, 0
		}
	}
	omega := Omega(p, st.replans, in.elapsedMS)
	l := Loss(p, d, pp, omega)
	grad := Gradient(l, st.lPrev, st.judged == 0)
	worsening := 0
	if grad > p.Epsilon {
		worsening = st.worsening + 1
	}
	faults := 0
	if in.fault != nil {
		faults = st.faults + 1
	}
	if in.faultOnly {
		grad, worsening = 0, st.worsening
	}
	fatal := in.fault != nil && in.fault.Fatal()
	faultRole, faultKind := "", ""
	if in.fault != nil {
		faultRole, faultKind = in.fault.Role, in.fault.Kind
	}
	verdict := FaultNone
	switch {
	case in.fault == nil:
	case fatal || faults > p.MaxFaultRetries:
		verdict = FaultEnds
	case in.faultOnly:
		verdict = FaultRetry
	}
	return Signals{
		Round:       st.rounds + 1,
		D:           d,
		P:           pp,
		Omega:       omega,
		BetaEff:     BetaEff(p, omega),
		L:           l,
		Grad:        grad,
		Worsening:   worsening,
		Replans:     st.replans,
		AllMatched:  in.allMatched,
		Fault:       verdict,
		FaultRounds: faults,
		FaultOnly:   in.faultOnly,
		FaultFatal:  fatal,
		FaultRole:   faultRole,
		FaultKind:   faultKind,
	}
}

// advance records a decided round.
func (st *taskState) advance(s Signals, directive string) {
	st.rounds = s.Round
	st.lPrev = s.L
	st.worsening = s.Worsening
	st.prev = directive
	st.faults = s.FaultRounds
	if !s.FaultOnly {
		st.d, st.p = s.D, s.P
		st.judged++
	}
	if !contract.IsTerminal(directive) {
		st.replans++
	}
}

// advanceRetry records a round that a fault cut short and that runs again: it is not a
// replan, and the loss it carried is not a measurement, so ∇L of the next round is taken
// against the last round judged on its merits.
func (st *taskState) advanceRetry(s Signals) {
	st.rounds = s.Round
	st.prev = contract.DirectiveRetry
	st.faults = s.FaultRounds
}

// remember adds a round's failing calls and what its directive blocked. The round's
// strings may live in its input line (Filter.Run's shared mode): what the state keeps is
// the sets' own copies.
func (st *taskState) remember(rc roundCalls, b blocked) {
	st.targets.add(rc.targets...)
	if len(rc.targets) > 0 {
		st.latest = st.targets.owned(st.latest[:0], rc.targets)
	}
	st.tools.add(b.tools...)
	st.lastTools = st.tools.owned(st.lastTools[:0], b.tools)
	st.blocked.add(b.targets...)
}

// set is a string set whose listing is sorted. Its items are copied into one string of
// its own, text, and listed as spans of it in order: an open task's sets are then a few
// objects with no pointers in them for the collector to follow, however many items.
type set struct {
	text  string
	items []textSpan // sorted by their text
}

// textSpan is an item of a set: text[lo:hi].
type textSpan struct{ lo, hi int32 }

func (s *set) at(k int) string { return s.text[s.items[k].lo:s.items[k].hi] }

// find is the position of v in the set, or where it would go.
func (s *set) find(v string) (int, bool) {
	return slices.BinarySearchFunc(s.items, v, func(sp textSpan, v string) int {
		return strings.Compare(s.text[sp.lo:sp.hi], v)
	})
}

// add inserts the items not yet in the set: their text is appended to a new text (one
// allocation for the call), then their spans put in order.
func (s *set) add(items ...string) {
	old, grow := len(s.text), false
	var b strings.Builder
	for _, it := range items {
		if _, found := s.find(it); found {
			continue
		}
		if !grow {
			grow = true
			b.Grow(old + 8*len(items))
			b.WriteString(s.text)
		}
		b.WriteString(it)
	}
	if !grow {
		return
	}
	s.text = b.String()
	at := old // where the next new item's text is
	for _, it := range items {
		i, found := s.find(it)
		if found {
			if int(s.items[i].lo) >= old { // added by this call: a repeat of an item, appended too
				at += len(it)
			}
			continue
		}
		s.items = slices.Insert(s.items, i, textSpan{int32(at), int32(at + len(it))})
		at += len(it)
	}
}

// owned appends to dst the set's copy of each of items, which are all in the set.
func (s *set) owned(dst, items []string) []string {
	for _, it := range items {
		i, _ := s.find(it)
		dst = append(dst, s.at(i))
	}
	return dst
}

// sorted lists the set in memory the caller owns.
func (s *set) sorted() []string {
	out := make([]string, len(s.items))
	for k := range s.items {
		out[k] = s.at(k)
	}
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
