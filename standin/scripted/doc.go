// Package scripted holds the project's scripted test doubles for the control plane. It
// plays designed GGS scenarios: per round, the report R4b would have sent (a
// ReplanRequest or an OutcomeSummary), written by hand to drive the Goal Gradient Solver
// through a path of interest. And its Chat replays a fixed script of replies for the
// model-calling roles, keyed by role and turn, which `spine demo --pipeline` runs through
// the whole pipeline (PipelineDemo) with the real tools, memory and Auditor.
//
// Neither is a model, and neither simulates capability. The Plant makes no plan, runs no
// tool and asks no model: round N returns the scenario's N-th report whatever the
// directive, and checks the directive against the scenario's expectation when one is
// written. The Chat generates nothing: it answers each role's n-th request with the n-th
// scripted reply, after checking the request holds what the script assumed. They must
// never stand in for a model or the role pipeline where a task is meant to be done; a
// run against them shows what the control plane does with given replies.
//
// AnyTask is a stand-in for a model in every role, for `spine worker --demo`: it answers
// any task by fixed rules over each request (list the files, read them, write a report,
// judge it on the tools' output), names itself in the model names and the trace header,
// and understands nothing. Its replies depend on the request alone, never on how many
// came before, so a resumed or replayed run gets the same ones.
//
// It also holds what the demo commands play: PlayDesigned plays a designed scenario of
// either kind (this package's, or package scenario's signal scenarios with their
// sidecars) for `spine play` and `spine demo`; PipelineDemo.Run is `spine demo
// --pipeline`'s run in a temporary work dir, with its self-check (Wrong). Production code
// imports it only where a command is explicitly a demo.
package scripted
