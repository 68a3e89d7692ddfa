package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/runview"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

// `spine demo --pipeline`: the whole pipeline live — R1–R4b, the sandboxed tools, memory
// and the Auditor — on a tiny project in a temporary work dir, with the roles' replies
// from a script (scripted.Chat) instead of a model, so it needs no key and no network.

// pipelineDemoTrace is the demo's trace when --trace is not given, in the current
// directory (never overwritten).
const pipelineDemoTrace = "spine-demo-pipeline.trace.jsonl"

// runDemoPipeline is `spine demo --pipeline`.
func runDemoPipeline(ctx context.Context, io stdio, tracePath string, quiet, all bool, signKey string) error {
	d := scripted.NewPipelineDemo()
	if tracePath == "" {
		tracePath = taskrun.FreshPath(pipelineDemoTrace)
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		return err
	}
	show := runview.NewLive(runview.Streams{In: io.in, Text: io.out, Raw: io.rawOut, Err: io.err}, rs, false)
	out := show.Out
	fmt.Fprintf(out, "%s\n\n", d.Intro())
	r := scripted.PipelineDemoRun{TracePath: tracePath, SignKey: signKey, Warn: func(msg string) { warn(io, msg) },
		OnFallback: func(why string) {
			fmt.Fprintf(out, "No sandbox: %s. The demo's tool calls are its own script, not a model's, so they run UNCONFINED in the temporary dir; the trace header records it.\n\n", why)
		}}
	switch {
	case quiet:
	case all:
		r.Events = []ggsrun.EventObserver{textview.NewTimeline(out, true).Written()}
	default:
		r.OnMessage = show.Message
	}
	o, err := d.Run(ctx, r)
	if err != nil {
		return err
	}
	res := o.Result
	if len(res.Findings) == 0 && len(res.AuditErrors) == 0 {
		fmt.Fprintln(out, "R6   auditor: no findings")
	}
	show.Audit(res.AuditErrors, res.Findings)
	termtext.Printf(out, "memory: %s", o.MemoryByOrigin())
	if res.Dream != nil {
		show.Dream(res.Dream)
	}
	fmt.Fprintln(out, o.WorkDir(d))
	code := runCode(show.Finish(io.out, io.err, res, o.RunErr))
	defer runview.Incomplete(io.err, res)
	if res.SignedBy != "" {
		fmt.Fprintf(io.out, "Signed by:           %s\n", res.SignedBy)
	}
	fmt.Fprintf(io.out, "Audit it:            spine audit %s\n", res.TracePath)
	fmt.Fprintf(io.out, "Read it:             spine trace show %s\n", res.TracePath)
	fmt.Fprintln(io.out, explainHint)
	if errors.Is(o.RunErr, context.Canceled) {
		return cli.Exit(code)
	}
	// The demo checks itself: the pipeline must have done what the demo shows.
	if wrong := o.Wrong(d); len(wrong) > 0 {
		return fmt.Errorf("the pipeline demo went wrong: %s", strings.Join(wrong, "; "))
	}
	return cli.Exit(code)
}
