package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
	"github.com/spf13/cobra"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "replay [flags] TRACE|DIR...",
			Short: "re-run recorded traces from their recordings, calling no model, and check them",
		}
		fs := c.Flags()
		f := &replayFlags{
			rulesPath: fs.String("rules", "", "replay with this rule `FILE` instead of the recorded one (the run may diverge)"),
			check:     fs.Bool("check", false, "compare the new trace with the recording; exit 1 at the first differing line"),
			out:       fs.String("out", "", "write the new trace to this `FILE` (one trace only)"),
			jobs:      fs.Int("jobs", runtime.GOMAXPROCS(0), "`N` traces replayed at once"),
			verifyKey: addVerifyKey(fs),
			whatIf:    fs.Bool("what-if", false, "with --rules: re-decide every recorded cycle with the edited rules and show the changed decisions; calls no effector"),
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return exitStatus(runReplay(c.Context(), io, f, args))
		}
		return c
	})
}

// replayFlags are spine replay's flags.
type replayFlags struct {
	rulesPath, out *string
	verifyKey      *string
	check, whatIf  *bool
	jobs           *int
}

// replayOutcome is what replaying one trace found. The verdict is the replay's, never
// the recorded run's: a run that ended in an error or was cancelled, replayed the same
// way, is a good replay. It is a bad one when the recording could not be used (failed),
// the replay diverged or needed more of the recording than there is (replayErr), the new
// trace differs (diff), or the recording's hash chain is broken (chainErr, with --check).
type replayOutcome struct {
	path      string
	res       engine.Result
	lines     int   // complete lines of the recording
	failed    error // the recording could not be read or its rules found: no replay ran
	replayErr error // the replay itself failed: divergence, recording ended, unusable line
	runErr    error // the run's own error, as recorded (an effector error, a cancellation)
	// incomplete says why the recording is incomplete (torn mid-line, or cut at a line
	// boundary before its halt: one verdict), "" when it is whole.
	incomplete string
	diff       *replay.TraceDiff // --check: first difference
	replayed   []byte
	identical  bool // --check: the new trace is the recording's bytes (its complete lines, if torn)
	chain      trace.ChainReport
	chainErr   error  // the recording's hash chain is broken (or the trace unreadable)
	otherRules string // --rules has another hash than the recorded rules: names both
	signature  trace.SignatureReport
	sigErr     error // --verify-key: the trusted keys do not vouch for the recording
	verified   bool  // --verify-key: they do
}

// ok is the verdict on one replay, the exit code's and the summary's.
func (r replayOutcome) ok(check bool) bool {
	switch {
	case r.failed != nil || r.replayErr != nil || r.sigErr != nil:
		return false
	case check:
		return r.identical && r.chainErr == nil
	}
	return true
}

// ending says how the replayed run ended, with the reason where the outcome alone does
// not say it: "success", "failure (objective abandon)", "halted: canceled",
// "error: effector gate (iteration 1, objective work): judge timed out".
func (r replayOutcome) ending() string {
	reason := r.res.Reason
	if reason == "" && r.runErr != nil {
		reason = r.runErr.Error()
	}
	switch r.res.Outcome {
	case engine.OutcomeSuccess:
		return r.res.Outcome
	case engine.OutcomeFailure:
		return fmt.Sprintf("%s (objective %s)", r.res.Outcome, r.res.Objective)
	case engine.OutcomeCanceled:
		// Where the run was cancelled is worth saying; that it was, once is enough.
		if reason == "" || reason == context.Canceled.Error() {
			return "halted: canceled"
		}
		return "halted: canceled: " + reason
	}
	if reason == "" {
		return r.res.Outcome
	}
	return r.res.Outcome + ": " + reason
}

// chainNote says what the chain check found, for the line that reports a replay.
func (r replayOutcome) chainNote() string {
	if r.chain.Chained {
		return "hash chain intact"
	}
	return r.chain.String() + ": no hashes to verify"
}

