package analysis

import (
	"fmt"
	"sort"

	"github.com/agentspine/spine/spine/ruleset"
)

// The never-fires analysis decides, rule by rule, whether a rule can fire, without building
// the partition: it searches the signal space for one input on which the rule is true and
// no rule of a higher salience group is. Its answers are the partition's answers (the tests
// compare the two on every shipped and random rule set); its cost is bounded by a budget of
// steps, so that a rule file of any size is checked in bounded time with the same output
// on every run.
//
// Two things keep it well below quadratic on large files:
//
//   - The search for rule i starts where every fact kind i does not read is absent, when
//     each rule that reads that kind is false without it ("regular" kinds). Making those
//     kinds absent can only turn higher rules false and leaves i's condition alone, so i
//     fires somewhere exactly when it fires there.
//   - So a higher rule that needs a regular kind i does not read is false throughout the
//     search and is never looked at: rules are indexed by one kind they need, and rule i
//     is compared only with the rules indexed under the kinds it reads and with those that
//     need no regular kind.
//
// The search narrows the region in place and undoes each narrowing on the way back, so
// its memory is the region and the recursion, whatever the number of rules.

// DefaultBudget is the number of steps the never-fires analysis of Lint may take when
// Options.Budget is 0: a few seconds of work at most.
const DefaultBudget = 200_000_000

// RuleUnchecked is the status of a rule the never-fires analysis did not reach before its
// budget ran out.
const RuleUnchecked = "not checked"

// WarnStopped is the code of the warning that the never-fires analysis stopped.
const WarnStopped = "analysis-stopped"

// Stopped says that the never-fires analysis ran out of budget.
type Stopped struct {
	Steps     int // steps taken, just over the budget
	Budget    int
	Unchecked int    // rules whose status is RuleUnchecked
	First     string // the first of them in file order
	Line      int
}

// Lint reports what `spine check` reports without --analyze: params no rule reads, parts of
// conditions the analysis cannot model, and rules that can never fire — shadowed or
// unsatisfiable. It does not partition the signal space: the report has no regions and
// its rules have no wins. When the budget (Options.Budget) runs out, the remaining rules
// are RuleUnchecked, Report.Stopped says so and a WarnStopped warning comes last.
func Lint(rs *ruleset.RuleSet, opt Options) (*Report, error) {
	a, err := prepare(rs, opt)
	if err != nil {
		return nil, err
	}
	a.finish()
	budget := opt.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	rep := &Report{File: rs.Path()}
	if opt.Domains != nil {
		rep.DomainsFile = opt.Domains.File
	}
	nf := a.newNeverFires(budget)
	rep.Rules = nf.run()
	a.markOff(rep.Rules)
	rep.Warnings = a.warnings(rep, opt.HostParams, opt.Domains != nil)
	if nf.stopped {
		st := &Stopped{Steps: nf.steps(), Budget: budget}
		for _, rr := range rep.Rules {
			if rr.Status == RuleUnchecked {
				if st.Unchecked == 0 {
					st.First, st.Line = rr.Name, rr.Line
				}
				st.Unchecked++
			}
		}
		rep.Stopped = st
		rep.Warnings = append(rep.Warnings, Warning{File: rs.Path(), Line: st.Line, Code: WarnStopped, Msg: st.message(len(rep.Rules))})
	}
	return rep, nil
}

func (s *Stopped) message(rules int) string {
	return fmt.Sprintf("never-fires analysis stopped after %s steps (budget %s); %s of %s rules not checked, from %q on",
		thousands(s.Steps), thousands(s.Budget), thousands(s.Unchecked), thousands(rules), s.First)
}

// thousands writes n with commas: 12,345,678.
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

// neverFires holds the state of one run of the analysis over a rule set.
type neverFires struct {
	a       *analyzer
	budget  int // < 0: none
	extra   int // steps beyond the pieces evalAtom counts: splits and rules listed
	stopped bool

	pos     []int   // rule index → agenda position
	group   []int   // rule index → agenda position of the first rule of its salience group
	pres    [][]int // rule index → presence variables its condition reads
	regular []bool  // presence variable → may be absent, and every rule reading it needs it
	needs   [][]int // rule index → regular presence variables its condition needs
	global  []int   // rules that need no regular kind, in agenda order
	bucket  map[int][]int

	full    region         // the whole space; narrowed in place and restored
	sparse  region         // every regular kind absent; kinds are opened per rule
	absent  map[int][]bool // regular presence variable → its pieces limited to absent
	present [][]bool       // presence variable → which of its pieces is "present"
	open    []bool         // presence variable → read by the rule being checked
}

