package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/termui"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
	"github.com/agentspine/spine/telemetry"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   `run [flags] "task text"`,
			Short: "run a task live: R1–R4b on a model endpoint, steered by GGS, with a replayable trace",
		}
		fs := c.Flags()
		f := &runFlags{
			workdir:    fs.String("workdir", ".", "`DIR` the executor's tools work in; they cannot leave it"),
			rulesPath:  fs.String("rules", "", "GGS rule `FILE` to use instead of the shipped rules/ggs.yaml"),
			memDir:     fs.String("memory", "", "shared memory (LevelDB) `DIR`: calibrates plans, and GGS records what it learns"),
			tracePath:  fs.String("trace", "", "trace `FILE` to create, outside the work dir (default: spine-<run id>.trace.jsonl in $SPINE_TRACE_DIR, else $XDG_STATE_HOME/spine/traces or ~/.local/state/spine/traces; never overwritten)"),
			asJSON:     fs.Bool("json", false, "print every message as a JSON line instead of the pipeline display"),
			baseURL:    fs.String("base-url", "", "OpenAI-compatible endpoint `URL`, e.g. http://localhost:11434/v1 (default: $OPENAI_BASE_URL or OpenAI)"),
			model:      fs.String("model", "", "`NAME` of the model for every role without one of its own (default: $SPINE_MODEL)"),
			configPath: fs.String("config", "", "YAML model configuration `FILE` (base_url, api_key, model, tiers, roles)"),
			watch:      fs.Bool("watch", false, "with --rules: reload the rule file when it changes, at the next cycle boundary"),
			caution:    fs.String("caution", "", "with no terminal to ask, what to do with a call memory advises caution for: `refuse|allow|log` (log: allow and warn; default: the rules' caution param, refuse as shipped)"),
			noSandbox:  fs.Bool("no-sandbox", false, "run tools UNCONFINED when this machine cannot isolate them (printed in red, recorded in the trace)"),
			maxIter:    fs.Int("max-iterations", 20, "bound the run to `N` rounds; a run that reaches it is abandoned by a rule (reason iteration_bound)"),
			memCorrupt: fs.String("memory-corrupt", taskrun.MemoryCorruptRefuse, "when the --memory store is corrupt: `refuse|skip` (skip: run without memory, with a warning)"),
			otlp:       fs.String("otlp", "", "when the run ends, send its trace to this OTLP/HTTP `URL` (e.g. http://localhost:4318; headers from $OTEL_EXPORTER_OTLP_HEADERS)"),
		}
		f.snapshot = fs.Bool("snapshot", true, snapshotFlagHelp)
		f.signKey = fs.String("sign-key", "", "sign the trace with this ed25519 private key `FILE` (spine keygen; outside the work dir, hidden from the tools)")
		fs.Var(&f.mcp, "mcp", mcpFlagHelp)
		fs.Var(&f.allowNet, "allow-net", "let tools connect to `HOST[:PORT]` (repeatable; a host alone means ports 80 and 443; default: no network)")
		c.RunE = func(c *cobra.Command, args []string) error {
			f.snapshotSet = c.Flags().Changed("snapshot")
			return runTask(c.Context(), io, f, args)
		}
		return c
	})
}

// runFlags are spine run's flags.
type runFlags struct {
	workdir, rulesPath, memDir, tracePath, baseURL, model, configPath, caution *string
	otlp, signKey, memCorrupt                                                  *string
	maxIter                                                                    *int
	asJSON, watch, noSandbox, snapshot                                         *bool
	allowNet                                                                   sandbox.NetRules
	mcp                                                                        mcpFlags
	snapshotSet                                                                bool
}

// notConfigured is how to configure an endpoint, after llm.ErrNoEndpoint.
const notConfigured = `.
  OpenAI:         export OPENAI_API_KEY=... SPINE_MODEL=gpt-4o-mini
  Ollama:         spine run --base-url http://localhost:11434/v1 --model qwen2.5:7b "task"
  vLLM:           spine run --base-url http://localhost:8000/v1 --model <served model name> "task"
  any other OpenAI-compatible server: --base-url (or OPENAI_BASE_URL) and --model (or SPINE_MODEL),
  or a config file (--config FILE) with base_url, api_key, model and per-role models.
To see the loop without a model or a key, run: spine demo (or spine demo --pipeline for every role)`

