package audit

import (
	"errors"
	"fmt"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// TraceResult is the audit of one recorded trace.
type TraceResult struct {
	Messages int                    // bus messages found in the trace (model calls included)
	Findings []contract.AuditReport // ordered by seq then kind; evidence is trace seqs
	Torn     *trace.TornLine        // set when the trace ends in a torn line (AuditFile)
	// Incomplete says why the trace is an incomplete recording, torn or cut before its
	// halt alike (trace.File.Incomplete); "" when it is whole (AuditFile).
	Incomplete string
	Chain      trace.ChainReport // the trace's hash chain as verified (AuditFile)
	// Broken is the first line that breaks the hash chain (AuditFile), nil when the
	// chain holds or the trace is unchained. Findings on the lines from there on are on
	// what the trace says now, which is not what the run wrote.
	Broken *trace.ChainError
}

// AuditTrace runs a fresh Auditor over the messages recorded in a trace that was read
// whole (bus.FromTrace), and ends the stream. name is used in errors. A message event
// that cannot be read is an error naming its line, returned with the findings on the
// messages before it; the stream is then not ended, since the lines after the bad one
// may hold what would otherwise look missing.
func AuditTrace(cfg Config, name string, tf *trace.File) (TraceResult, error) {
	return auditLines(cfg, name, tf, true)
}

// AuditFile verifies one trace file's hash chain, then reads and audits it. Only a
// regular file whose first line is a spine trace header is audited; anything else is an
// error naming the file and what was expected. A torn last line, or a run's trace cut
// before its halt, is where the trace ends (TraceResult.Incomplete says so): a run that
// stopped there delivered nothing after it. A malformed line before the end is returned as the error,
// with the findings on the messages before it, and the stream is not ended. A broken
// chain is returned as an error wrapping the *trace.ChainError (also in
// TraceResult.Broken), with the findings on the whole trace as it now reads. With keys,
// a trace they do not vouch for is refused, not audited: an error wrapping the
// *trace.SignatureError, naming the file.
func AuditFile(cfg Config, path string, keys trace.KeyRing) (TraceResult, error) {
	tf, err := trace.ReadFile(path)
	if tf == nil {
		return TraceResult{}, err
	}
	// A file that is not a spine trace at all has nothing to audit: "0 findings" would
	// pass it.
	var nt *trace.NotATraceError
	if errors.As(err, &nt) {
		return TraceResult{}, err
	}
	if keys != nil {
		if _, serr := tf.VerifySignature(keys); serr != nil {
			return TraceResult{}, fmt.Errorf("%s: %w", path, serr)
		}
	}
	res, aerr := auditLines(cfg, path, tf, err == nil)
	res.Torn, res.Chain, res.Incomplete, res.Broken = tf.Torn, tf.Chain, tf.Incomplete(), tf.Broken()
	switch {
	case err != nil:
		return res, err
	case tf.ChainErr != nil:
		return res, fmt.Errorf("%s: hash chain broken at %w", path, tf.ChainErr)
	}
	return res, aerr
}

func auditLines(cfg Config, name string, tf *trace.File, whole bool) (TraceResult, error) {
	a, err := New(cfg)
	if err != nil {
		return TraceResult{}, err
	}
	msgs, ferr := bus.FromTrace(name, tf)
	for _, m := range msgs {
		a.Observe(m)
	}
	if whole && ferr == nil {
		a.End()
	}
	return TraceResult{Messages: a.Messages(), Findings: a.Findings()}, ferr
}
