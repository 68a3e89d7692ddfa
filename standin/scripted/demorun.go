package scripted

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// PipelineDemoRun is one play of the pipeline demo: where its trace goes and what shows it.
type PipelineDemoRun struct {
	TracePath string
	SignKey   string // a private key file that signs the trace, "" for none
	OnMessage func(trace.Message)
	Events    []ggsrun.EventObserver
	Warn      func(string) // each warning once
	// OnFallback hears why the tools run unconfined, when bubblewrap cannot isolate them.
	OnFallback func(why string)
}

// PipelineDemoOutcome is how the demo went: the run, and what it left behind — the
// report file's text, the Megrams in memory, the script turns the run did not use.
type PipelineDemoOutcome struct {
	Result   taskrun.Result
	RunErr   error
	Report   string
	ReportOK bool
	Megrams  []memory.Record
	Unplayed []string
}

// Run copies the demo's project into a fresh temporary directory, runs the task there
// through taskrun with the scripted replies and a memory store beside the work dir, and
// removes the directory afterwards. Where bubblewrap is unavailable it runs the tools
// unconfined and says so through OnFallback: the calls are the demo's own script, not a
// model's, and the trace header records it. An error means no run took place.
func (d PipelineDemo) Run(ctx context.Context, r PipelineDemoRun) (PipelineDemoOutcome, error) {
	var out PipelineDemoOutcome
	tmp, err := os.MkdirTemp("", "spine-demo-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(tmp)
	work, memDir := filepath.Join(tmp, "work"), filepath.Join(tmp, "memory")
	if err := d.WriteFiles(work); err != nil {
		return out, err
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		return out, err
	}
	warned := map[string]bool{} // a fallback runs the task twice; say each warning once
	warn := func(msg string) {
		if r.Warn != nil && !warned[msg] {
			warned[msg] = true
			r.Warn(msg)
		}
	}
	chat := NewChat(d.Script)
	tc := taskrun.Config{Task: d.Task, Workdir: work, LLM: LLMConfig(), Chat: chat, Rules: rs,
		MemoryDir: memDir, TracePath: r.TracePath, SignKey: r.SignKey, OnMessage: r.OnMessage, Events: r.Events, Warn: warn}
	res, runErr := taskrun.RunTask(ctx, tc)
	var unavailable *sandbox.UnavailableError
	if res.TracePath == "" && errors.As(runErr, &unavailable) {
		// Refused before anything ran: nothing was contacted and nothing written.
		if r.OnFallback != nil {
			r.OnFallback(unavailable.Error())
		}
		tc.NoSandbox = true
		tc.Warn = func(msg string) {
			if !strings.HasPrefix(msg, "--no-sandbox") { // OnFallback said it, without a flag the user never gave
				warn(msg)
			}
		}
		res, runErr = taskrun.RunTask(ctx, tc)
	}
	if res.TracePath == "" {
		return out, runErr
	}
	out.Result, out.RunErr, out.Unplayed = res, runErr, chat.Unplayed()
	if b, err := os.ReadFile(filepath.Join(work, d.Report)); err == nil {
		out.Report, out.ReportOK = string(b), true
	}
	out.Megrams, err = storedMegrams(ctx, memDir)
	return out, err
}

// Intro is what the demo says of itself before it runs: the task, the project, and
// which parts are scripted and which are real.
func (d PipelineDemo) Intro() string {
	names := make([]string, len(d.Files))
	for i, f := range d.Files {
		names[i] = f.Path
	}
	return fmt.Sprintf("Task %q, run live in a temporary work dir holding a tiny project (%s).\n", d.Task, strings.Join(names, ", ")) +
		"The roles' replies come from a script (scripted.Chat, a test double keyed by role and turn): no model is called, no key, no network.\n" +
		"The tools, the memory store (in the temporary dir), GGS and the Auditor (R6) are the real ones."
}

// WriteFiles writes the demo's tiny project under dir.
func (d PipelineDemo) WriteFiles(dir string) error {
	for _, f := range d.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// storedMegrams lists what the run left in memory, in the store's key order.
func storedMegrams(ctx context.Context, dir string) ([]memory.Record, error) {
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

// Wrong is what the demo did not do that it shows: a script turn unused, a report that
// is not the count, an Auditor finding. The demo checks itself with it.
func (o PipelineDemoOutcome) Wrong(d PipelineDemo) []string {
	var wrong []string
	if len(o.Unplayed) > 0 {
		wrong = append(wrong, "the run left scripted replies unused ("+strings.Join(o.Unplayed, "; ")+")")
	}
	if o.Report != d.Want {
		wrong = append(wrong, fmt.Sprintf("%s holds %q, want %q", d.Report, o.Report, d.Want))
	}
	if len(o.Result.Findings) > 0 || len(o.Result.AuditErrors) > 0 {
		wrong = append(wrong, "the Auditor reported the run")
	}
	return wrong
}

// WorkDir says what the run left in the work dir: the report the demo asks for, or
// that it was not written.
func (o PipelineDemoOutcome) WorkDir(d PipelineDemo) string {
	if o.ReportOK {
		return fmt.Sprintf("work dir: %s now holds %q", d.Report, o.Report)
	}
	return fmt.Sprintf("work dir: %s was not written", d.Report)
}

// MemoryByOrigin says what the store holds after the run, by who wrote it: GGS's
// Megrams and whatever the Dreamer added, origins in order.
func (o PipelineDemoOutcome) MemoryByOrigin() string {
	by := map[string]int{}
	var origins []string
	for _, r := range o.Megrams {
		if by[r.Origin] == 0 {
			origins = append(origins, r.Origin)
		}
		by[r.Origin]++
	}
	slices.Sort(origins)
	parts := make([]string, len(origins))
	for i, who := range origins {
		n := by[who]
		if who == memory.OriginGGS {
			who = "GGS (" + who + ")"
		}
		parts[i] = fmt.Sprintf("%d from %s", n, who)
	}
	return fmt.Sprintf("the store holds %d Megram(s): %s", len(o.Megrams), strings.Join(parts, ", "))
}