// runTask is spine run: it checks the flags, loads the model configuration and the
// rules, runs the task through taskrun and shows it. A refusal before the run is its
// error; once the run has a trace, the display says how it went and the exit status
// reports that result.
func runTask(ctx context.Context, io stdio, f *runFlags, args []string) error {
	raw := strings.Join(args, " ")
	if strings.TrimSpace(raw) == "" {
		return usageErrorf(`expected the task text, e.g. spine run "summarise the TODOs in this repository"`)
	}
	switch *f.caution {
	case "", taskrun.CautionRefuse, taskrun.CautionAllow, taskrun.CautionLog:
	default:
		return usageErrorf("--caution %q: expected refuse, allow or log", *f.caution)
	}
	switch *f.memCorrupt {
	case taskrun.MemoryCorruptRefuse, taskrun.MemoryCorruptSkip:
	default:
		return usageErrorf("--memory-corrupt %q: expected refuse or skip", *f.memCorrupt)
	}
	if *f.otlp != "" {
		if _, err := telemetry.ParseURL(*f.otlp, false); err != nil {
			return usageErrorf("--otlp: %v", err)
		}
	}
	if *f.maxIter < 1 {
		return usageErrorf("--max-iterations %d: expected at least 1", *f.maxIter)
	}
	if *f.watch && *f.rulesPath == "" {
		return usageErrorf("--watch needs --rules FILE (the shipped rules are built in; copy rules/ggs.yaml and edit the copy)")
	}
	cfg, err := llm.LoadEndpointConfig(llm.Sources{File: *f.configPath, Getenv: os.LookupEnv,
		Flags: llm.Overrides{BaseURL: *f.baseURL, Model: *f.model}})
	switch {
	case errors.Is(err, llm.ErrNoEndpoint):
		return failWith(exitUsage, fmt.Errorf("%w%s", err, notConfigured))
	case err != nil:
		return failWith(exitUsage, fmt.Errorf("%w\n(spine run --help lists the flags; spine demo needs no model)", err))
	}
	rs, err := taskrun.LoadRules(*f.rulesPath)
	if err != nil {
		return err
	}
	servers, err := mcpServers(*f.configPath, f.mcp)
	if err != nil {
		return failWith(exitUsage, err)
	}

	// The display: JSON lines, or the pipeline with a spinner when stdout is a terminal.
	// JSON lines are for programs and keep their bytes; the spinner draws with its own
	// control codes and escapes what it is given to print.
	out := io.out
	var spin *termui.Spinner
	switch {
	case *f.asJSON:
		out = &termui.LockedWriter{W: io.rawOut}
	case termui.IsTerminal(io.rawOut):
		spin = termui.StartSpinner(io.rawOut, 120*time.Millisecond)
		defer spin.Stop()
		out = spin
	default:
		out = &termui.LockedWriter{W: io.out}
	}
	show := newRunDisplay(out, rs, *f.asJSON)
	retries := termui.NewRetryDisplay(out, io.err, spin, *f.asJSON)
	ctx = llm.WithRetryHook(ctx, retries.Retry)

	tc := taskrun.Config{Task: raw, Workdir: *f.workdir, LLM: cfg, ConfigPath: *f.configPath,
		Rules: rs, RulesPath: *f.rulesPath, Watch: *f.watch, MaxIterations: *f.maxIter, MemoryDir: *f.memDir, TracePath: *f.tracePath,
		AllowNet: f.allowNet, NoSandbox: *f.noSandbox, OnMessage: show.message, CautionPolicy: *f.caution, SignKey: *f.signKey,
		MemoryCorrupt: *f.memCorrupt, Warn: func(msg string) { warn(io, msg) }, MCPServers: servers}
	// A run with shared memory cannot be resumed or forked: its snapshots would serve
	// nothing, so they are taken only when asked for.
	if tc.Snapshots, err = runSnapshots(io, *f.snapshot && (*f.memDir == "" || f.snapshotSet), f.snapshotSet, *f.workdir); err != nil {
		return err
	}
	if termui.IsTerminal(io.in) && termui.IsTerminal(io.rawOut) {
		prompt := &termui.Prompt{In: bufio.NewReader(io.in), Out: out, Spin: spin}
		tc.Confirmer, tc.Clarify, tc.Caution = prompt, prompt, prompt
	}
	if spin != nil {
		tc.OnStatus = retries.Status
	}
	if *f.watch {
		tc.Events = append(tc.Events, reloadNotices(out))
	}
	res, runErr := taskrun.RunTask(ctx, tc)
	if res.TracePath == "" {
		// Refused before anything was contacted: nothing ran, and no trace was made.
		return runErr
	}
	if spin != nil {
		spin.Stop()
	}
	showAudit(show, res.AuditErrors, res.Findings)
	if res.Dream != nil {
		showDream(show, res.Dream)
	}
	// From here the run has a trace, and what is said is its result: how it ended, its
	// error (recorded in the trace too), Megrams memory lost, a trace cut short. The
	// status reports that result; the trace's own messages say it last.
	end := traceEnd{head: res.TraceHead, lines: res.TraceLines, cut: res.TraceCut}
	code := show.finish(io, res.TaskResult, runErr, res.TracePath, end, res.Pipeline)
	if res.SignedBy != "" && !*f.asJSON {
		fmt.Fprintf(io.out, "trace signed by %s\n", res.SignedBy)
	}
	if err := res.MemoryLost(*f.memDir); err != nil {
		fmt.Fprintf(io.err, "spine run: %v\n", err)
		if code == exitOK { // a run that already failed keeps its status
			code = exitMemoryLost
		}
	}
	code = sendRunTrace(ctx, io, *f.otlp, res.TracePath, *f.asJSON, code)
	return exitStatus(traceIncomplete(io, res.TracePath, end, res.Final, code))
}

