// Package scenario plays designed signal scenarios: files of per-iteration gate signals
// written by hand to drive a rule set through a path of interest (a promotion, a
// give-up, a refine loop) with no model at all.
//
// Its Effector is a test double for the control plane. It makes no claim about
// capability: Mint returns an empty construct that only names the objective, and Gate
// returns the next round of the file whatever the construct; as an Observer it serves
// the file's seed verdict before the first construct and, after that, the verdict the
// gate gave the current construct. It must never be used to stand in for a model's
// output in a live run.
//
// Run also returns a Report, the seed's sidecars of a play: scorecard.json (the final
// verdict per topic) and candidates.json (the admitted constructs), written with sorted
// keys and no clock reading so the same play always gives the same bytes.
package scenario
