package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/runview"
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
			watch:      fs.Bool("watch", false, "with --rules: reload the rule file when it changes, at the next cycle boundary"),
			caution:    fs.String("caution", "", "with no terminal to ask, what to do with a call memory advises caution for: `refuse|allow|log` (log: allow and warn; default: the rules' caution param, refuse as shipped)"),
			noSandbox:  fs.Bool("no-sandbox", false, "run tools UNCONFINED when this machine cannot isolate them (printed in red, recorded in the trace)"),
			maxIter:    fs.Int("max-iterations", 20, "bound the run to `N` rounds; a run that reaches it is abandoned by a rule (reason iteration_bound)"),
			memCorrupt: fs.String("memory-corrupt", taskrun.MemoryCorruptRefuse, "when the --memory store is corrupt: `refuse|skip` (skip: run without memory, with a warning)"),
			otlp:       fs.String("otlp", "", "when the run ends, send its trace to this OTLP/HTTP `URL` (e.g. http://localhost:4318; headers from $OTEL_EXPORTER_OTLP_HEADERS)"),
		}
		f.endpoint.declare(fs, endpointHelp{
			baseURL: "OpenAI-compatible endpoint `URL`, e.g. http://localhost:11434/v1 (default: $OPENAI_BASE_URL or OpenAI)",
			model:   "`NAME` of the model for every role without one of its own (default: $SPINE_MODEL)",
			config:  "YAML model configuration `FILE` (base_url, api_key, model, tiers, roles)",
		})
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
	workdir, rulesPath, memDir, tracePath, caution, otlp, signKey, memCorrupt *string
	maxIter                                                                   *int
	asJSON, watch, noSandbox, snapshot                                        *bool
	endpoint                                                                  endpointFlags
	allowNet                                                                  sandbox.NetRules
	mcp                                                                       mcp.ServerFlags
	snapshotSet                                                               bool
}

// endpointFlags are where the models are: --base-url, --model and --config, for every
// command that calls a model (run, resume, fork, memory dream, mcp serve).
type endpointFlags struct{ baseURL, model, config string }

// endpointHelp is each flag's help in one command; a flag without one is not declared.
type endpointHelp struct{ baseURL, model, config string }

func (e *endpointFlags) declare(fs *pflag.FlagSet, h endpointHelp) {
	for _, f := range []struct {
		v          *string
		name, help string
	}{{&e.baseURL, "base-url", h.baseURL}, {&e.model, "model", h.model}, {&e.config, "config", h.config}} {
		if f.help != "" {
			fs.StringVar(f.v, f.name, "", f.help)
		}
	}
}

// load is the model configuration of the flags, the config file and the environment;
// def fills in what the flags leave empty (the endpoint and model a trace records).
func (e *endpointFlags) load(def llm.Overrides) (llm.Config, error) {
	o := llm.Overrides{BaseURL: cmp.Or(e.baseURL, def.BaseURL), Model: cmp.Or(e.model, def.Model)}
	return llm.LoadEndpointConfig(llm.Sources{File: e.config, Getenv: os.LookupEnv, Flags: o})
}

// runTask is spine run: it checks the flags, loads the model configuration and the
// rules, runs the task through taskrun and shows it. A refusal before the run is its
// error; once the run has a trace, the display says how it went and the exit status
// reports that result.
func runTask(ctx context.Context, io stdio, f *runFlags, args []string) error {
	raw := strings.Join(args, " ")
	if strings.TrimSpace(raw) == "" {
		return cli.Usagef(`expected the task text, e.g. spine run "summarise the TODOs in this repository"`)
	}
	tc := taskrun.Config{Task: raw, Workdir: *f.workdir, ConfigPath: f.endpoint.config, RulesPath: *f.rulesPath, Watch: *f.watch,
		MaxIterations: *f.maxIter, MemoryDir: *f.memDir, TracePath: *f.tracePath, AllowNet: f.allowNet, NoSandbox: *f.noSandbox,
		CautionPolicy: *f.caution, SignKey: *f.signKey, MemoryCorrupt: *f.memCorrupt, Warn: func(msg string) { warn(io, msg) }}
	if *f.maxIter < 1 { // 0 is the library's "the engine's default", not a bound a user asks for
		return cli.Usagef("--max-iterations %d: expected at least 1", *f.maxIter)
	}
	if err := tc.Validate(); err != nil {
		return cli.Usagef("--%v", err)
	}
	if *f.otlp != "" {
		if _, err := telemetry.ParseURL(*f.otlp, false); err != nil {
			return cli.Usagef("--otlp: %v", err)
		}
	}
	if *f.watch && *f.rulesPath == "" {
		return cli.Usagef("--watch needs --rules FILE (the shipped rules are built in; copy rules/ggs.yaml and edit the copy)")
	}
	var err error
	tc.LLM, err = f.endpoint.load(llm.Overrides{})
	switch {
	case errors.Is(err, llm.ErrNoEndpoint):
		return cli.Fail(exitUsage, fmt.Errorf("%w%s", err, llm.HowToConfigure))
	case err != nil:
		return cli.Fail(exitUsage, fmt.Errorf("%w\n(spine run --help lists the flags; spine demo needs no model)", err))
	}
	if tc.Rules, err = taskrun.LoadRules(*f.rulesPath); err != nil {
		return err
	}
	if tc.MCPServers, err = mcp.ConfigServers(f.endpoint.config, f.mcp); err != nil {
		return cli.Fail(exitUsage, err)
	}

	// The display: JSON lines, or the pipeline with a spinner and prompts on a terminal.
	show := runview.NewLive(runview.Streams{In: io.in, Text: io.out, Raw: io.rawOut, Err: io.err, Interactive: true}, tc.Rules, *f.asJSON)
	defer show.Stop()
	ctx = show.Wire(ctx, &tc)
	// A run with shared memory cannot be resumed or forked: its snapshots would serve
	// nothing, so they are taken only when asked for.
	if tc.Snapshots, err = runSnapshots(io, *f.snapshot && (*f.memDir == "" || f.snapshotSet), f.snapshotSet, *f.workdir); err != nil {
		return err
	}
	if *f.watch {
		tc.Events = append(tc.Events, textview.ReloadNotices(show.Out))
	}
	res, runErr := taskrun.RunTask(ctx, tc)
	if res.TracePath == "" {
		// Refused before anything was contacted: nothing ran, and no trace was made.
		return runErr
	}
	show.Stop()
	show.Audit(res.AuditErrors, res.Findings)
	if res.Dream != nil {
		show.Dream(res.Dream)
	}
	// From here the run has a trace, and what is said is its result: how it ended, its
	// error (recorded in the trace too), Megrams memory lost, a trace cut short. The
	// status reports that result; the trace's own messages say it last.
	code := runCode(show.Finish(io.out, io.err, res, runErr))
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
	return cli.Exit(traceIncomplete(io, res, code))
}
