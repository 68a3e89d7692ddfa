// Package report turns a recorded spine trace into one self-contained HTML page (Build,
// Render): the round-by-round pipeline, the loss plot, the rule timeline, every
// exchange and the Auditor's findings. What the trace holds it reads through runlog
// (payloads, exchanges, GGS's rounds and thresholds); it imports no effector.
//
// It only reads: numbers are the recorded ones, never recomputed, and nothing is run
// again. It does not read files or decide what a bad trace is; callers hand it a trace
// spine's reader accepted. Everything a trace carries is untrusted text (model replies,
// tool output) and reaches the page only through html/template's escaping; the page
// loads nothing from outside itself.
package report