// runDisplay prints the run as it goes: every message, the roles' and GGS's, through
// the pipeline display of `spine play`; or every message as a JSON line.
type runDisplay struct {
	w        io.Writer
	json     *json.Encoder
	pipeline *pipelineDisplay
}

func newRunDisplay(w io.Writer, rs *ruleset.RuleSet, asJSON bool) *runDisplay {
	d := &runDisplay{w: w}
	if asJSON {
		d.json = json.NewEncoder(w)
		d.json.SetEscapeHTML(false)
		return d
	}
	eps := 0.1
	if p, err := ggs.ParamsFrom(rs); err == nil {
		eps = p.Epsilon
	}
	d.pipeline = &pipelineDisplay{w: w, epsilon: eps}
	return d
}

func (d *runDisplay) message(m trace.Message) {
	if d.json != nil {
		_ = d.json.Encode(m)
		return
	}
	d.pipeline.message(m)
}

// outcomeLine is R4a's final state of a subtask: the mark, how many criteria passed, the
// attempts, and the first failed criterion with its class.
func outcomeLine(o *contract.SubTaskOutcome) string {
	passed, failed := o.Tally()
	n, attempts := len(o.CriteriaVerdicts), len(o.GapTrajectory)
	switch {
	case o.Status == contract.OutcomeMatched:
		return fmt.Sprintf("✓ matched · %d/%d criteria · %d attempt(s)", passed, n, attempts)
	case failed != nil:
		return fmt.Sprintf("✗ failed · %d/%d criteria · %d attempt(s) · %q (%s)", passed, n, attempts, oneLine(failed.Criterion, 60), failed.Class())
	case o.FailureReason != nil:
		return "✗ " + oneLine(*o.FailureReason, 90)
	}
	return "✗ failed"
}

// finish prints how the run ended and returns the exit status: 0 when the task was
// accepted or succeeded, 1 otherwise.
func (d *runDisplay) finish(io stdio, res ggsrun.TaskResult, runErr error, path string, end traceEnd, p *roles.Pipeline) int {
	if d.json != nil {
		_ = d.json.Encode(struct {
			taskrun.Summary
			Cut *traceCut `json:"trace_incomplete,omitempty"`
		}{taskrun.Summarize(res, path, p, runErr), end.json()})
	} else {
		sum := taskrun.Summarize(res, path, p, runErr)
		fmt.Fprintln(io.out)
		if res.Failure != nil {
			// The FinalResult's lines above gave its summary and next moves: once is enough.
			if details := termFailure(res.Failure).Details(); details != "" {
				fmt.Fprint(io.out, details)
				fmt.Fprintln(io.out)
			}
		}
		fmt.Fprintf(io.out, "%s: %s (objective %s) after %d iteration(s) · %d model call(s), %d tokens\n",
			res.Result.Run, res.Result.Outcome, res.Result.Objective, res.Result.Iterations, sum.Calls, sum.Usage.TotalTokens)
		switch {
		case end.cut != nil:
			fmt.Fprintf(io.out, "the trace in %s is incomplete: it ends at line %d\n", path, end.lines)
		case taskrun.Canceled(runErr):
			fmt.Fprintf(io.out, "stopped on request; the trace up to that point is in %s\n", path)
			fmt.Fprintf(io.out, "Resume it: spine resume %s\n", path)
		default:
			fmt.Fprintf(io.out, "trace written to %s\n", path)
		}
		fmt.Fprintf(io.out, "Replay and check it: spine replay --check %s\n", path)
		if end.head != "" {
			// The chain shows an edit inside the file; this copy outside it shows a file
			// rewritten whole or cut short. It is the last line on the file, not the last
			// one encoded.
			fmt.Fprintf(io.out, "Its last line's hash is %s: keep it to tell whether the file is ever rewritten\n", end.head)
		}
	}
	if runErr != nil && !taskrun.Canceled(runErr) {
		fmt.Fprintf(io.err, "spine run: %v\n", runErr) // the run's error, after the result it ended
	}
	if taskrun.Accepted(res, runErr) {
		return exitOK
	}
	return exitFail
}
