package taskrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// RunTask runs one task live: R1 reads it, GGS steers rounds of R2, R3 × N with R4a, and
// R4b until a rule ends the task, and everything is journalled in a trace that replays
// byte for byte. An error before the trace exists is a refusal (a file inside the work
// dir, no isolation, a bad configuration) and nothing was contacted; after it, the error
// is the run's (the trace then ends with halt and says so) and Result is filled.
func RunTask(ctx context.Context, cfg Config) (Result, error) {
	cfg.defaults()
	var res Result
	if strings.TrimSpace(cfg.Task) == "" {
		return res, fmt.Errorf("the task text is empty")
	}
	if err := cfg.Validate(); err != nil {
		return res, err
	}
	if cfg.Watch && cfg.RulesPath == "" {
		return res, fmt.Errorf("watching the rules needs a rule file (the shipped rules are built in)")
	}
	rs := cfg.Rules
	if rs == nil {
		var err error
		if rs, err = LoadRules(cfg.RulesPath); err != nil {
			return res, err
		}
	}
	if cfg.TracePath != "" {
		if _, err := os.Stat(cfg.TracePath); err == nil {
			return res, fmt.Errorf("%s already exists; a trace is never overwritten", cfg.TracePath)
		}
	}
	watched := ""
	if cfg.Watch {
		watched = cfg.RulesPath
	}
	traceDir, err := runPlacement(cfg.Workdir, cfg.ConfigPath, cfg.TracePath, cfg.MemoryDir, watched, cfg.Getenv, cfg.Home)
	if err != nil {
		return res, err
	}
	if cfg.TraceDir != "" && cfg.TracePath == "" {
		if err := checkPlacement(cfg.Workdir, []ownFile{{"the trace directory", cfg.TraceDir, "rewrite the run's record"}}); err != nil {
			return res, err
		}
		traceDir = cfg.TraceDir
	}
	if err := checkWorkdir(cfg.Workdir); err != nil {
		return res, err
	}
	if cfg.Snapshots != nil {
		if err := checkPlacement(cfg.Workdir, []ownFile{{"the snapshot store", cfg.Snapshots.Dir, "rewrite the snapshots a resume restores"}}); err != nil {
			return res, err
		}
	}
	signer, err := runSigner(cfg)
	if err != nil {
		return res, err
	}
	scrub := runScrubber(cfg.LLM, cfg.Environ)

	jail := cfg.Jail
	if jail == nil {
		if jail, err = toolJail(cfg.Warn, cfg.AllowNet, cfg.NetCheck, cfg.NoSandbox, []string{cfg.ConfigPath, cfg.TracePath, cfg.MemoryDir, traceDir, cfg.SignKey, snapshotDir(cfg.Snapshots)}); err != nil {
			return res, err
		}
	}
	res.Isolation = jail.Describe()
	confirmer := cfg.Confirmer
	if confirmer == nil {
		confirmer = sandbox.RefuseAll{}
	}
	// The caution policy is the rules' caution param unless the run sets one: the
	// memory_* rules read it for the pairs OBSERVE hands them, the confirmer below for
	// the pairs memory is asked about only once a plan or a call names them.
	policy := cfg.CautionPolicy
	if policy == "" {
		if v, ok := rs.Param(ggs.ParamCaution); ok {
			policy, _ = v.(string)
		}
	}
	if err := ggs.CheckCautionPolicy(policy); err != nil {
		return res, err
	}
	caution := cfg.Caution
	if caution == nil {
		if caution, err = cautionConfirmer(policy, cfg.Warn); err != nil {
			return res, err
		}
	}
	box, err := sandbox.New(cfg.Workdir, sandbox.Options{Confirmer: confirmer, Jail: jail})
	if err != nil {
		return res, fmt.Errorf("work dir: %w", err)
	}
	defer box.Close()
	var tools sandbox.Toolbox = box
	mcpMeta := map[string]string{}
	if len(cfg.MCPServers) > 0 {
		tb, err := openMCP(ctx, cfg.MCPServers, box, jail, scrub, cfg.Warn, mcpMeta)
		if err != nil {
			return res, err
		}
		defer tb.Close()
		tools = tb
	}

	chat := cfg.Chat
	if chat == nil {
		if chat, err = llm.NewOpenAIModel(cfg.LLM.OpenAIOptions()); err != nil {
			return res, err
		}
	}
	models, err := roles.ModelsFromConfig(llm.ScrubModel(chat, scrub), cfg.LLM)
	if err != nil {
		return res, err
	}
	rc := roles.Config{Models: models, Tools: scrubTools{tools, scrub}, Clock: cfg.Clock, IDs: cfg.IDs,
		OnStatus: cfg.OnStatus, Clarify: cfg.Clarify, Caution: caution}
	if r := cfg.resume; r != nil {
		rc.IDs, rc.Stamps = r.stamps, r.stamps
	}
	if cfg.Snapshots != nil {
		store, dir := cfg.Snapshots, cfg.Workdir
		rc.Snapshot = func() (string, error) {
			root, _, err := store.Take(dir)
			return root, err
		}
		// A recording from before snapshots followed tool calls re-runs as it was made.
		rc.SnapshotTools = cfg.resume == nil || cfg.resume.opened.Recording.Header.Meta[MetaSnapshotTools] != ""
	}
	ggsOpts := []ggs.Option{ggs.WithCautionPolicy(cfg.CautionPolicy)}
	var mem *memory.Service
	distillJournal := &journalFile{}
	if cfg.Memory != nil {
		mem = cfg.Memory
	} else if cfg.MemoryDir != "" {
		// The Dreamer's pass after the task words its consolidations with the planner's
		// model, journalled next to the trace so `spine memory dream --replay` can redo it.
		d, err := newDistiller(cfg.LLM, scrub, chat, distillJournal)
		if err != nil {
			return res, err
		}
		if mem, err = openMemory(&cfg, d); err != nil {
			return res, err
		}
		if mem != nil {
			defer mem.Close()
		}
	}
	var writes *memoryWrites
	if mem != nil {
		w, err := mem.TallyWriterFor(memory.RoleGGS)
		if err != nil {
			return res, err
		}
		defer w.Stop()
		writes = &memoryWrites{ctx: ctx, dir: cfg.MemoryDir, tally: w}
		rc.Memory = memoryCalibrator{mem.Reader()}
		ggsOpts = append(ggsOpts, ggs.WithMemory(w, cfg.Clock, cfg.IDs))
	}
	p, err := roles.New(rc)
	if err != nil {
		return res, err
	}
	res.Pipeline = p

	res.RunID = cfg.RunID
	if res.RunID == "" {
		res.RunID = fmt.Sprintf("run-%s-%s", cfg.Clock.Now().UTC().Format("20060102T150405Z"), cfg.IDs.NewID()[:6])
	}
	// R1 reads the task inside the run, after the trace is created: whatever R1's
	// endpoint does, the trace holds it, and the rules decide how the task ends.
	if err := p.Begin(res.RunID, cfg.Task); err != nil {
		return res, err
	}
	path := cfg.TracePath
	if path == "" {
		if err := os.MkdirAll(traceDir, 0o700); err != nil {
			return res, fmt.Errorf("trace directory: %w", err)
		}
		path = FreshPath(filepath.Join(traceDir, "spine-"+res.RunID+".trace.jsonl"))
	}
	// The Auditor judges the budget the run's own rules set, not the shipped defaults.
	auditCfg, err := audit.DefaultConfig().WithRuleBudget(rs)
	if err != nil {
		return res, err
	}
	auditor, err := newLiveAudit(auditCfg)
	if err != nil {
		return res, err
	}
	var file *trace.FileSink
	if cfg.resume != nil {
		file, err = cfg.resume.createTrace(path)
	} else {
		file, err = trace.CreateFileSink(path)
	}
	if err != nil {
		return res, err
	}
	res.TracePath = path
	var sink trace.Sink = file
	if cfg.WrapSink != nil {
		sink = cfg.WrapSink(sink)
	}
	engineOpts := []engine.Option{engine.WithClock(cfg.Clock), engine.WithIDs(cfg.IDs), engine.WithRunID(res.RunID)}
	if cfg.MaxIterations > 0 {
		engineOpts = append(engineOpts, engine.WithMaxIterations(cfg.MaxIterations))
	}
	if cfg.resume != nil {
		engineOpts = append(engineOpts, cfg.resume.engineOptions()...)
	}
	if cfg.Watch {
		engineOpts = append(engineOpts, engine.WithRuleSource(engine.NewFileRuleSource(cfg.RulesPath, rs)))
	}
	if writes != nil {
		engineOpts = append(engineOpts, engine.WithEpilogue(bothEpilogues(auditor.epilogue, writes.epilogue)))
	} else {
		engineOpts = append(engineOpts, engine.WithEpilogue(auditor.epilogue))
	}
	// R1 reads the task in the first round, after the header: the intent is in its
	// TaskSpec message, not here. The task's own fields win a clash with the caller's.
	meta := withMeta(withMeta(signMeta(runMeta(cfg.LLM, cfg.Workdir, cfg.MemoryDir, res.Isolation), signer), cfg.Meta), mcpMeta)
	meta["task_id"], meta["raw_input"] = p.Task().TaskID, p.Task().RawInput
	if cfg.Snapshots != nil {
		meta[MetaSnapshots], meta[MetaSnapshotTools] = cfg.Snapshots.Dir, SnapshotToolsWrites
	}
	if cfg.resume != nil {
		meta = cfg.resume.opened.Recording.Header.Meta // the header is the recording's
	}
	events := append([]ggsrun.EventObserver{auditor.observe}, cfg.Events...)
	if cfg.OnMessage != nil {
		events = append(events, ggsrun.Messages(cfg.OnMessage))
	}
	// The scrubber is the last word on the trace's content: the Auditor, the display and
	// the caller's Events see what it let through, as the trace holds it.
	run, err := ggsrun.New(ggsrun.Config{Rules: rs, Plant: p, Task: p.Task(), GGS: ggsOpts,
		Engine: engineOpts, Meta: meta, Trace: sink, Events: events,
		Filter: func(next trace.Sink) trace.Sink { return &scrubSink{next: next, sc: scrub} }})
	if err != nil {
		_ = file.Close()
		return res, err
	}
	tr, runErr := run.Run(ctx)
	res.TaskResult = tr
	if signer != nil {
		// The signature ends the trace: nothing is written after it.
		if err := file.Sign(signer); err != nil && runErr == nil {
			runErr = fmt.Errorf("signing the trace: %w", err)
		} else if err == nil {
			res.SignedBy = signer.Fingerprint()
		}
	}
	if err := file.Close(); err != nil && runErr == nil {
		runErr = err
	}
	// What reached the file, not what was encoded: after a failed write the two differ.
	mark, cut := file.Written()
	res.TraceHead, res.TraceLines, res.TraceCut = mark.Head, mark.Line, cut
	res.Findings, res.AuditErrors = auditor.all, auditor.errs
	if writes != nil {
		res.MemoryWrites = writes.outcome()
	}
	if mem != nil && tr.Final != nil && cfg.Memory != nil {
		if !cfg.SkipDream {
			mem.NotifyFinalResult(*tr.Final) // the long-lived store's Dreamer runs the pass
		}
	} else if mem != nil && tr.Final != nil && ctx.Err() == nil && !cfg.SkipDream {
		distillJournal.path = strings.TrimSuffix(path, ".jsonl") + ".distill.jsonl"
		res.Dream = dreamAfterTask(ctx, mem, distillJournal)
	}
	return res, scrub.Error(runErr)
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = clock.System{}
	}
	if c.IDs == nil {
		c.IDs = engine.RandomIDs{}
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Home == nil {
		c.Home = os.UserHomeDir
	}
	if c.Environ == nil {
		c.Environ = os.Environ()
	}
	if c.Warn == nil {
		c.Warn = func(string) {}
	}
}

// FreshPath is path, or path with -2, -3, … before its extension, whichever does not
// exist yet: a trace is never overwritten.
func FreshPath(path string) string {
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
		if _, err := os.Stat(p); err != nil {
			return p
		}
	}
}
