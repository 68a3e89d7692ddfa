package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentspine/spine/effectors/scenario"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine"
)

func init() {
	register(&command{
		name:    "play",
		summary: "run a rule set against a designed signal scenario (no model) and write its trace",
		usage:   "[--rules FILE] [--trace FILE] [--quiet] [--all] SCENARIO",
		run:     runPlay,
	})
}

func runPlay(ctx context.Context, io stdio, args []string) int {
	c := commands["play"]
	fs := newFlags(c, io)
	rulesPath := fs.String("rules", "", "rule file to use instead of the one the scenario names")
	tracePath := fs.String("trace", "", "trace file to create (default: <scenario name>.trace.jsonl, never overwritten)")
	quiet := fs.Bool("quiet", false, "do not print the timeline")
	all := fs.Bool("all", false, "timeline shows every rule evaluation and state change")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, "spine play: expected one scenario file")
		return exitUsage
	}
	sc, err := scenario.ParseFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	rs, err := scenarioRules(*rulesPath, sc, filepath.Dir(fs.Arg(0)))
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	return playScenario(ctx, io, sc, rs, *tracePath, *quiet, *all)
}

// scenarioRules loads --rules when given, else the rule file the scenario names: a
// shipped one by name, or a path relative to the scenario's directory.
func scenarioRules(override string, sc *scenario.Scenario, dir string) (*spine.RuleSet, error) {
	if override != "" {
		return spine.LoadRulesFile(override)
	}
	if sc.Rules == "" {
		return nil, fmt.Errorf("scenario %q names no rule file; pass --rules", sc.Name)
	}
	if _, err := fs.Stat(rules.FS, sc.Rules); err == nil {
		return spine.LoadRulesFS(rules.FS, sc.Rules)
	}
	return spine.LoadRulesFile(filepath.Join(dir, sc.Rules))
}

func playScenario(ctx context.Context, io stdio, sc *scenario.Scenario, rs *spine.RuleSet, tracePath string, quiet, all bool) int {
	if tracePath == "" {
		tracePath = freshPath(sc.Name + ".trace.jsonl")
	}
	file, err := spine.CreateFileSink(tracePath)
	if err != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", err)
		return exitFail
	}
	var sink spine.Sink = file
	if !quiet {
		sink = &timelineSink{next: file, tl: &timeline{w: io.out, all: all}}
	}
	res, runErr := scenario.Play(ctx, sc, rs, sink)
	if err := file.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintf(io.out, "\n%s: %s (objective %s) after %d iteration(s), %d rule firing(s)\n", sc.Name, res.Outcome, res.Objective, res.Iterations, res.Firings)
	fmt.Fprintf(io.out, "trace written to %s\n", tracePath)
	if runErr != nil {
		fmt.Fprintf(io.err, "spine play: %v\n", runErr)
		return exitFail
	}
	return exitOK
}

// freshPath returns path, or path with -2, -3, … before its extension, whichever does not
// exist yet: a run never overwrites an earlier trace.
func freshPath(path string) string {
	ext := filepath.Ext(path)
	base := path[:len(path)-len(ext)]
	if filepath.Ext(base) == ".trace" {
		ext = ".trace" + ext
		base = base[:len(base)-len(".trace")]
	}
	for i := 1; ; i++ {
		p := path
		if i > 1 {
			p = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
}

func init() {
	register(&command{
		name:    "demo",
		summary: "run a shipped scenario end to end with no API key and no network",
		usage:   "[--trace FILE] [--quiet]",
		run:     runDemo,
	})
}

const demoScenario = "harness/promote.yaml"

func runDemo(ctx context.Context, io stdio, args []string) int {
	c := commands["demo"]
	flags := newFlags(c, io)
	tracePath := flags.String("trace", "", "trace file to create (default: spine-demo.trace.jsonl, never overwritten)")
	quiet := flags.Bool("quiet", false, "do not print the timeline")
	if code, done := parseFlags(flags, args); done {
		return code
	}
	src, err := fs.ReadFile(fixtures.FS, demoScenario)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	sc, err := scenario.Parse("fixtures/"+demoScenario, src)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	rs, err := spine.LoadRulesFS(rules.FS, sc.Rules)
	if err != nil {
		fmt.Fprintf(io.err, "spine demo: %v\n", err)
		return exitFail
	}
	path := *tracePath
	if path == "" {
		path = freshPath("spine-demo.trace.jsonl")
	}
	fmt.Fprintf(io.out, "Scenario %s (designed signals, no model): %s\n\n", sc.Name, sc.Description)
	code := playScenario(ctx, io, sc, rs, path, *quiet, false)
	if code == exitOK {
		fmt.Fprintf(io.out, "\nSee the whole trace:  spine trace show --all %s\n", path)
	}
	return code
}
