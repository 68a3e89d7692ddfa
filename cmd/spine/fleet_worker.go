package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

const workerLong = `Pull tasks from the fleet's queue and run each as spine run would: R1–R4b on the
worker's model endpoint (--config, --base-url, --model or the environment, as for spine
run; a task's --model overrides the model), steered by GGS, its tools in a sandbox, in a
work dir of its own under --workdir-root. A task is acknowledged only after its whole
trace is stored in the fleet and its FinalResult recorded. Each trace line is stored as
it is written, with the work-dir snapshot it records (--snapshot, into .snapshots under
--workdir-root): a task whose worker dies comes back after the ack wait and resumes on
any worker from the last stored line, its work dir restored from that snapshot, paying
no model call whose answer is stored.

--demo runs every task, whatever its text, on spine demo --pipeline's tiny project with
a stand-in for the model (scripted.AnyTask, named in every trace's header; no model, no
key): it lists the files, reads them and writes report.md. A worker whose NATS server
goes away reconnects with backoff (250 ms doubling to 4 s, forever); the runs in hand go
on and keep their leases. Only a connection closed for good (refused credentials) ends
it, with status 1. An interrupt or SIGTERM stops it taking tasks (exit 0) once the runs
in hand are recorded; a second interrupt aborts them, and they run again elsewhere.

The worker decides a task's network: a task's --allow-net is opened only when the
worker's own --allow-net holds the same host (as written, never as resolved) and port;
a name leading to loopback or this machine (unless the worker's entry is the loopback
address itself), to the fleet's NATS server (unless named literally), or to a
link-local or unspecified address (never) is refused, failing the attempt.

Every trace is signed with the worker's ed25519 key: --sign-key FILE, or
worker-sign.key in $XDG_STATE_HOME/spine or ~/.local/state/spine, made on the first
start; spine status TASK shows which key signed each attempt.

--memory DIR makes the worker's memory store an index of the fleet's Megram log, so a
run calibrates with the whole fleet's experience; one worker at a time, the holder of a
lease, runs the Dreamer.`

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		var (
			nf                     natsFlags
			cfg                    fleet.WorkerConfig
			rulesPath, configPath  string
			baseURL, model         string
			demo, noSandbox, quiet bool
			memDir                 string
			leaseTTL               time.Duration
			allowNet               sandbox.NetRules
			signKey                string
			snap                   bool
		)
		c := &cobra.Command{
			Use:   "worker --workdir-root DIR [--concurrency N] [--ack-wait D] [--demo] [flags]",
			Short: "run the fleet's queued tasks, each with the run library of spine run, in its own work dir",
			Long:  workerLong,
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				if cfg.WorkdirRoot == "" {
					return usageErrorf("expected --workdir-root DIR: each task gets a work dir under it")
				}
				if cfg.Concurrency < 1 {
					return usageErrorf("--concurrency %d: expected 1 or more", cfg.Concurrency)
				}
				rs, err := taskrun.LoadRules(rulesPath)
				if err != nil {
					return err
				}
				var base *llm.Config // the worker's model configuration; none with --demo
				if demo {
					// The demo's stand-in replies, explicitly asked for by --demo.
					cfg.Prepare = func(_ context.Context, _ fleet.Task, workdir string) (taskrun.Config, error) {
						return scripted.DemoTaskConfig(workdir, rs, noSandbox)
					}
				} else {
					live, err := fleet.NewLiveTasks(rs, rulesPath, configPath, llm.Overrides{BaseURL: baseURL, Model: model}, noSandbox, func(msg string) { warn(io, msg) })
					if errors.Is(err, llm.ErrNoEndpoint) {
						return usageErrorf("%v (as for spine run: $OPENAI_API_KEY, --base-url, --config); --demo needs none", err)
					} else if _, bad := errors.AsType[*fleet.ConfigError](err); bad {
						return usageErrorf("%v", err)
					} else if err != nil {
						return err
					}
					base, cfg.Prepare = &live.LLM, live.Prepare()
				}
				if !quiet {
					cfg.Log = func(line string) { fmt.Fprintf(io.err, "spine worker: %s\n", line) }
				}
				ctx := c.Context()
				cl, err := nf.connect(ctx, "spine worker")
				if err != nil {
					return err
				}
				defer cl.Close()
				cfg.AllowNet = allowNet
				closeExtras, err := cl.Equip(ctx, &cfg, fleet.WorkerExtras{MemoryDir: memDir, LeaseTTL: leaseTTL, Distil: base, Snapshots: snap})
				if err != nil {
					return err
				}
				defer closeExtras()
				if cfg.Signer, cfg.SignKey, err = workerSigner(io, signKey); err != nil {
					return err
				}
				w, err := cl.NewWorker(ctx, cfg)
				if err != nil {
					return err
				}
				fmt.Fprintf(io.err, "spine worker: %s taking tasks from %s (%d at a time)\n", w.Name(), cl.URL(), cfg.Concurrency)
				sig := make(chan os.Signal, 2)
				signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
				err = w.RunGraceful(ctx, sig, func() {
					fmt.Fprintln(io.err, "spine worker: stopping: the tasks in hand run to their end; interrupt again to abort them")
				})
				signal.Stop(sig)
				fmt.Fprintf(io.err, "spine worker: %d task(s) done\n", w.Done())
				return err // fleet.ErrConnectionLost when the server is gone for good: exit 1
			},
		}
		fs := c.Flags()
		nf.add(fs)
		fs.StringVar(&cfg.WorkdirRoot, "workdir-root", "", "`DIR` under which each task gets its own work dir (<task>/<attempt>/work)")
		fs.IntVar(&cfg.Concurrency, "concurrency", 1, "tasks to run at once")
		fs.DurationVar(&cfg.AckWait, "ack-wait", 0, "redeliver a task whose worker has said nothing this long (default: the fleet's, 30s when new)")
		fs.StringVar(&cfg.Name, "name", "", "this worker's name in statuses (default: HOST-PID)")
		fs.StringVar(&rulesPath, "rules", "", "GGS rule file instead of the shipped rules/ggs.yaml")
		fs.StringVar(&configPath, "config", "", "YAML model configuration, as for spine run")
		fs.StringVar(&baseURL, "base-url", "", "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or OpenAI)")
		fs.StringVar(&model, "model", "", "model for every role without one of its own (default: $SPINE_MODEL)")
		fs.StringVar(&memDir, "memory", "", "this worker's memory store `DIR` (LevelDB), kept as an index of the fleet's Megram log")
		fs.DurationVar(&leaseTTL, "lease-ttl", fleet.DefaultLeaseTTL, "with --memory: how long the Dreamer's lease outlives its holder's last renewal")
		fs.BoolVar(&demo, "demo", false, "run every task with a stand-in for the model on the demo's project (no model, no key)")
		fs.BoolVar(&noSandbox, "no-sandbox", false, "run tools UNCONFINED when this machine cannot isolate them (recorded in every trace)")
		fs.Var(&allowNet, "allow-net", "the most a task's --allow-net may open: `HOST[:PORT]` (repeatable; default none). Loopback and the fleet's NATS server open only when named here literally; link-local never")
		fs.StringVar(&signKey, "sign-key", "", "sign every trace with this ed25519 private key `FILE` (default: worker-sign.key in the state directory, made on first start)")
		fs.BoolVar(&snap, "snapshot", true, "snapshot each run's work dir at every round boundary into .snapshots under --workdir-root, streamed to the fleet, so a resumed task gets its files back")
		fs.BoolVar(&cfg.Drain, "drain", false, "exit once the queue is empty and no task is in any worker's hands")
		fs.BoolVar(&quiet, "quiet", false, "do not log each task's start and end")
		return c
	})
}