func (a *analyzer) newNeverFires(budget int) *neverFires {
	n := len(a.rules)
	nf := &neverFires{a: a, budget: budget, pos: make([]int, n), group: make([]int, n),
		pres: make([][]int, n), needs: make([][]int, n),
		bucket: map[int][]int{}, absent: map[int][]bool{}, regular: make([]bool, len(a.sp.vars)), open: make([]bool, len(a.sp.vars))}
	for k, i := range a.order {
		nf.pos[i] = k
		nf.group[i] = k
		if k > 0 && a.sameGroup(a.order[k-1], i) {
			nf.group[i] = nf.group[a.order[k-1]]
		}
	}
	for i := range a.rules {
		nf.pres[i] = a.reads(a.rules[i].f)
	}
	nf.full = a.sp.fullRegion()
	a.sp.spans = map[*bool]span{}
	for _, row := range nf.full {
		if len(row) >= minSpan {
			a.sp.spans[&row[0]] = span{lo: 0, hi: len(row) - 1, dense: true}
		}
	}
	nf.present = make([][]bool, len(a.sp.vars))
	for p, v := range a.sp.vars {
		if v.form == varPresence {
			nf.present[p] = onlyPresence(v.pieces, true)
		}
	}
	return nf
}

// reads lists the presence variables a formula reads, sorted.
func (a *analyzer) reads(f formula) []int {
	seen := map[int]bool{}
	eachAtom(f, func(x fAtom) {
		at := a.sp.atoms[x.a]
		v := a.sp.vars[at.v]
		if v.form == varPresence {
			seen[at.v] = true
		}
		for _, p := range v.needs {
			seen[p] = true
		}
	})
	out := make([]int, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// steps is the work done so far: pieces looked at, pieces cut, rules listed.
func (nf *neverFires) steps() int { return nf.a.sp.steps + nf.extra }

// charge counts n steps and reports whether the budget is spent.
func (nf *neverFires) charge(n int) bool {
	nf.extra += n
	if nf.budget >= 0 && nf.steps() > nf.budget {
		nf.stopped = true
	}
	return nf.stopped
}

// eval evaluates rule i's condition on r; the evaluation is one step more than the
// pieces it looks at.
func (nf *neverFires) eval(i int, r region) oset {
	v := nf.a.sp.eval(nf.a.rules[i].f, r)
	nf.charge(1)
	return v
}

// run decides every rule in file order and returns their reports.
func (nf *neverFires) run() []RuleReport {
	a := nf.a
	out := make([]RuleReport, len(a.rules))
	for i, ri := range a.rules {
		out[i] = RuleReport{Name: ri.r.Name, Line: ri.r.Line, Salience: ri.r.Salience, Specificity: ri.r.Specificity,
			Objective: ri.r.Then.Objective, Opaque: ri.opaque, Status: RuleUnchecked}
	}
	nf.index()
	for i := range a.rules {
		if nf.stopped {
			break
		}
		status, by := nf.decide(i)
		if nf.stopped {
			break
		}
		out[i].Status, out[i].ShadowedBy = status, by
	}
	return out
}

// index finds the regular kinds, what each rule needs, and files the rules by kind.
func (nf *neverFires) index() {
	sp := nf.a.sp
	needed := make([][]int, len(nf.a.rules)) // presence variables each rule is false without
	readers := make([]int, len(sp.vars))
	needers := make([]int, len(sp.vars))
	for i := range nf.a.rules {
		for _, p := range nf.pres[i] {
			readers[p]++
			if len(sp.vars[p].pieces) < 2 {
				continue // always present
			}
			saved := nf.full[p]
			nf.full[p] = onlyPresence(sp.vars[p].pieces, false)
			if !nf.eval(i, nf.full).has(oT) {
				needed[i] = append(needed[i], p)
				needers[p]++
			}
			nf.full[p] = saved
		}
	}
	nf.sparse = make(region, len(nf.full))
	copy(nf.sparse, nf.full)
	for p, v := range sp.vars {
		if v.form == varPresence && len(v.pieces) == 2 && readers[p] > 0 && needers[p] == readers[p] {
			nf.regular[p] = true
			nf.absent[p] = onlyPresence(v.pieces, false)
			nf.sparse[p] = nf.absent[p]
		}
	}
	for _, i := range nf.a.order {
		for _, p := range needed[i] {
			if nf.regular[p] {
				nf.needs[i] = append(nf.needs[i], p)
			}
		}
		if len(nf.needs[i]) == 0 {
			nf.global = append(nf.global, i)
		} else {
			key := nf.needs[i][0]
			nf.bucket[key] = append(nf.bucket[key], i)
		}
	}
}

// onlyPresence is the pieces of a presence variable limited to present or to absent.
func onlyPresence(pieces []piece, present bool) []bool {
	out := make([]bool, len(pieces))
	for j, p := range pieces {
		out[j] = p.rep.(bool) == present
	}
	return out
}

// decide returns rule i's status, and for a shadowed rule the rules that fire first.
func (nf *neverFires) decide(i int) (string, []string) {
	for _, p := range nf.pres[i] {
		nf.open[p] = true
		nf.sparse[p] = nf.full[p]
	}
	s := &search{nf: nf, i: i, r: nf.sparse, cand: nf.queue(i)}
	s.fires(0)
	for _, p := range nf.pres[i] {
		nf.open[p] = false
		if nf.regular[p] {
			nf.sparse[p] = nf.absent[p]
		}
	}
	switch {
	case nf.stopped:
		return RuleUnchecked, nil
	case s.found:
		return RuleFires, nil
	case s.may:
		return RuleUnknown, nil
	}
	switch nf.satisfiable(i, nf.full) {
	case oF:
		return RuleUnsatisfiable, nil
	case oT:
		c := &search{nf: nf, i: i, r: nf.full, covering: map[string]bool{}}
		c.cover(0)
		by := make([]string, 0, len(c.covering))
		for n := range c.covering {
			by = append(by, n)
		}
		sort.Slice(by, func(x, y int) bool { return nf.pos[nf.a.index[by[x]]] < nf.pos[nf.a.index[by[y]]] })
		return RuleShadowed, by
	}
	return RuleUnknown, nil
}

// satisfiable is analyzer.satisfiable narrowing r in place and counting steps.
func (nf *neverFires) satisfiable(i int, r region) oset {
	if nf.stopped {
		return oT | oF
	}
	v := nf.eval(i, r)
	if v == oT {
		return oT
	}
	if !v.has(oT) {
		return oF
	}
	at := nf.a.sp.findSplit(nf.a.rules[i].f, r)
	if at < 0 {
		return oT | oF
	}
	out := oF
	nf.split(r, at, func() bool {
		switch nf.satisfiable(i, r) {
		case oT:
			out = oT
			return true
		case oT | oF:
			out = oT | oF
		}
		return nf.stopped
	})
	return out
}

// split narrows r by atom ai as space.split does, in place: visit sees the true half,
// then the false half (an empty half is skipped), and r is restored after each. A visit
// returning true ends the split, which then returns true.
func (nf *neverFires) split(r region, ai int, visit func() bool) bool {
	sp := nf.a.sp
	a := sp.atoms[ai]
	v, keep := a.v, sp.truth(a)
	for _, p := range sp.vars[a.v].needs {
		if absent, present := sp.presence(r, p); absent && present {
			v, keep = p, nf.present[p]
			break
		}
	}
	saved := r[v]
	defer func() { r[v] = saved }()
	// The allowed pieces of the row: all of it, or what its span says.
	lo, hi, idx := 0, len(saved)-1, []int32(nil)
	if sn, ok := sp.spans[&saved[0]]; ok && len(saved) >= minSpan {
		lo, hi, idx = sn.lo, sn.hi, sn.idx
	}
	for _, want := range []bool{true, false} {
		half := make([]bool, len(saved))
		h := span{lo: -1}
		n := 0
		take := func(j int) {
			if saved[j] && keep[j] == want {
				half[j] = true
				if h.lo < 0 {
					h.lo = j
				}
				h.hi = j
				n++
			}
		}
		if idx != nil {
			for _, j := range idx {
				take(int(j))
			}
			nf.charge(len(idx) + len(saved)/64)
		} else {
			for j := lo; j <= hi; j++ {
				take(j)
			}
			nf.charge(hi - lo + 1 + len(saved)/64)
		}
		if n == 0 {
			continue
		}
		r[v] = half
		if len(half) >= minSpan {
			if n*8 <= h.hi-h.lo+1 { // sparse: list the pieces
				h.idx = make([]int32, 0, n)
				for j := h.lo; j <= h.hi; j++ {
					if half[j] {
						h.idx = append(h.idx, int32(j))
					}
				}
			}
			h.dense = n == h.hi-h.lo+1
			sp.spans[&half[0]] = h
		}
		stop := visit()
		if len(half) >= minSpan {
			delete(sp.spans, &half[0])
		}
		if stop {
			return true
		}
	}
	return false
}

// queue lists lazily, in agenda order, the rules of higher salience groups than rule
// i's that the search for i must look at.
func (nf *neverFires) queue(i int) *ruleQueue {
	c := &ruleQueue{nf: nf, limit: nf.group[i]}
	c.lists = append(c.lists, nf.global)
	for _, p := range nf.pres[i] {
		if l := nf.bucket[p]; len(l) > 0 {
			c.lists = append(c.lists, l)
		}
	}
	c.heads = make([]int, len(c.lists))
	return c
}

type ruleQueue struct {
	nf    *neverFires
	lists [][]int // rules in agenda order
	heads []int
	limit int // agenda position of the first rule not to list
	out   []int
}

// at returns the k-th candidate, merging the lists as far as needed.
func (c *ruleQueue) at(k int) (int, bool) {
	for len(c.out) <= k {
		best := -1
		for l, list := range c.lists {
			if h := c.heads[l]; h < len(list) && c.nf.pos[list[h]] < c.limit &&
				(best < 0 || c.nf.pos[list[h]] < c.nf.pos[c.lists[best][c.heads[best]]]) {
				best = l
			}
		}
		if best < 0 || c.nf.charge(1) {
			return -1, false
		}
		j := c.lists[best][c.heads[best]]
		c.heads[best]++
		if c.nf.needsOnlyOpen(j) {
			c.out = append(c.out, j)
		}
	}
	return c.out[k], true
}

// needsOnlyOpen reports whether every regular kind rule j needs is read by the rule being
// checked; otherwise j is false throughout the search.
func (nf *neverFires) needsOnlyOpen(j int) bool {
	for _, p := range nf.needs[j] {
		if !nf.open[p] {
			return false
		}
	}
	return true
}

// search looks for an input where rule i fires (fires) or collects the rules that fire
// first where its condition holds (cover), on the region r it narrows in place.
type search struct {
	nf       *neverFires
	i        int
	r        region
	cand     *ruleQueue
	found    bool // an input where i fires
	may      bool // an input where i's outcome depends on parts the analysis cannot model
	covering map[string]bool
}

// fires searches from the k-th candidate on; it returns true to end the search.
func (s *search) fires(k int) bool {
	nf, sp := s.nf, s.nf.a.sp
	if nf.stopped {
		return true
	}
	vi := nf.eval(s.i, s.r)
	if !vi.has(oT) {
		return false
	}
	// Narrowing to where i's condition is true first keeps the regions small; where it
	// is split does not change whether it fires.
	if vi != oT {
		if at := sp.findSplit(nf.a.rules[s.i].f, s.r); at >= 0 {
			return nf.split(s.r, at, func() bool { return s.fires(k) })
		}
	}
	for ; ; k++ {
		j, ok := s.cand.at(k)
		if !ok {
			break
		}
		v := nf.eval(j, s.r)
		if v == oT {
			return nf.stopped // j fires first everywhere here
		}
		if !v.has(oT) {
			continue
		}
		if at := sp.findSplit(nf.a.rules[j].f, s.r); at >= 0 {
			return nf.split(s.r, at, func() bool { return s.fires(k) })
		}
		// j may fire first here or not: the analysis cannot tell, so i may still.
	}
	if nf.stopped {
		return true
	}
	if vi == oT {
		s.found = true
		return true
	}
	s.may = true // i's condition is undecided only in parts the analysis cannot model
	return false
}

// cover follows the partition's own splitting from agenda position k on, leaving out the
// parts where rule i's condition cannot be true, and collects the winners of the parts
// where it can.
func (s *search) cover(k int) bool {
	nf, a := s.nf, s.nf.a
	if nf.stopped {
		return true
	}
	if !nf.eval(s.i, s.r).has(oT) {
		return false
	}
	for ; k < nf.group[s.i]; k++ {
		j := a.order[k]
		v := nf.eval(j, s.r)
		if v == oT {
			return s.ties(k)
		}
		if !v.has(oT) {
			continue
		}
		if at := a.sp.findSplit(a.rules[j].f, s.r); at >= 0 {
			return nf.split(s.r, at, func() bool { return s.cover(k) })
		}
	}
	return nf.stopped
}

// ties records the rule at agenda position k, which is true here, and the rules of its
// group that are true with it, splitting as the partition does where one is undecided.
func (s *search) ties(k int) bool {
	nf, a := s.nf, s.nf.a
	tied := []int{a.order[k]}
	for m := k + 1; m < len(a.order) && a.sameGroup(a.order[k], a.order[m]); m++ {
		rj := a.order[m]
		w := nf.eval(rj, s.r)
		switch {
		case w == oT:
			tied = append(tied, rj)
		case !w.has(oT):
		default:
			if at := a.sp.findSplit(a.rules[rj].f, s.r); at >= 0 {
				return nf.split(s.r, at, func() bool { return s.cover(k) })
			}
		}
	}
	for _, j := range tied {
		s.covering[a.rules[j].r.Name] = true
	}
	return nf.stopped
}
