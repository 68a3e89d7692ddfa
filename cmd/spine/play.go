package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scenario"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "play [flags] SCENARIO",
			Short: "run a rule set against a designed scenario (no model) and write its trace",
		}
		fs := c.Flags()
		rulesPath := fs.String("rules", "", "rule `FILE` to use instead of the one the scenario names")
		tracePath := fs.String("trace", "", "trace `FILE` to create (default: <scenario name>.trace.jsonl, never overwritten)")
		quiet := fs.Bool("quiet", false, "print only the result, not the run as it goes")
		all := fs.Bool("all", false, "show the rule timeline (every evaluation and state change) instead of the pipeline")
		memDir := fs.String("memory", "", "GGS scenarios: let GGS write its Megrams to the LevelDB memory store in `DIR`")
		opts := &playFlags{
			rulesPath: rulesPath,
			tracePath: tracePath,
			quiet:     quiet,
			all:       all,
			memDir:    memDir,
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return exitStatus(runPlay(c.Context(), io, fs, opts))
		}
		return c
	})
}

// playFlags are spine play's flags.
type playFlags struct {
	rulesPath *string
	tracePath *string
	quiet     *bool
	all       *bool
	memDir    *string
}

// designed is a parsed scenario of either kind: gate signals for any rule set, or R4b
// reports for the GGS loop.
type designed struct {
	name, description, rules string
	signals                  *scenario.Scenario
	reports                  *scripted.Scenario
}

// parseDesigned tells the two scenario kinds apart by the GGS kind's task key.
func parseDesigned(name string, src []byte) (*designed, error) {
	var top map[string]any
	if err := yaml.Unmarshal(src, &top); err == nil {
		if _, ok := top["task"]; ok {
			sc, err := scripted.Parse(name, src)
			if err != nil {
				return nil, err
			}
			return &designed{name: sc.Name, description: sc.Description, rules: sc.Rules, reports: sc}, nil
		}
	}
	sc, err := scenario.Parse(name, src)
	if err != nil {
		return nil, err
	}
	return &designed{name: sc.Name, description: sc.Description, rules: sc.Rules, signals: sc}, nil
}

func runPlay(ctx context.Context, io stdio, fs *pflag.FlagSet, pf *playFlags) int {
	rulesPath, tracePath, quiet, all, memDir := pf.rulesPath, pf.tracePath, pf.quiet, pf.all, pf.memDir
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, "spine play: expected one scenario file")
		return exitUsage
	}
	src, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	d, err := parseDesigned(fs.Arg(0), src)
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	rs, err := scenarioRules(*rulesPath, d, filepath.Dir(fs.Arg(0)))
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	var opts []ggs.Option
	if *memDir != "" {
		if d.reports == nil {
			fmt.Fprintln(io.err, "spine play: --memory applies to GGS scenarios only")
			return exitUsage
		}
		store, err := memory.OpenLevelDB(*memDir, memory.Options{Clock: clock.System{}})
		if err != nil {
			fmt.Fprintf(io.err, "spine play: %v\n", err)
			return exitFail
		}
		defer store.Close()
		w, err := store.WriterFor(memory.RoleGGS)
		if err != nil {
			fmt.Fprintf(io.err, "spine play: %v\n", err)
			return exitFail
		}
		opts = append(opts, ggs.WithMemory(w, clock.System{}, engine.RandomIDs{}))
	}
	return playDesigned(ctx, io, d, rs, *tracePath, *quiet, *all, opts...)
}

// scenarioRules loads --rules when given, else the rule file the scenario names: a
// shipped one by name, or a path relative to the scenario's directory.
func scenarioRules(override string, d *designed, dir string) (*engine.RuleSet, error) {
	if override != "" {
		return engine.LoadRulesFile(override)
	}
	if d.rules == "" {
		return nil, fmt.Errorf("scenario %q names no rule file; pass --rules", d.name)
	}
	if _, err := fs.Stat(rules.FS, d.rules); err == nil {
		return engine.LoadRulesFS(rules.FS, d.rules)
	}
	return engine.LoadRulesFile(filepath.Join(dir, d.rules))
}