func runReplay(ctx context.Context, io stdio, f *replayFlags, args []string) int {
	rulesPath, check, out, jobs, whatIf := f.rulesPath, f.check, f.out, f.jobs, f.whatIf
	paths, err := traceArgs(args)
	if err != nil {
		fmt.Fprintf(io.err, "spine replay: %v\n", err)
		return exitUsage
	}
	if *whatIf {
		return whatIfTraces(io, *rulesPath, paths, false)
	}
	if *out != "" && len(paths) != 1 {
		fmt.Fprintln(io.err, "spine replay: --out takes one trace")
		return exitUsage
	}
	if *jobs < 1 {
		*jobs = 1
	}
	ring, err := loadVerifyKey(*f.verifyKey)
	if err != nil {
		fmt.Fprintf(io.err, "spine replay: %v\n", err)
		return exitUsage
	}
	var override *engine.RuleSet
	if *rulesPath != "" {
		override, err = engine.LoadRulesFile(*rulesPath)
		if err != nil {
			fmt.Fprintf(io.err, "spine replay: %v\n", err)
			return exitFail
		}
	}
	results := make([]replayOutcome, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < *jobs && w < len(paths); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = replayOne(ctx, paths[i], override, *check, ring)
			}
		}()
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()

	code := exitOK
	for _, r := range results {
		report(io, r, *check)
		if !r.ok(*check) {
			code = exitFail
		}
	}
	if len(results) > 1 {
		fmt.Fprintln(io.out, replaySummary(results, *check))
	}
	if *out != "" && len(results) == 1 && results[0].replayed != nil {
		if err := writeNewFile(*out, results[0].replayed); err != nil {
			fmt.Fprintf(io.err, "spine replay: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(io.out, "new trace written to %s\n", *out)
	}
	return code
}

// report prints what replaying one trace found: an incomplete recording on stderr, then one
// line with the verdict (two when a replay that differs also failed).
func report(io stdio, r replayOutcome, check bool) {
	if r.incomplete != "" {
		fmt.Fprintf(io.err, "%s: %s\n", r.path, r.incomplete)
	}
	var ce *trace.ChainError
	if r.chainErr != nil && (r.failed == nil || errors.As(r.chainErr, &ce)) { // else the reader's error, in failed
		printLine(io.out, "%s: hash chain broken at %v", r.path, r.chainErr)
	}
	if r.otherRules != "" {
		fmt.Fprintf(io.out, "%s: %s\n", r.path, r.otherRules)
	}
	switch {
	case r.sigErr != nil:
		fmt.Fprintf(io.out, "%s: %v\n", r.path, r.sigErr)
	case r.verified:
		fmt.Fprintf(io.out, "%s: %s (verified)\n", r.path, r.signature)
	case r.signature.Signed:
		fmt.Fprintf(io.out, "%s: %s (not verified: pass --verify-key)\n", r.path, r.signature)
	}
	var unusable *replay.RecordingError
	switch {
	case r.failed != nil:
		// No replay ran: an error, on stderr. A recording's values are quoted as
		// excerpts: a line may be megabytes.
		fmt.Fprintf(io.err, "%s: %s\n", r.path, linecap.BoundQuotes(r.failed.Error()))
	case r.diff != nil:
		printLine(io.out, "%s: differs from the recording at %s", r.path, r.diff)
		if r.replayErr != nil {
			fmt.Fprintf(io.out, "%s: %s\n", r.path, linecap.BoundQuotes(r.replayErr.Error()))
		}
	case r.replayErr != nil && r.incomplete != "" && errors.Is(r.replayErr, replay.ErrRecordingEnded):
		// What the recording holds was reproduced, but the run could not be: it needed
		// what was lost with the cut.
		fmt.Fprintf(io.out, "%s: incomplete: the recording ends before the run did, and the replay needed more than the %d complete lines: %v\n", r.path, r.lines, r.replayErr)
	case errors.As(r.replayErr, &unusable):
		// The recording could not be used: an error about the input, on stderr.
		fmt.Fprintf(io.err, "%s: recording unusable: %s\n", r.path, linecap.BoundQuotes(r.replayErr.Error()))
	case r.replayErr != nil:
		fmt.Fprintf(io.out, "%s: %s\n", r.path, linecap.BoundQuotes(r.replayErr.Error()))
	case check && r.incomplete != "":
		// The recorded run's end was in the lost line, so no outcome is claimed.
		note := r.chainNote()
		if r.chainErr != nil {
			note = "but the recording's chain is broken"
		}
		printLine(io.out, "%s: incomplete: the recording ends before the run did; %d complete lines reproduced (%s)", r.path, r.lines, note)
	case check && r.chainErr != nil:
		printLine(io.out, "%s: the replay is identical to the recording (%d lines), but the recording's chain is broken · %s", r.path, r.lines, r.ending())
	case check:
		printLine(io.out, "%s: identical to the recording (%d lines, %s) · %s", r.path, r.lines, r.chainNote(), r.ending())
	case !r.chain.Chained && r.chainErr == nil:
		printLine(io.out, "%s: replayed · %s · %s", r.path, r.replayedEnding(), r.chain)
	default:
		printLine(io.out, "%s: replayed · %s", r.path, r.replayedEnding())
	}
}

// replayedEnding is the outcome line of a replay without --check: the outcome, the
// objective and the iterations, then the reason of a run that did not reach a terminal
// objective (an error, a cancellation, the iteration bound).
func (r replayOutcome) replayedEnding() string {
	s := fmt.Sprintf("%s (objective %s) after %d iteration(s)", r.res.Outcome, r.res.Objective, r.res.Iterations)
	switch {
	case r.res.Reason != "":
		s += ": " + r.res.Reason
	case r.runErr != nil:
		s += ": " + r.runErr.Error()
	}
	return s
}

func replayOne(ctx context.Context, path string, override *engine.RuleSet, check bool, ring trace.KeyRing) replayOutcome {
	o := replayOutcome{path: path}
	recorded, err := trace.ReadBytes(path)
	if err != nil {
		o.failed = err
		return o
	}
	o.chain, o.chainErr = trace.VerifyChain(bytes.NewReader(recorded))
	tf, err := trace.Read(path, bytes.NewReader(recorded))
	if err != nil {
		o.failed = err
		return o
	}
	o.incomplete, o.lines = tf.Incomplete(), len(tf.Events)
	tf.Chain, tf.ChainErr = o.chain, o.chainErr
	o.signature = tf.Signature()
	if ring != nil {
		o.signature, o.sigErr = tf.VerifySignature(ring)
		o.verified = o.sigErr == nil
	}
	rec, err := replay.NewRecording(path, tf)
	if err != nil {
		o.failed = err
		return o
	}
	rs := override
	if rs == nil {
		if rs, err = recordedRules(rec); err != nil {
			o.failed = err
			return o
		}
	} else if h := rec.Header.Rules.Hash; rs.Hash() != h {
		o.otherRules = fmt.Sprintf("replayed with --rules %s (%s), not the recorded rules %s (%s); the run may diverge", rs.Path(), rs.Hash(), rec.Header.Rules.Path, h)
	}
	sink := &trace.MemorySink{}
	o.res, err = replay.Run(ctx, rec, rs, sink)
	if replay.Failed(err) {
		o.replayErr = err
	} else {
		o.runErr = err
	}
	o.replayed = sink.Bytes()
	if check {
		limit := 0
		if o.incomplete != "" {
			limit = len(tf.Events)
		}
		replayed := o.replayed
		if rec.Header.Format == trace.FormatUnchained {
			// The replay writes the chained layout; the recording is the old one.
			replayed = trace.UnchainedTrace(replayed)
		}
		o.diff = replay.CompareTraces(recorded, replayed, limit)
		o.identical = o.diff == nil
	}
	return o
}

// recordedRules finds the rule set a trace was recorded with. A trace carries its rule
// file in the header, so nothing is looked up. One written before headers did is matched
// by hash, never by name, among every shipped rule file, the recorded path and the rule
// files beside the trace; those two paths come from outside, so they are read only
// through readRecordedRuleFile (a regular file under a size cap, opened without
// blocking), and what it refused is named in the error.
func recordedRules(rec *replay.Recording) (*engine.RuleSet, error) {
	if rs, err := rec.EmbeddedRules(); rs != nil || err != nil {
		return rs, err
	}
	path, hash := rec.Header.Rules.Path, rec.Header.Rules.Hash
	files := ruleFilesIn(rules.FS, "shipped ")
	if path != "" {
		if _, err := os.Lstat(path); err == nil {
			files = append(files, ruleFile{Name: path, Read: func() ([]byte, error) { return readRecordedRuleFile(path) }})
		}
	}
	for _, f := range ruleFilesBeside(filepath.Dir(rec.Name)) {
		if path == "" || filepath.Clean(f.Name) != filepath.Clean(path) {
			files = append(files, f)
		}
	}
	return findRulesByHash(path, hash, files)
}

// traceArgs expands directories into the *.jsonl files under them, sorted.
func traceArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("expected trace files or directories")
	}
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				found = append(found, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no .jsonl traces", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func replaySummary(rs []replayOutcome, check bool) string {
	ok, torn := 0, 0
	for _, r := range rs {
		if r.ok(check) {
			ok++
			if r.incomplete != "" {
				torn++
			}
		}
	}
	if check {
		tornNote := ""
		if torn > 0 {
			tornNote = fmt.Sprintf(" (%d incomplete: their complete lines)", torn)
		}
		return fmt.Sprintf("%d trace(s) replayed: %d identical%s, %d not", len(rs), ok, tornNote, len(rs)-ok)
	}
	return fmt.Sprintf("%d trace(s) replayed: %d ran, %d failed", len(rs), ok, len(rs)-ok)
}

func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
