package ggs

import "github.com/agentspine/spine/contract"

// DecideHandCoded reads the seed's decision table as a plain switch: a verified
// all-matched result is accepted; a fault that retrying cannot cure, Law 2 and then the
// budget abandon; a fault with retries left runs the round again; a close enough result
// succeeds; with the opt-in replan cap on, a round that would replan once more than
// replan_cap abandons; otherwise |∇L| against ε and P against ρ pick one of the four
// action states. It is the oracle that the rules of rules/ggs.yaml are tested against
// and the floor their benchmark is measured against, so it lives in a test file: the
// Solver never calls it and no binary carries it.
func DecideHandCoded(p Params, s Signals) string {
	switch {
	case s.Round == 0:
		return ObjectivePlan
	case s.AllMatched:
		return contract.DirectiveAccept
	case s.Fault == FaultEnds:
		return contract.DirectiveAbandon
	case s.Worsening >= p.Law2Kill:
		return contract.DirectiveAbandon
	case s.Omega >= p.Theta:
		return contract.DirectiveAbandon
	case s.Fault == FaultRetry:
		return contract.DirectiveRetry
	case s.D <= p.Delta:
		return contract.DirectiveSuccess
	case p.CapReached(s.Replans):
		return contract.DirectiveAbandon
	}
	stuck := abs(s.Grad) < p.Epsilon
	logical := s.P > p.Rho
	switch {
	case stuck && logical:
		return contract.DirectiveBreakSymmetry
	case stuck:
		return contract.DirectiveChangePath
	case logical:
		return contract.DirectiveChangeApproach
	}
	return contract.DirectiveRefine
}
