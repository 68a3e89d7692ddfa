package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/internal/termui"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/taskrun"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "fork [flags] TRACE --at SEQ",
			Short: "branch a recorded run at a past cycle, with edited rules, and go on live",
			Long: `fork re-runs a recorded run from its trace up to the cycle boundary at or before SEQ
(every model and tool call served from the trace, none made again), applies the rules of
--rules there as a recorded rules_reloaded, and goes on live with the endpoint and models
the header records (the key from the environment, as for spine run). The new trace holds
the recording's lines before the boundary byte for byte, a resumed line (mode fork), the
reload, then the live run; spine replay --check verifies it and spine trace diff shows
where it parts from the original. spine what-if --rules FILE names the seq of the first
decision the edit changes: fork --at that seq.

Recorded tool calls are served, not made again: the work dir should hold the files as they
were at the boundary. When the run snapshotted its work dir (spine run --snapshot), the
snapshot of the last round before the boundary is restored into --workdir DIR (what the
snapshot does not hold is removed from it), or into a new dir beside the recorded one;
without snapshots the fork works in --workdir, default the header's.`,
			Args: cobra.ExactArgs(1),
		}
		fs := c.Flags()
		f := &forkFlags{
			at:          fs.Int64("at", 0, "fork at the cycle boundary at or before this `SEQ` (required)"),
			rulesPath:   fs.String("rules", "", "the edited rule `FILE` applied at the boundary (default: keep the recorded rules)"),
			resumeFlags: *newResumeFlags(fs),
		}
		_ = c.MarkFlagRequired("at")
		c.RunE = func(c *cobra.Command, args []string) error {
			return forkTask(c.Context(), io, f, args[0])
		}
		return c
	})
}

type forkFlags struct {
	at        *int64
	rulesPath *string
	resumeFlags
}

// forkTask is spine fork: taskrun.Fork branches the run; this shows it as spine run does.
func forkTask(ctx context.Context, io stdio, f *forkFlags, path string) error {
	o, err := taskrun.OpenResume(path)
	if err != nil {
		return err
	}
	if d := o.Continuation.Dropped(); d != "" {
		fmt.Fprintf(io.err, "spine fork: %s\n", d)
	}
	b, err := replay.ForkPoint(o.Recording, *f.at)
	if err != nil {
		return failWith(exitUsage, err)
	}
	opts := taskrun.ForkOptions{At: *f.at}
	if *f.rulesPath != "" {
		if opts.Rules, err = taskrun.ReadForkRules(*f.rulesPath); err != nil {
			return failWith(exitUsage, err)
		}
		opts.RulesPath = *f.rulesPath
	}
	base := *f.baseURL
	if base == "" {
		base = o.BaseURL
	}
	cfg, err := llm.LoadEndpointConfig(llm.Sources{File: *f.configPath, Getenv: os.LookupEnv,
		Flags: llm.Overrides{BaseURL: base, Model: o.Model}})
	if err != nil {
		return failWith(exitUsage, fmt.Errorf("%w\n(the header records the endpoint and models; the key comes from the environment or --config)", err))
	}
	out := &termui.LockedWriter{W: io.out}
	if *f.asJSON {
		out = &termui.LockedWriter{W: io.rawOut}
	}
	show := newRunDisplay(out, o.Rules, *f.asJSON)
	workdir, err := forkWorkdir(io, o, *f.workdir, b.Seq)
	if err != nil {
		return err
	}
	opts.Host, _ = os.Hostname()
	tc := taskrun.Config{Workdir: workdir, LLM: cfg, ConfigPath: *f.configPath, TracePath: *f.tracePath,
		NoSandbox: *f.noSandbox, OnMessage: show.message, Warn: func(msg string) { warn(io, msg) }}
	res, sw, runErr := taskrun.Fork(ctx, o, tc, opts)
	return showContinued(io, show, "forked", path, res, sw, runErr, *f.asJSON)
}

// forkWorkdir is the work dir the fork runs in: with snapshots, dir (else a new one)
// holding the snapshot of the last round before the boundary at seq.
func forkWorkdir(io stdio, o *taskrun.Opened, dir string, seq int64) (string, error) {
	store, err := o.SnapshotStore()
	if err != nil || store == nil {
		return dir, err
	}
	if _, ok := taskrun.LastSnapshot(o.Recording, seq); !ok {
		return dir, nil
	}
	if dir == "" {
		if dir, err = taskrun.NewForkWorkdir(o.Workdir); err != nil {
			return "", fmt.Errorf("a work dir for the fork: %w", err)
		}
	}
	wc, _, err := taskrun.CheckWorkdir(store, o.Recording, seq, dir, true)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(io.err, "spine fork: the work dir %s holds the snapshot of round %d (%s)\n", dir, wc.Snapshot.At.Round, wc.Snapshot.Root)
	return dir, nil
}
