package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/internal/cli"
)

const workerLong = `Pull tasks from the fleet's queue and run each as spine run would (the model from
--config, --base-url, --model or the environment; a task's --model overrides it), tools
in a sandbox, in a work dir of its own under --workdir-root. A task is acknowledged once
its whole trace is stored and its FinalResult recorded. Each trace line is stored as it
is written, with the work-dir snapshot it records (--snapshot): a task whose worker dies
comes back after the ack wait and resumes on any worker from its last stored line, its
files restored, paying no model call whose answer is stored.

--demo runs every task on spine demo --pipeline's project with a stand-in for the model
(no model, no key). A lost NATS server is reconnected to with backoff (250 ms to 4 s,
forever) while the runs in hand go on; a connection closed for good (refused
credentials) ends the worker with status 1. An interrupt or SIGTERM stops it taking
tasks (exit 0) once the runs in hand are recorded; a second one aborts them.

A task's --allow-net opens only what the worker's own --allow-net holds (host as
written, and port); a name leading to loopback or this machine, to the fleet's NATS
server (unless named literally) or to a link-local address is refused. Every trace is
signed with the worker's ed25519 key (--sign-key, or worker-sign.key in the state
directory, made on first start). --memory DIR makes its memory store an index of the
fleet's Megram log; the holder of a lease runs the Dreamer.`

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		var (
			nf      natsFlags
			cfg     fleet.WorkerConfig
			ws      fleet.WorkerSetup
			signKey string
			quiet   bool
		)
		c := &cobra.Command{
			Use:   "worker --workdir-root DIR [--concurrency N] [--ack-wait D] [--demo] [flags]",
			Short: "run the fleet's queued tasks, each with the run library of spine run, in its own work dir",
			Long:  workerLong,
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				if cfg.WorkdirRoot == "" {
					return cli.Usagef("expected --workdir-root DIR: each task gets a work dir under it")
				}
				if cfg.Concurrency < 1 {
					return cli.Usagef("--concurrency %d: expected 1 or more", cfg.Concurrency)
				}
				ws.Warn = func(msg string) { warn(io, msg) }
				err := ws.Tasks(&cfg)
				if errors.Is(err, llm.ErrNoEndpoint) {
					return cli.Usagef("%v (as for spine run: $OPENAI_API_KEY, --base-url, --config); --demo needs none", err)
				} else if _, bad := errors.AsType[*fleet.ConfigError](err); bad {
					return cli.Usagef("%v", err)
				} else if err != nil {
					return err
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
				closeExtras, err := cl.Equip(ctx, &cfg, ws)
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
				err = w.RunUntilSignalled(ctx, func() {
					fmt.Fprintln(io.err, "spine worker: stopping: the tasks in hand run to their end; interrupt again to abort them")
				})
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
		fs.StringVar(&ws.RulesPath, "rules", "", "GGS rule file instead of the shipped rules/ggs.yaml")
		fs.StringVar(&ws.ConfigPath, "config", "", "YAML model configuration, as for spine run")
		fs.StringVar(&ws.Endpoint.BaseURL, "base-url", "", "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or OpenAI)")
		fs.StringVar(&ws.Endpoint.Model, "model", "", "model for every role without one of its own (default: $SPINE_MODEL)")
		fs.StringVar(&ws.MemoryDir, "memory", "", "this worker's memory store `DIR` (LevelDB), kept as an index of the fleet's Megram log")
		fs.DurationVar(&ws.LeaseTTL, "lease-ttl", fleet.DefaultLeaseTTL, "with --memory: how long the Dreamer's lease outlives its holder's last renewal")
		fs.BoolVar(&ws.Demo, "demo", false, "run every task with a stand-in for the model on the demo's project (no model, no key)")
		fs.BoolVar(&ws.NoSandbox, "no-sandbox", false, "run tools UNCONFINED when this machine cannot isolate them (recorded in every trace)")
		fs.Var((*sandbox.NetRules)(&cfg.AllowNet), "allow-net", "the most a task's --allow-net may open: `HOST[:PORT]` (repeatable; default none). Loopback and the fleet's NATS server open only when named here literally; link-local never")
		fs.StringVar(&signKey, "sign-key", "", "sign every trace with this ed25519 private key `FILE` (default: worker-sign.key in the state directory, made on first start)")
		fs.BoolVar(&ws.Snapshots, "snapshot", true, "snapshot each run's work dir at every round boundary and after every tool call that may change it (into .snapshots under --workdir-root), streamed to the fleet: a resumed task gets its files back")
		fs.BoolVar(&cfg.Drain, "drain", false, "exit once the queue is empty and no task is in any worker's hands")
		fs.BoolVar(&quiet, "quiet", false, "do not log each task's start and end")
		return c
	})
}
