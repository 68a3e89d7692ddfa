package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/taskrun"
)

// LiveTasks is how a worker runs tasks on a model endpoint: the worker's rules and model
// configuration, the file it came from (kept out of the sandbox), and its isolation.
type LiveTasks struct {
	Rules      *ruleset.RuleSet
	RulesPath  string
	LLM        llm.Config
	ConfigPath string
	NoSandbox  bool
	Warn       func(string)
}

// CheckIsolation refuses a worker that cannot isolate tools, unless noSandbox: it must
// not take tasks it can only fail, so it refuses to start, as spine run refuses before
// any model call.
func CheckIsolation(noSandbox bool) error {
	if noSandbox {
		return nil
	}
	if _, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{}); err != nil {
		return fmt.Errorf("this machine cannot sandbox R3's tools, so the worker takes no tasks: %w\n(--no-sandbox runs them unconfined, recorded in every trace)", err)
	}
	return nil
}

// Prepare is a task's run configuration: the worker's, with the task's model when it
// names one and its caution policy. The task's --allow-net is the worker's to decide
// (NetPolicy), not Prepare's.
func (l LiveTasks) Prepare() PrepareFunc {
	return func(_ context.Context, t Task, _ string) (taskrun.Config, error) {
		cfg := l.LLM
		if t.Options.Model != "" {
			var err error
			if cfg, err = l.LLM.With(llm.Overrides{Model: t.Options.Model}); err != nil {
				return taskrun.Config{}, fmt.Errorf("the task's --model %s: %w", t.Options.Model, err)
			}
		}
		return taskrun.Config{LLM: cfg, ConfigPath: l.ConfigPath, Rules: l.Rules, RulesPath: l.RulesPath,
			NoSandbox: l.NoSandbox, CautionPolicy: t.Options.Caution, Warn: l.Warn}, nil
	}
}

// OpenWorkerMemory opens a worker's memory store in dir and shares it as name: the store
// becomes this worker's index of the fleet's Megram log. With a model configuration
// (distil not nil), the Dreamer's consolidations, when this worker holds its lease, are
// worded by the planner's model and journalled in dir, one journal per worker process;
// without one (a demo worker) they wait for spine memory dream. The closer closes all of it.
func (c *Client) OpenWorkerMemory(ctx context.Context, dir, name string, ttl time.Duration, distil *llm.Config) (*SharedMemory, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	opts := memory.Options{Clock: clock.System{}}
	if distil != nil {
		journal := taskrun.NewJournalFile(filepath.Join(dir,
			fmt.Sprintf("distill-%s-%d.jsonl", time.Now().UTC().Format("20060102T150405Z"), os.Getpid())))
		closers = append(closers, func() { _ = journal.Close() })
		var err error
		if opts.Distiller, err = taskrun.NewDistiller(*distil, nil, journal); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	store, err := memory.OpenLevelDB(dir, opts)
	if err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("memory: %w", err)
	}
	closers = append(closers, store.Close)
	sm, err := c.ShareMemory(ctx, store, name, ttl)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, sm.Close)
	return sm, closeAll, nil
}
