package scripted

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scenario"
	"github.com/agentspine/spine/taskrun"
)

// Designed is a designed scenario of either kind, as `spine play` takes it: gate signals
// for any rule set (Signals), or R4b reports for the GGS loop (Reports).
type Designed struct {
	Name, Description string
	Rules             string // the rule file it names: a shipped one, or relative to its file
	Signals           *scenario.Scenario
	Reports           *Scenario
}

// ReadDesigned reads the scenario file at path (ParseDesigned); a file that cannot be
// read is its *fs.PathError, an empty one is said so.
func ReadDesigned(path string) (*Designed, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, fmt.Errorf("%s: the file is empty; expected a scenario: a mapping with name, rules and rounds", path)
	}
	return ParseDesigned(path, src)
}

// ParseDesigned tells the two kinds apart by the GGS kind's task key.
func ParseDesigned(name string, src []byte) (*Designed, error) {
	var top map[string]any
	if err := yaml.Unmarshal(src, &top); err == nil {
		if _, ok := top["task"]; ok {
			sc, err := Parse(name, src)
			if err != nil {
				return nil, err
			}
			return &Designed{Name: sc.Name, Description: sc.Description, Rules: sc.Rules, Reports: sc}, nil
		}
	}
	sc, err := scenario.Parse(name, src)
	if err != nil {
		return nil, err
	}
	return &Designed{Name: sc.Name, Description: sc.Description, Rules: sc.Rules, Signals: sc}, nil
}

// LoadRules loads override when given, else the rule file the scenario names: a shipped
// one by name, or a path relative to dir, the scenario's directory.
func (d *Designed) LoadRules(override, dir string) (*ruleset.RuleSet, error) {
	if override != "" {
		return engine.LoadRulesFile(override)
	}
	if d.Rules == "" {
		return nil, fmt.Errorf("scenario %q names no rule file; pass --rules", d.Name)
	}
	if _, err := fs.Stat(rules.FS, d.Rules); err == nil {
		return engine.LoadRulesFS(rules.FS, d.Rules)
	}
	return engine.LoadRulesFile(filepath.Join(dir, d.Rules))
}

// DemoScenario is `spine demo`'s task, among the fixtures: a replan through
// change_path, then success.
const DemoScenario = "ggs/change_path_then_success.yaml"

// Demo is the demo's scenario and the shipped rules it names.
func Demo() (*Designed, *ruleset.RuleSet, error) {
	src, err := fs.ReadFile(fixtures.FS, DemoScenario)
	if err != nil {
		return nil, nil, err
	}
	d, err := ParseDesigned("fixtures/"+DemoScenario, src)
	if err != nil {
		return nil, nil, err
	}
	rs, err := engine.LoadRulesFS(rules.FS, d.Rules)
	return d, rs, err
}

// PlayConfig is where a designed play writes and who watches it.
type PlayConfig struct {
	TracePath string // "" for <name>.trace.jsonl, never overwritten
	// MemoryDir lets GGS write its Megrams to a LevelDB store (GGS scenarios only).
	MemoryDir string
	// OnMessage sees a GGS scenario's messages; Events every event as written.
	OnMessage func(trace.Message)
	Events    []ggsrun.EventObserver
}

// PlayOutcome is what a play left: its trace and, for a signal scenario, the sidecars.
type PlayOutcome struct {
	TracePath             string // "" when the play was refused before its trace
	Result                trace.Halt
	Scorecard, Candidates string
	// OutOfRounds: the rules went on past the GGS scenario's last round. The trace ends
	// in the FinalResult the rules decided for the failed round; the play is not an error.
	OutOfRounds *OutOfRoundsError
}

// PlayDesigned plays d with rs: a signal scenario through scenario.Run, whose scorecard
// and candidates are written beside the trace, or a GGS scenario through Play. An error
// with no TracePath is a refusal; with one, the trace is there and the error is the play's.
func PlayDesigned(ctx context.Context, d *Designed, rs *ruleset.RuleSet, pc PlayConfig) (PlayOutcome, error) {
	out := PlayOutcome{TracePath: pc.TracePath}
	if out.TracePath == "" {
		out.TracePath = taskrun.FreshPath(d.Name + ".trace.jsonl")
	}
	var opts []ggs.Option
	if pc.MemoryDir != "" {
		if d.Reports == nil {
			return PlayOutcome{}, fmt.Errorf("memory applies to GGS scenarios only")
		}
		store, err := memory.OpenLevelDB(pc.MemoryDir, memory.Options{Clock: clock.System{}})
		if err != nil {
			return PlayOutcome{}, err
		}
		defer store.Close()
		w, err := store.WriterFor(memory.RoleGGS)
		if err != nil {
			return PlayOutcome{}, err
		}
		opts = append(opts, ggs.WithMemory(w, clock.System{}, engine.RandomIDs{}))
	}
	if d.Signals != nil {
		if err := scenario.CheckSidecarsFree(out.TracePath); err != nil {
			return PlayOutcome{}, err
		}
	}
	file, err := trace.CreateFileSink(out.TracePath)
	if err != nil {
		return PlayOutcome{}, err
	}
	var runErr error
	var rep *scenario.Report
	if d.Signals != nil {
		rep, runErr = scenario.Run(ctx, d.Signals, rs, ggsrun.Observe(file, pc.Events...))
		out.Result = rep.Result
	} else {
		out.Result, _, runErr = play(ctx, d.Reports, rs, file, pc.OnMessage, pc.Events, opts...)
		if errors.As(runErr, &out.OutOfRounds) {
			runErr = nil
		}
	}
	if err := file.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if rep != nil {
		var err error
		if out.Scorecard, out.Candidates, err = rep.WriteSidecars(out.TracePath); err != nil && runErr == nil {
			runErr = err
		}
	}
	return out, runErr
}
