// Package scripted plays designed GGS scenarios: per round, the report R4b would have
// sent (a ReplanRequest or an OutcomeSummary), written by hand to drive the Goal
// Gradient Solver through a path of interest.
//
// Its Plant is a test double for the control plane: it makes no plan, runs no tool and
// asks no model. Round N returns the scenario's N-th report whatever the directive, and
// checks the directive against the scenario's expectation when one is written. It must
// never stand in for the role pipeline in a live run.
package scripted
