// Package taskrun runs one task live: it wires a loaded configuration to the model
// client, the sandboxed tools, the memory calibrator, the live Auditor and the spine
// engine, and holds the run's guarantees — the spine's own files stay outside the work
// dir and out of the sandbox's view, secrets are scrubbed before anything is journalled
// or sent to a model, the trace exists before the first model call and ends with halt,
// and every task ends in a FinalResult decided by a rule, whatever failed.
//
// A caller (cmd/spine's `spine run`, a test, a worker) does this:
//
//  1. Load the model configuration (llm.LoadConfig) and report its errors as usage errors.
//  2. Optionally load the rule set (LoadRules) to build a display that names its rules.
//  3. Fill a Config: the task, the work dir, the configuration, and the hooks a display
//     or a person at a terminal needs (OnMessage, OnStatus, Confirmer, Clarify, Warn).
//  4. Call RunTask. An error with no Result.TracePath is a refusal before any endpoint
//     was contacted; otherwise the trace holds the whole run, and the error is the
//     run's own (a cancelled context ends with halt … canceled).
//  5. Show Result: the FinalResult and graceful failure, the Auditor's findings, the
//     Dreamer's pass, and where the trace is.
//
// It must not print: what a person sees is the caller's, through the hooks.
package taskrun
