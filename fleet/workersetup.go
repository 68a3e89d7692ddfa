package fleet

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/taskrun"
)

// ConfigError is a worker's own model configuration that does not load (a file, a
// variable or a flag): the worker takes no task, and its host reports it as a usage
// error. Err wraps llm.ErrNoEndpoint when no endpoint is configured at all.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// NewLiveTasks checks, before any task is taken, that the worker can isolate tools
// (CheckIsolation) and loads its model configuration as spine run does (configPath,
// the environment, flags): the LiveTasks its tasks run with.
func NewLiveTasks(rs *ruleset.RuleSet, rulesPath, configPath string, flags llm.Overrides, noSandbox bool, warn func(string)) (LiveTasks, error) {
	if err := CheckIsolation(noSandbox); err != nil {
		return LiveTasks{}, err
	}
	cfg, err := llm.LoadEndpointConfig(llm.Sources{File: configPath, Getenv: os.LookupEnv, Flags: flags})
	if err != nil {
		return LiveTasks{}, &ConfigError{err}
	}
	return LiveTasks{Rules: rs, RulesPath: rulesPath, LLM: cfg, ConfigPath: configPath, NoSandbox: noSandbox, Warn: warn}, nil
}

// WorkerExtras are what a worker keeps besides its runs.
type WorkerExtras struct {
	// MemoryDir, when set, is the worker's memory store, an index of the fleet's Megram
	// log shared under the worker's name (made HOST-PID when cfg has none); LeaseTTL is
	// the Dreamer's lease, Distil the model that words its consolidations (nil: none).
	MemoryDir string
	LeaseTTL  time.Duration
	Distil    *llm.Config
	// Snapshots turns on work-dir snapshots into SnapshotDir(cfg.WorkdirRoot).
	Snapshots bool
}

// SnapshotDir is the store a worker snapshots its runs' work dirs into: under its work
// dir root, beside (never inside) the task dirs, so `spine snapshot gc --store
// ROOT/.snapshots --traces ROOT` sees every trace that records its roots.
func SnapshotDir(workdirRoot string) string { return filepath.Join(workdirRoot, ".snapshots") }

// Equip completes cfg with what x asks for, and with the resume every worker of the
// fleet does (taskrun.ResumePartial: a redelivered task continues from the lines its
// superseded attempt stored). The closer closes what it opened.
func (c *Client) Equip(ctx context.Context, cfg *WorkerConfig, x WorkerExtras) (func(), error) {
	cfg.Resume = taskrun.ResumePartial
	if x.Snapshots {
		s, err := snapshot.Open(SnapshotDir(cfg.WorkdirRoot))
		if err != nil {
			return nil, err
		}
		cfg.Snapshots = s
	}
	if x.MemoryDir == "" {
		return func() {}, nil
	}
	if cfg.Name == "" { // the store is shared under the worker's name
		cfg.Name = DefaultWorkerName()
	}
	sm, closeMem, err := c.OpenWorkerMemory(ctx, x.MemoryDir, cfg.Name, x.LeaseTTL, x.Distil)
	if err != nil {
		return nil, err
	}
	cfg.Memory = sm
	return closeMem, nil
}