func playDesigned(ctx context.Context, io stdio, d *designed, rs *engine.RuleSet, tracePath string, quiet, all bool, ggsOpts ...ggs.Option) int {
	if tracePath == "" {
		tracePath = taskrun.FreshPath(d.name + ".trace.jsonl")
	}
	if d.signals != nil {
		if err := sidecarsFree(tracePath); err != nil {
			fmt.Fprintf(io.err, "spine play: %v\n", err)
			return exitFail
		}
	}
	file, err := trace.CreateFileSink(tracePath)
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	var sink trace.Sink = file
	// Signal scenarios show the rule timeline; GGS runs show the pipeline of messages,
	// or the rule timeline with --all.
	if !quiet && (d.signals != nil || all) {
		sink = &timelineSink{next: file, tl: &timeline{w: io.out, all: all}}
	}
	var res engine.Result
	var runErr error
	var rep *scenario.Report // a signal scenario's scorecard and candidates
	if d.signals != nil {
		rep, runErr = scenario.Run(ctx, d.signals, rs, sink)
		res = rep.Result
	} else {
		var onMessage func(trace.Message)
		if !quiet && !all {
			p, perr := ggs.ParamsFrom(rs)
			if perr != nil {
				fmt.Fprintf(io.err, "spine play: %v\n", perr)
				return exitFail
			}
			onMessage = (&pipelineDisplay{w: io.out, epsilon: p.Epsilon}).message
		}
		res, _, runErr = scripted.Play(ctx, d.reports, rs, sink, onMessage, ggsOpts...)
	}
	if err := file.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintln(io.out)
	printLine(io.out, "%s: %s (objective %s) after %d iteration(s), %d rule firing(s)", d.name, res.Outcome, res.Objective, res.Iterations, res.Firings)
	fmt.Fprintf(io.out, "trace written to %s\n", tracePath)
	if rep != nil {
		if err := writeSidecars(io, tracePath, rep); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", runErr)
		return exitFail
	}
	return exitOK
}

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "demo [flags]",
			Short: "run a shipped multi-round task end to end with no API key and no network (--pipeline: R1–R4b, real tools, memory, Auditor)",
		}
		flags := c.Flags()
		tracePath := flags.String("trace", "", "trace `FILE` to create (default: spine-demo.trace.jsonl, never overwritten)")
		quiet := flags.Bool("quiet", false, "print only the result")
		all := flags.Bool("all", false, "show the rule timeline instead of the pipeline")
		pipeline := flags.Bool("pipeline", false, "run R1–R4b on a tiny project in a temporary work dir, with scripted replies for the roles and the real tools, memory and Auditor (default trace: "+pipelineDemoTrace+")")
		signKey := flags.String("sign-key", "", "with --pipeline: sign the trace with this ed25519 private key `FILE` (spine keygen)")
		opts := &demoFlags{
			signKey:   signKey,
			tracePath: tracePath,
			quiet:     quiet,
			all:       all,
			pipeline:  pipeline,
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return exitStatus(runDemo(c.Context(), io, flags, opts))
		}
		return c
	})
}

// demoFlags are spine demo's flags.
type demoFlags struct {
	signKey   *string
	tracePath *string
	quiet     *bool
	all       *bool
	pipeline  *bool
}

// demoScenario is the demo's task: a replan through change_path, then success.
const demoScenario = "ggs/change_path_then_success.yaml"

func runDemo(ctx context.Context, io stdio, flags *pflag.FlagSet, opts *demoFlags) int {
	tracePath, quiet, all, pipeline := opts.tracePath, opts.quiet, opts.all, opts.pipeline
	if *pipeline {
		return runDemoPipeline(ctx, io, *tracePath, *quiet, *all, *opts.signKey)
	}
	if *opts.signKey != "" {
		fmt.Fprintln(io.err, "spine demo: --sign-key needs --pipeline (the scenario demo writes its trace without the run library)")
		return exitUsage
	}
	src, err := fs.ReadFile(fixtures.FS, demoScenario)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	d, err := parseDesigned("fixtures/"+demoScenario, src)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	rs, err := engine.LoadRulesFS(rules.FS, d.rules)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	path := *tracePath
	if path == "" {
		path = taskrun.FreshPath("spine-demo.trace.jsonl")
	}
	fmt.Fprintf(io.out, "Task %q, played from a designed scenario (scripted R4b reports; no model is called).\n", d.reports.Task.Intent)
	fmt.Fprintf(io.out, "GGS decides every round with the rules of rules/%s.\n\n", d.rules)
	code := playDesigned(ctx, io, d, rs, path, *quiet, *all)
	if code == exitOK {
		fmt.Fprintf(io.out, "\nRead the trace:      spine trace show %s\n", path)
		fmt.Fprintf(io.out, "Replay and check it: spine replay --check %s\n", path)
		fmt.Fprintf(io.out, "Try other rules:     spine play --rules my-ggs.yaml fixtures/%s  (a copy of rules/ggs.yaml, edited)\n", demoScenario)
		fmt.Fprintln(io.out, explainHint)
	}
	return code
}
