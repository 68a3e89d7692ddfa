// Package trace owns the layout of a spine trace: the JSONL file every run writes and
// every reader (replay, trace show, what-if, the Auditor, the exporters) reads. It
// declares the envelope of a line (seq, t, kind, h), one exported body type per event
// kind, the one writer (sinks and the hash chain that links every line) and the one
// decoder (capped line length, a torn last line, the header check, chain
// verification), which returns each event with its body decoded by kind. A trace may be
// signed (sign.go): the header names an ed25519 key's fingerprint, a last chained
// "signature" line signs the chain's head, and File.VerifySignature checks it against
// trusted keys.
//
// No other package declares the shape of an event: a compiled rule carries its then as
// this package's Then, which its rule_fired event records. The package must not import
// the engine or the rule set (spine/engine, spine/ruleset): the engine writes through
// it, ruleset declares a rule's then with it, and readers that need no engine read
// through it alone. It does not interpret a run (rules, loss, findings); its readers do.
//
// Bytes are the contract: every body type encodes, field for field, exactly what the
// engine has always written, so recorded traces, their hash chains and byte-for-byte
// replay do not depend on which side wrote a line.
package trace
