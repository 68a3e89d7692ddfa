package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
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
			resumeFlags: newResumeFlags(fs),
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
	*resumeFlags
}

// forkTask is spine fork: taskrun.Fork branches the run; this shows it as spine run does.
func forkTask(ctx context.Context, io stdio, f *forkFlags, path string) error {
	opts := taskrun.ForkOptions{At: *f.at}
	var seq int64 // the boundary's
	var workdir string
	return continuation{name: "fork", verb: "forked",
		check: func(o *taskrun.Opened) (bool, error) {
			b, err := replay.ForkPoint(o.Recording, *f.at)
			if err != nil {
				return false, cli.Fail(exitUsage, err)
			}
			seq = b.Seq
			if *f.rulesPath != "" {
				if opts.Rules, err = taskrun.ReadForkRules(*f.rulesPath); err != nil {
					return false, cli.Fail(exitUsage, err)
				}
				opts.RulesPath = *f.rulesPath
			}
			return true, nil
		},
		workdir: func(o *taskrun.Opened) (err error) {
			workdir, err = forkWorkdir(io, o, *f.workdir, seq)
			return err
		},
		start: func(o *taskrun.Opened, tc taskrun.Config) (taskrun.Result, replay.Switch, error) {
			tc.Workdir = workdir
			opts.Host, _ = os.Hostname()
			return taskrun.Fork(ctx, o, tc, opts)
		},
	}.run(io, f.resumeFlags, path)
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
