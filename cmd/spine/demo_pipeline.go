package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

// `spine demo --pipeline`: the whole pipeline live — R1–R4b, the sandboxed tools, memory
// and the Auditor — on a tiny project in a temporary work dir, with the roles' replies
// from a script (scripted.Chat) instead of a model, so it needs no key and no network.

// pipelineDemoTrace is the demo's trace when --trace is not given, in the current
// directory (never overwritten).
const pipelineDemoTrace = "spine-demo-pipeline.trace.jsonl"

// demoPipelineRun is one play of the pipeline demo: where its trace goes and what shows it.
type demoPipelineRun struct {
	tracePath string
	signKey   string // a private key file that signs the trace, "" for none
	onMessage func(trace.Message)
	wrapSink  func(trace.Sink) trace.Sink
	warn      func(string)
	// onFallback hears why the tools run unconfined, when bubblewrap cannot isolate them.
	onFallback func(why string)
}

// demoPipelineOutcome is how the demo went: the run, and what it left behind — the
// report file's text, GGS's Megrams in memory, the script turns the run did not use.
type demoPipelineOutcome struct {
	res      taskrun.Result
	runErr   error
	report   string
	reportOK bool
	megrams  []memory.Record
	unplayed []string
}

// playPipelineDemo copies the demo's project into a fresh temporary directory, runs the
// task there through taskrun with the scripted replies and a memory store beside the work
// dir, and removes the directory afterwards. Where bubblewrap is unavailable it runs the
// tools unconfined and says so through onFallback: the calls are the demo's own script,
// not a model's, and the trace header records it. An error means no run took place.
func playPipelineDemo(ctx context.Context, d scripted.PipelineDemo, r demoPipelineRun) (demoPipelineOutcome, error) {
	var out demoPipelineOutcome
	tmp, err := os.MkdirTemp("", "spine-demo-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(tmp)
	work, memDir := filepath.Join(tmp, "work"), filepath.Join(tmp, "memory")
	for _, f := range d.Files {
		p := filepath.Join(work, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return out, err
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			return out, err
		}
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		return out, err
	}
	warn := r.warn
	if warn == nil {
		warn = func(string) {}
	}
	chat := scripted.NewChat(d.Script)
	tc := taskrun.Config{Task: d.Task, Workdir: work, LLM: scripted.LLMConfig(), Chat: chat, Rules: rs,
		MemoryDir: memDir, TracePath: r.tracePath, SignKey: r.signKey, OnMessage: r.onMessage, WrapSink: r.wrapSink, Warn: warn}
	res, runErr := taskrun.RunTask(ctx, tc)
	var unavailable *sandbox.UnavailableError
	if res.TracePath == "" && errors.As(runErr, &unavailable) {
		// Refused before anything ran: nothing was contacted and nothing written.
		if r.onFallback != nil {
			r.onFallback(unavailable.Error())
		}
		tc.NoSandbox = true
		tc.Warn = func(msg string) {
			if !strings.HasPrefix(msg, "--no-sandbox") { // onFallback said it, without a flag the user never gave
				warn(msg)
			}
		}
		res, runErr = taskrun.RunTask(ctx, tc)
	}
	if res.TracePath == "" {
		return out, runErr
	}
	out.res, out.runErr, out.unplayed = res, runErr, chat.Unplayed()
	if b, err := os.ReadFile(filepath.Join(work, d.Report)); err == nil {
		out.report, out.reportOK = string(b), true
	}
	out.megrams, err = demoMegrams(ctx, memDir)
	return out, err
}

// demoMegrams lists what the run left in memory, in the store's key order.
func demoMegrams(ctx context.Context, dir string) ([]memory.Record, error) {
	store, err := memory.OpenLevelDB(dir, memory.Options{Clock: clock.System{}})
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	defer store.Close()
	var recs []memory.Record
	err = store.List(ctx, memory.ListFilter{}, func(r memory.Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// runDemoPipeline is `spine demo --pipeline`.
func runDemoPipeline(ctx context.Context, io stdio, tracePath string, quiet, all bool, signKey string) int {
	d := scripted.NewPipelineDemo()
	if tracePath == "" {
		tracePath = taskrun.FreshPath(pipelineDemoTrace)
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	out := &lockedWriter{w: io.out}
	show := newRunDisplay(out, rs, false)
	var names []string
	for _, f := range d.Files {
		names = append(names, f.Path)
	}
	fmt.Fprintf(out, "Task %q, run live in a temporary work dir holding a tiny project (%s).\n", d.Task, strings.Join(names, ", "))
	fmt.Fprintln(out, "The roles' replies come from a script (scripted.Chat, a test double keyed by role and turn): no model is called, no key, no network.")
	fmt.Fprintln(out, "The tools, the memory store (in the temporary dir), GGS and the Auditor (R6) are the real ones.")
	fmt.Fprintln(out)
	warned := map[string]bool{} // a fallback runs the task twice; say each warning once
	r := demoPipelineRun{tracePath: tracePath, signKey: signKey,
		warn: func(msg string) {
			if !warned[msg] {
				warned[msg] = true
				warn(io, msg)
			}
		},
		onFallback: func(why string) {
			fmt.Fprintf(out, "No sandbox: %s. The demo's tool calls are its own script, not a model's, so they run UNCONFINED in the temporary dir; the trace header records it.\n\n", why)
		}}
	switch {
	case quiet:
	case all:
		r.wrapSink = func(next trace.Sink) trace.Sink { return &timelineSink{next: next, tl: &timeline{w: out, all: true}} }
	default:
		r.onMessage = show.message
	}
	o, err := playPipelineDemo(ctx, d, r)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	res := o.res
	if len(res.Findings) == 0 && len(res.AuditErrors) == 0 {
		fmt.Fprintln(out, "R6   auditor: no findings")
	}
	showAudit(show, res.AuditErrors, res.Findings)
	showDemoMemory(out, o.megrams)
	if res.Dream != nil {
		showDream(show, res.Dream)
	}
	if o.reportOK {
		fmt.Fprintf(out, "work dir: %s now holds %q\n", d.Report, o.report)
	} else {
		fmt.Fprintf(out, "work dir: %s was not written\n", d.Report)
	}
	end := traceEnd{head: res.TraceHead, lines: res.TraceLines, cut: res.TraceCut}
	code := show.finish(io, res.TaskResult, o.runErr, res.TracePath, end, res.Pipeline)
	defer func() { traceIncomplete(io, res.TracePath, end, res.Final, exitFail) }()
	if res.SignedBy != "" {
		fmt.Fprintf(io.out, "Signed by:           %s\n", res.SignedBy)
	}
	fmt.Fprintf(io.out, "Audit it:            spine audit %s\n", res.TracePath)
	fmt.Fprintf(io.out, "Read it:             spine trace show %s\n", res.TracePath)
	fmt.Fprintln(io.out, explainHint)
	if errors.Is(o.runErr, context.Canceled) {
		return code
	}
	// The demo checks itself: a script that went unused, a report that is not the count,
	// or an Auditor finding means the pipeline did not do what the demo shows.
	var wrong []string
	if len(o.unplayed) > 0 {
		wrong = append(wrong, "the run left scripted replies unused ("+strings.Join(o.unplayed, "; ")+")")
	}
	if o.report != d.Want {
		wrong = append(wrong, fmt.Sprintf("%s holds %q, want %q", d.Report, o.report, d.Want))
	}
	if len(res.Findings) > 0 || len(res.AuditErrors) > 0 {
		wrong = append(wrong, "the Auditor reported the run")
	}
	if len(wrong) > 0 {
		fmt.Fprintf(io.err, "spine demo: the pipeline demo went wrong: %s\n", strings.Join(wrong, "; "))
		return exitFail
	}
	return code
}

// showDemoMemory says what the store holds after the run, by who wrote it: GGS's Megrams
// (the R7 → R5 lines above) and whatever the Dreamer added.
func showDemoMemory(w io.Writer, recs []memory.Record) {
	by := map[string]int{}
	var origins []string
	for _, r := range recs {
		if by[r.Origin] == 0 {
			origins = append(origins, r.Origin)
		}
		by[r.Origin]++
	}
	slices.Sort(origins)
	parts := make([]string, len(origins))
	for i, o := range origins {
		who := o
		if o == memory.OriginGGS {
			who = "GGS (" + o + ")"
		}
		parts[i] = fmt.Sprintf("%d from %s", by[o], who)
	}
	printLine(w, "memory: the store holds %d Megram(s): %s", len(recs), strings.Join(parts, ", "))
}
