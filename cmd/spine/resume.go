package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/runview"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/taskrun"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "resume [flags] TRACE",
			Short: "continue an interrupted run from its trace: recorded calls are not made again",
			Long: `resume continues a run that was killed or stopped from its trace. The chain is verified
up to the last complete line (a torn last line is dropped, and said so), the recorded run is
re-run against its recording, every model and tool call the trace holds answered from it,
and the run goes live at the first call the trace lacks, with the endpoint and models the
header records (the key from the environment, as for spine run). The new trace holds the
recording's lines byte for byte, a resumed line, then the live run; spine replay --check
verifies it. A run that already ended is said so, and nothing is called.

When the run snapshotted its work dir (spine run --snapshot), the work dir is compared with
the last snapshot the trace records and, when it differs, restored to it (the first
differing file is named). With --no-restore a differing work dir is refused instead, naming
that file, unless --force, which goes on with the files as they are. A run snapshots its
work dir right after every tool call that may change it (all but read_file and list_files),
so that snapshot holds what every recorded tool call did, and those calls are served, not
made again. A tool call the last snapshot does not cover (the kill fell between the call's
line and its snapshot's, or the trace is from before such snapshots) is where the resume
goes live: that call is made again, and so is any call in flight at the kill.`,
			Args: cobra.ExactArgs(1),
		}
		fs := c.Flags()
		f := newResumeFlags(fs)
		noRestore := fs.Bool("no-restore", false, "refuse a work dir that differs from the last snapshot the trace records, naming the first differing file, instead of restoring it")
		force := fs.Bool("force", false, "with --no-restore: go on with a work dir that differs from the last snapshot")
		c.RunE = func(c *cobra.Command, args []string) error {
			return resumeTask(c.Context(), io, f, args[0], workdirPolicy{restore: !*noRestore, force: *force})
		}
		return c
	})
}

// resumeFlags are the flags resume and fork share: both go live from a recording.
type resumeFlags struct {
	endpoint           endpointFlags
	tracePath, workdir *string
	asJSON, noSandbox  *bool
}

func newResumeFlags(fs *pflag.FlagSet) *resumeFlags {
	f := &resumeFlags{
		tracePath: fs.String("trace", "", "the new trace `FILE` (default: beside the recording, with -2, -3, …)"),
		workdir:   fs.String("workdir", "", "`DIR` the tools work in (default: the one the header records)"),
		asJSON:    fs.Bool("json", false, "print every message as a JSON line"),
		noSandbox: fs.Bool("no-sandbox", false, "run tools UNCONFINED when this machine cannot isolate them"),
	}
	f.endpoint.declare(fs, endpointHelp{
		baseURL: "OpenAI-compatible endpoint `URL` for the live part (default: the one the header records)",
		config:  "YAML model configuration `FILE` (api_key, base_url, roles) as for spine run",
	})
	return f
}

// resumeTask is spine resume: the run is rebuilt and continued by taskrun.Resume; this
// shows it as spine run does.
func resumeTask(ctx context.Context, io stdio, f *resumeFlags, path string, wp workdirPolicy) error {
	return continuation{name: "resume", verb: "resumed",
		check: func(o *taskrun.Opened) (bool, error) {
			if o.Ended != "" {
				fmt.Fprintf(io.out, "%s: the run already ended (%s); nothing to resume\n", path, o.Ended)
				return false, nil
			}
			return true, nil
		},
		workdir: func(o *taskrun.Opened) error { return resumeWorkdir(io, o, cmp.Or(*f.workdir, o.Workdir), wp) },
		start: func(o *taskrun.Opened, tc taskrun.Config) (taskrun.Result, replay.Switch, error) {
			tc.Workdir = *f.workdir // "": taskrun.Resume takes the header's
			host, _ := os.Hostname()
			return taskrun.Resume(ctx, o, tc, host)
		},
	}.run(io, f, path)
}

// continuation is what resume and fork (name, verb) do apart: check the opened
// recording (false ends the command there), prepare the work dir once the endpoint is
// loaded, and go live from the recording.
type continuation struct {
	name, verb string
	check      func(*taskrun.Opened) (bool, error)
	workdir    func(*taskrun.Opened) error
	start      func(*taskrun.Opened, taskrun.Config) (taskrun.Result, replay.Switch, error)
}

// run opens the recording at path and continues it with the endpoint the header
// records, then ends as spine run ends its own: where it went live, the result, the
// trace and its status.
func (c continuation) run(io stdio, f *resumeFlags, path string) error {
	o, err := taskrun.OpenResume(path)
	if err != nil {
		return err
	}
	if d := o.Continuation.Dropped(); d != "" {
		fmt.Fprintf(io.err, "spine %s: %s\n", c.name, d)
	}
	if goOn, err := c.check(o); !goOn || err != nil {
		return err
	}
	cfg, err := f.endpoint.load(llm.Overrides{BaseURL: o.BaseURL, Model: o.Model})
	if err != nil {
		return cli.Fail(exitUsage, fmt.Errorf("%w\n(the header records the endpoint and models; the key comes from the environment or --config)", err))
	}
	if err := c.workdir(o); err != nil {
		return err
	}
	show := runview.NewLive(runview.Streams{In: io.in, Text: io.out, Raw: io.rawOut, Err: io.err}, o.Rules, *f.asJSON)
	res, sw, runErr := c.start(o, taskrun.Config{LLM: cfg, ConfigPath: f.endpoint.config, TracePath: *f.tracePath,
		NoSandbox: *f.noSandbox, OnMessage: show.Message, Warn: func(msg string) { warn(io, msg) }})
	if res.TracePath == "" {
		return runErr
	}
	if sw.Seq != 0 && !*f.asJSON {
		fmt.Fprintf(io.out, "%s %s after its line %d: %s\n", c.verb, path, sw.Line, sw.Reason)
	}
	code := runCode(show.Finish(io.out, io.err, res, runErr))
	return cli.Exit(traceIncomplete(io, res, code))
}

// workdirPolicy is what resume does with a work dir that differs from its last snapshot.
type workdirPolicy struct{ restore, force bool }

// resumeWorkdir holds the work dir to the last snapshot o's trace records before the
// switch (the end of the recording), as wp says.
func resumeWorkdir(io stdio, o *taskrun.Opened, dir string, wp workdirPolicy) error {
	store, err := o.SnapshotStore()
	if err != nil || store == nil {
		return err
	}
	wc, ok, err := taskrun.CheckWorkdir(store, o.Recording, 0, dir, wp.restore)
	var mismatch *taskrun.WorkdirMismatchError
	switch {
	case errors.As(err, &mismatch) && wp.force:
		fmt.Fprintf(io.err, "spine resume: %v; going on with it as it is (--force)\n", err)
		return nil
	case errors.As(err, &mismatch):
		return cli.Fail(exitUsage, fmt.Errorf("%w\n(resume without --no-restore restores the snapshot; --force goes on with the files as they are)", err))
	case err != nil:
		return err
	case !ok:
		return nil
	case wc.Restored:
		fmt.Fprintf(io.err, "spine resume: the work dir differed from the snapshot of round %d (first at %s): restored it\n", wc.Snapshot.At.Round, wc.Differed)
	}
	return nil
}
