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
worker's model endpoint (its --config, --base-url, --model or the environment, as for
spine run; a task's --model overrides the model), steered by GGS, its tools in a
sandbox, in a work dir of its own under --workdir-root. A task is acknowledged only
after its whole trace is stored in the fleet and its FinalResult recorded; a worker
that dies loses nothing: its tasks come back after the ack wait and run again on
another worker, and the new attempt's trace names the one it supersedes.

--demo runs every task, whatever its text, on spine demo --pipeline's tiny project
with a stand-in for the model (scripted.AnyTask, named in every trace's header; no
model, no key): it lists the files, reads them and writes report.md with the lines
that mention the task's words. A fleet to try without an endpoint. A worker whose NATS
server goes away reconnects with backoff (250 ms doubling to 4 s, forever): the runs in
hand go on and keep their tasks' leases, their results are recorded once the server is
back, and then it takes tasks again. Only a connection closed for good (a server that
refuses its credentials) ends it, with status 1, after the runs in hand. An interrupt or
SIGTERM stops it taking tasks (exit 0) once the runs in hand are recorded, or given up
while the server is down; a second interrupt aborts them, and their tasks then run
again elsewhere.

The worker decides a task's network, not the task: a task's --allow-net is opened only
when the worker's own --allow-net holds the same host (names compare as written, never
by what they resolve to) and port. Whatever the lists say, a name is resolved when the
task starts and refused if it leads to loopback or this machine's own addresses (unless
the worker's entry is the loopback address itself), to the fleet's NATS server (unless
the worker's entry names that server's host and port), or to a link-local or
unspecified address (never). A refused entry fails the attempt, naming the entry and why.

Every trace the worker writes is signed with its own ed25519 key: --sign-key FILE, or
worker-sign.key in $XDG_STATE_HOME/spine or ~/.local/state/spine,
made (with worker-sign.key.pub) on the first start. spine status TASK shows which key
signed each attempt's trace; spine replay --check --verify-key checks it.

--memory DIR gives the worker a memory store that is an index of the fleet's Megram
log: every worker's Megrams are appended to the log and restored into every store, so
a run calibrates with the whole fleet's experience. One worker at a time, the holder of
a lease in a JetStream key-value bucket, runs the Dreamer.`

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
					if err := fleet.CheckIsolation(noSandbox); err != nil {
						return err
					}
					// The worker's configuration is checked once, before any task is taken.
					llmCfg, err := llm.LoadEndpointConfig(llm.Sources{File: configPath, Getenv: os.LookupEnv,
						Flags: llm.Overrides{BaseURL: baseURL, Model: model}})
					switch {
					case errors.Is(err, llm.ErrNoEndpoint):
						return usageErrorf("%v (as for spine run: $OPENAI_API_KEY, --base-url, --config); --demo needs none", err)
					case err != nil:
						return usageErrorf("%v", err)
					}
					base = &llmCfg
					live := fleet.LiveTasks{Rules: rs, RulesPath: rulesPath, LLM: llmCfg, ConfigPath: configPath,
						NoSandbox: noSandbox, Warn: func(msg string) { warn(io, msg) }}
					cfg.Prepare = live.Prepare()
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
				if memDir != "" {
					if cfg.Name == "" { // the store is shared under the worker's name
						cfg.Name = fleet.DefaultWorkerName()
					}
					sm, closeMem, err := cl.OpenWorkerMemory(ctx, memDir, cfg.Name, leaseTTL, base)
					if err != nil {
						return err
					}
					defer closeMem()
					cfg.Memory = sm
				}
				cfg.AllowNet = allowNet
				// A redelivered task continues from the stored lines of the attempt it
				// supersedes: no model call whose answer they hold is made again.
				cfg.Resume = taskrun.ResumePartial
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
		fs.BoolVar(&cfg.Drain, "drain", false, "exit once the queue is empty and no task is in any worker's hands")
		fs.BoolVar(&quiet, "quiet", false, "do not log each task's start and end")
		return c
	})
}
