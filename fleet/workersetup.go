package fleet

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

// WorkerSetup is what a worker process is given besides its WorkerConfig (spine
// worker's flags): how its tasks run, and what it keeps beside them.
type WorkerSetup struct {
	// Demo runs every task on the demo's project with a stand-in for the model
	// (DemoPrepare); else the tasks run on the model endpoint the configuration file,
	// the environment and Endpoint give, as for spine run.
	Demo                  bool
	NoSandbox             bool
	RulesPath, ConfigPath string
	Endpoint              llm.Overrides
	// MemoryDir, when set, is the worker's memory store, an index of the fleet's Megram
	// log shared under the worker's name; LeaseTTL is the Dreamer's lease.
	MemoryDir string
	LeaseTTL  time.Duration
	// Snapshots turns on work-dir snapshots into SnapshotDir(WorkdirRoot).
	Snapshots bool
	Warn      func(string)

	llm *llm.Config // the worker's model configuration, set by Tasks; nil for a demo
}

// ConfigError is a worker's own model configuration that does not load (a file, a
// variable or a flag): the worker takes no task, and its host reports it as a usage
// error. Err wraps llm.ErrNoEndpoint when no endpoint is configured at all.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// DemoPrepare runs every task as `spine worker --demo` does.
func DemoPrepare(rs *ruleset.RuleSet, noSandbox bool) PrepareFunc {
	return func(_ context.Context, _ Task, workdir string) (taskrun.Config, error) {
		return scripted.DemoTaskConfig(workdir, rs, noSandbox)
	}
}

// Tasks sets cfg.Prepare, checking before any task is taken (and before connecting)
// that the worker can run them: its rules load, and unless Demo, it can isolate tools
// (CheckIsolation) and its model configuration loads (else a *ConfigError).
func (s *WorkerSetup) Tasks(cfg *WorkerConfig) error {
	rs, err := taskrun.LoadRules(s.RulesPath)
	if err != nil {
		return err
	}
	if s.Demo {
		cfg.Prepare = DemoPrepare(rs, s.NoSandbox)
		return nil
	}
	if err := CheckIsolation(s.NoSandbox); err != nil {
		return err
	}
	m, err := llm.LoadEndpointConfig(llm.Sources{File: s.ConfigPath, Getenv: os.LookupEnv, Flags: s.Endpoint})
	if err != nil {
		return &ConfigError{err}
	}
	s.llm = &m
	cfg.Prepare = LiveTasks{Rules: rs, RulesPath: s.RulesPath, LLM: m, ConfigPath: s.ConfigPath, NoSandbox: s.NoSandbox, Warn: s.Warn}.Prepare()
	return nil
}

// SnapshotDir is the store a worker snapshots its runs' work dirs into: under its work
// dir root, beside (never inside) the task dirs, so `spine snapshot gc --store
// ROOT/.snapshots --traces ROOT` sees every trace that records its roots.
func SnapshotDir(workdirRoot string) string { return filepath.Join(workdirRoot, ".snapshots") }

// Equip completes cfg with what s asks for beside the runs (snapshots, memory), and with
// the resume every worker of the fleet does (taskrun.ResumePartial: a redelivered task
// continues from the lines its superseded attempt stored). The closer closes what it
// opened.
func (c *Client) Equip(ctx context.Context, cfg *WorkerConfig, s WorkerSetup) (func(), error) {
	cfg.Resume = taskrun.ResumePartial
	if s.Snapshots {
		st, err := snapshot.Open(SnapshotDir(cfg.WorkdirRoot))
		if err != nil {
			return nil, err
		}
		cfg.Snapshots = st
	}
	if s.MemoryDir == "" {
		return func() {}, nil
	}
	if cfg.Name == "" { // the store is shared under the worker's name
		cfg.Name = DefaultWorkerName()
	}
	sm, closeMem, err := c.OpenWorkerMemory(ctx, s.MemoryDir, cfg.Name, s.LeaseTTL, s.llm)
	if err != nil {
		return nil, err
	}
	cfg.Memory = sm
	return closeMem, nil
}

// RunUntilSignalled is RunGraceful on the process's interrupts and SIGTERM.
func (w *Worker) RunUntilSignalled(ctx context.Context, onStop func()) error {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	return w.RunGraceful(ctx, sig, onStop)
}
