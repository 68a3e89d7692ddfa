// Package replay re-runs a recorded trace through the engine and compares traces. It
// owns the recorded side of the engine's seam: Exchanger serves a recording's clock
// readings, run id, effector results, reloads and epilogue to an engine.Engine, which
// takes the same path as in a live run, and reports a run that departs from the
// recording (DivergenceError, ErrRecordingEnded). It also finds the rules a recording
// was made with (RecordedRules: the header's own, else a shipped or nearby rule file
// with the recorded hash), compares two traces field by field (CompareTraces) and
// checks a recorded trace whole (Check: chain, signature, replay and comparison, one
// Outcome a test or a host shows as it likes).
//
// It also continues a recording (a resume, a fork): Continue serves the recording up to
// the first effector call it does not hold whole, or up to a fork's cycle boundary
// (Boundaries, ForkPoint), where it writes a resumed line and hands over to the live
// exchanger the host's engine was built with; with Rerun it re-runs the recorded calls,
// serving their nested exchanges (Exchanges) so that a stateful effector rebuilds its
// state. A recorded resumed line replays like any other.
//
// It must not call an effector, read a clock or draw an id itself: everything a replay
// writes comes from the recording or from the engine's deterministic core, and what a
// continued run does live after the switch goes through the host's live exchanger. It
// imports the engine; the engine never imports it.
package replay
