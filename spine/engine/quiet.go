package engine

// decideQuiet is Decide's cycle when nobody reads the events and the cycle is one seen
// before: the lookup reached leaf, whose agenda the leaf cache holds; no true rule is
// refracted; and the first rule's then only sets the objective, which is written in
// place. Such a cycle needs no evaluation list, no ordering and no bodies, so it is done
// here in one pass: the seqs it takes and the result LastCycle builds are step's, and
// s.cyc holds what it decided. It reports false, having changed nothing, when the
// cycle needs the general path.
func (s *Session) decideQuiet(leaf int) bool {
	c := &s.leaves
	if leaf < 0 || c.m != s.rs.Matcher() {
		return false
	}
	e := c.entries[leaf]
	if e == nil || e.agenda.names == nil || !s.fresh(e) {
		return false
	}
	first := e.agenda.first
	if first != nil && !(first.ObjectiveOnly() && s.wm.objectiveWritable()) {
		return false
	}
	s.cycle++
	s.evals, s.sharedEvals = e.evals, true
	cy := &s.cyc
	cy.agenda, cy.errs, cy.terminalOnly, cy.stage, cy.built = &e.agenda, 0, false, s.stage(), false
	if first == nil {
		s.tracer.skip() // the conflict set's event
		cy.objective = s.Objective()
		return true
	}
	s.record(first)
	t := &first.Then
	s.wm.objectiveInPlace(t.Objective, first.Name)
	s.tracer.own += 3 // the conflict set's, the firing's and the objective's events
	s.requested = t.Transition
	cy.objective = t.Objective
	return true
}
