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
// It must not call an effector, read a clock or draw an id: everything a replay writes
// comes from the recording or from the engine's deterministic core. It imports the
// engine; the engine never imports it.
package replay
