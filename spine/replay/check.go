package replay

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// CheckOptions say how Check replays a recording.
type CheckOptions struct {
	// Rules replaces the recorded rules (the run may diverge); nil replays with the
	// recorded ones (RecordedRules).
	Rules *ruleset.RuleSet
	// Compare compares the new trace with the recording, line by line.
	Compare bool
	// Keys, when set, must vouch for the recording's signature.
	Keys trace.KeyRing
}

// Outcome is what replaying one recording found. The verdict is the replay's, never
// the recorded run's: a run that ended in an error or was cancelled, replayed the same
// way, is a good replay. It is a bad one when the recording could not be used (Failed),
// the replay diverged or needed more of the recording than there is (ReplayErr), the
// new trace differs (Diff), or the recording's hash chain is broken (ChainErr, with
// Compare).
type Outcome struct {
	Path      string
	Compare   bool       // the options' Compare
	Result    trace.Halt // how the replayed run ended
	Lines     int        // complete lines of the recording
	Failed    error      // the recording could not be read or its rules found: no replay ran
	ReplayErr error      // the replay itself failed: divergence, recording ended, unusable line
	RunErr    error      // the run's own error, as recorded (an effector error, a cancellation)
	// Incomplete says why the recording is incomplete (torn mid-line, or cut at a line
	// boundary before its halt: one verdict), "" when it is whole.
	Incomplete string
	Diff       *TraceDiff // Compare: the first difference
	Replayed   []byte     // the new trace
	Identical  bool       // Compare: the new trace is the recording's bytes (its complete lines, if torn)
	Chain      trace.ChainReport
	ChainErr   error  // the recording's hash chain is broken (or the trace unreadable)
	OtherRules string // Rules has another hash than the recorded rules: names both
	Signature  trace.SignatureReport
	SigErr     error // Keys: they do not vouch for the recording
	Verified   bool  // Keys: they do
}

// Check reads the trace at path (a regular file) and replays it: see CheckBytes.
func Check(ctx context.Context, path string, o CheckOptions) Outcome {
	recorded, err := trace.ReadBytes(path)
	if err != nil {
		return Outcome{Path: path, Compare: o.Compare, Failed: err}
	}
	return CheckBytes(ctx, path, recorded, o)
}

// CheckBytes replays the recorded trace named name from its recording, calling no
// effector, and checks its hash chain, its signature (with o.Keys) and, with o.Compare,
// that the new trace is the recording byte for byte.
func CheckBytes(ctx context.Context, name string, recorded []byte, o CheckOptions) Outcome {
	out := Outcome{Path: name, Compare: o.Compare}
	out.Chain, out.ChainErr = trace.VerifyChain(bytes.NewReader(recorded))
	tf, err := trace.Read(name, bytes.NewReader(recorded))
	if herr := trace.CheckHeader(name, tf, err); herr != nil {
		// Not a trace at all: that is the one thing to say, not a broken chain too.
		out.Failed, out.ChainErr = herr, nil
		return out
	}
	if err != nil {
		out.Failed = err
		return out
	}
	out.Incomplete, out.Lines = tf.Incomplete(), len(tf.Events)
	tf.Chain, tf.ChainErr = out.Chain, out.ChainErr
	out.Signature = tf.Signature()
	if o.Keys != nil {
		out.Signature, out.SigErr = tf.VerifySignature(o.Keys)
		out.Verified = out.SigErr == nil
	}
	rec, err := NewRecording(name, tf)
	if err != nil {
		out.Failed = err
		return out
	}
	rs := o.Rules
	if rs == nil {
		if rs, err = rec.RecordedRules(); err != nil {
			out.Failed = err
			return out
		}
	} else if h := rec.Header.Rules.Hash; rs.Hash() != h {
		out.OtherRules = fmt.Sprintf("replayed with --rules %s (%s), not the recorded rules %s (%s); the run may diverge", rs.Path(), rs.Hash(), rec.Header.Rules.Path, h)
	}
	sink := &trace.MemorySink{}
	out.Result, err = Run(ctx, rec, rs, sink)
	if Failed(err) {
		out.ReplayErr = err
	} else {
		out.RunErr = err
	}
	out.Replayed = sink.Bytes()
	if o.Compare {
		limit := 0
		if out.Incomplete != "" {
			limit = len(tf.Events)
		}
		replayed := out.Replayed
		if rec.Header.Format == trace.FormatUnchained {
			// The replay writes the chained layout; the recording is the old one.
			replayed = trace.UnchainedTrace(replayed)
		}
		out.Diff = CompareTraces(recorded, replayed, limit)
		out.Identical = out.Diff == nil
	}
	return out
}

// OK is the verdict on the replay.
func (r Outcome) OK() bool {
	switch {
	case r.Failed != nil || r.ReplayErr != nil || r.SigErr != nil:
		return false
	case r.Compare:
		return r.Identical && r.ChainErr == nil
	}
	return true
}

// Ending says how the replayed run ended, with the reason where the outcome alone does
// not say it: "success", "failure (objective abandon)", "halted: canceled",
// "error: effector gate (iteration 1, objective work): judge timed out".
func (r Outcome) Ending() string {
	reason := r.Result.Reason
	if reason == "" && r.RunErr != nil {
		reason = r.RunErr.Error()
	}
	switch r.Result.Outcome {
	case engine.OutcomeSuccess:
		return r.Result.Outcome
	case engine.OutcomeFailure:
		return fmt.Sprintf("%s (objective %s)", r.Result.Outcome, r.Result.Objective)
	case engine.OutcomeCanceled:
		// Where the run was cancelled is worth saying; that it was, once is enough.
		if reason == "" || reason == context.Canceled.Error() {
			return "halted: canceled"
		}
		return "halted: canceled: " + reason
	}
	if reason == "" {
		return r.Result.Outcome
	}
	return r.Result.Outcome + ": " + reason
}

// ReplayedEnding is the outcome of a replay without Compare: the outcome, the objective
// and the iterations, then the reason of a run that did not reach a terminal objective
// (an error, a cancellation, the iteration bound).
func (r Outcome) ReplayedEnding() string {
	s := fmt.Sprintf("%s (objective %s) after %d iteration(s)", r.Result.Outcome, r.Result.Objective, r.Result.Iterations)
	switch {
	case r.Result.Reason != "":
		s += ": " + r.Result.Reason
	case r.RunErr != nil:
		s += ": " + r.RunErr.Error()
	}
	return s
}

// ChainNote says what the chain check found.
func (r Outcome) ChainNote() string {
	if r.Chain.Chained {
		return "hash chain intact"
	}
	return r.Chain.String() + ": no hashes to verify"
}

// Summary sums up the replays of several recordings in one line.
func Summary(rs []Outcome, compare bool) string {
	ok, torn := 0, 0
	for _, r := range rs {
		if r.OK() {
			ok++
			if r.Incomplete != "" {
				torn++
			}
		}
	}
	if compare {
		tornNote := ""
		if torn > 0 {
			tornNote = fmt.Sprintf(" (%d incomplete: their complete lines)", torn)
		}
		return fmt.Sprintf("%d trace(s) replayed: %d identical%s, %d not", len(rs), ok, tornNote, len(rs)-ok)
	}
	return fmt.Sprintf("%d trace(s) replayed: %d ran, %d failed", len(rs), ok, len(rs)-ok)
}

// CheckAll checks the traces at paths, jobs at a time, into outcomes in the order of
// paths.
func CheckAll(ctx context.Context, paths []string, jobs int, o CheckOptions) []Outcome {
	results := make([]Outcome, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs && w < len(paths); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = Check(ctx, paths[i], o)
			}
		}()
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}
