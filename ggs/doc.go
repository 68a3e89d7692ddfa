// Package ggs is the Goal Gradient Solver (R7), the controller of the medium loop.
//
// It owns the arithmetic of a round — the intent-result distance D, the process
// implausibility P, the resource cost Ω, the loss L and its finite-difference gradient ∇L —
// the per-task memory across rounds (previous loss, Law 2 worsening counter, previous
// directive, replans issued, accumulated blocked targets), and the shaping of the outgoing
// PlanDirective or FinalResult (blocked tools and targets, failure class, rationale).
//
// It does not own the decision: which macro-state a round lands in is chosen by the rules
// of rules/ggs.yaml, evaluated through a spine session, and every threshold and weight is a
// param of that file. The plain-switch reading of the decision table (DecideHandCoded, in
// handcoded_test.go) is compiled into the tests only, as their oracle and the benchmark's
// floor.
//
// Inside the FSM, Loop talks to the roles only by post (bus.Post): it posts the
// PlanDirective to R2, takes R4b's report from R7's mailbox (a round that leaves mail
// unread is an error), posts the FinalResult to the user, and posts each Megram to R5,
// where memory's desk hands what arrived to the MemoryWriter.
//
// As a JSONL filter (spine ggs), Filter.Run reads reports from a reader and writes
// decisions to a writer its caller gives. Message is R4b's report for the filter and the
// Loop alike; DecodeMessage reads a line in one pass without reflection and
// AppendOutput writes one the same way, each held to encoding/json's reading and
// writing, byte for byte and error for error.
//
// It must not open files or connections, read the wall clock or use a global random source: the clock
// and ID source are injected, memory writes go through the MemoryWriter interface, and
// output never depends on map iteration order.
package ggs
