package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// PrepareFunc gives the run configuration of a task: the model configuration (the
// worker's own key), the rules, the tools' isolation, and whatever the task's options
// ask for. The worker then sets the task, the work dir (created empty, or filled by
// Prepare), the trace path, the run id and the trace header's fleet fields.
type PrepareFunc func(ctx context.Context, t Task, workdir string) (taskrun.Config, error)

// WorkerConfig is one worker.
type WorkerConfig struct {
	Name        string // shown in statuses; "" for <hostname>-<pid>
	Concurrency int    // tasks run at once; 0 for 1
	WorkdirRoot string // each attempt works in <root>/<task id>/<attempt>/work
	// AckWait is how long a delivered task may go without a word from its worker before
	// it is redelivered; the worker says "in progress" every third of it. 0 keeps the
	// consumer's (DefaultAckWait when new). It is the consumer's, shared by all workers.
	AckWait time.Duration
	Prepare PrepareFunc
	// AllowNet is the most a task's --allow-net may open (see NetPolicy): a task entry
	// outside it, or leading to loopback, link-local or the fleet's own NATS server
	// without this list naming that literally, fails the attempt. Empty: tasks get no
	// network. Prepare's own AllowNet (the worker's) is kept.
	AllowNet []sandbox.NetRule
	// Signer, when set, signs every trace the worker writes (its own key, read once);
	// SignKey names its file, which must lie outside every task's work dir and is hidden
	// from the sandbox. The attempt records the key's fingerprint.
	Signer  *trace.Signer
	SignKey string
	// Memory, when set, is the worker's store as an index of the fleet's Megram log
	// (Client.ShareMemory): each run calibrates with it once it has caught up with the
	// log, and its new records go to the log before the task is acknowledged. The Dreamer
	// runs on the lease holder only.
	Memory *SharedMemory
	// Resume, when set, continues a redelivered task from the lines its superseded
	// attempt stored (every attempt stores its trace's lines as they are written)
	// instead of running it from the start; nil reruns it.
	Resume ResumeFunc
	// Snapshots, when set, is the store every run snapshots its work dir into at each
	// round boundary and after each tool call that may change it (unless the task shares memory: such runs cannot be resumed); each
	// snapshot's new objects go to the fleet's store before the line that records it, and
	// a task resumed here restores the last one its stored lines record (resume.go).
	// nil: no snapshots (a resume of lines that record some still restores, through a
	// store in the attempt's dir).
	Snapshots *snapshot.Store
	// Drain ends Run once the queue holds nothing for any worker: no task waiting and
	// none in another worker's hands (a batch's end, a script's).
	Drain bool
	Clock clock.Clock // stamps attempts; nil for the wall clock
	// Log hears what the worker does, a line at a time (no secret is ever in it).
	Log func(string)
}

// ErrConnectionLost ends Worker.Run when the NATS connection is closed for good (the
// client gave up reconnecting, e.g. refused credentials): the worker took no task after
// it, and the tasks it held were run to their end by their rules. A connection that
// drops is not lost: the worker waits for it to come back (see Worker.Run).
var ErrConnectionLost = errors.New("fleet: the NATS connection is closed; this worker takes no more tasks")

// Worker pulls tasks from the fleet's queue and runs them.
type Worker struct {
	c        *Client
	cfg      WorkerConfig
	cons     jetstream.Consumer
	ackWait  time.Duration
	lost     atomic.Bool
	offline  atomic.Bool // the connection is down and the worker has said so
	stopping atomic.Bool
	done     atomic.Int64
}

// DefaultWorkerName is a worker's name when none is given: HOST-PID.
func DefaultWorkerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// NewWorker checks cfg and makes sure the work consumer exists with cfg.AckWait.
func (c *Client) NewWorker(ctx context.Context, cfg WorkerConfig) (*Worker, error) {
	if cfg.Prepare == nil {
		return nil, errors.New("fleet: a worker needs a Prepare function")
	}
	if cfg.WorkdirRoot == "" {
		return nil, errors.New("fleet: a worker needs a work dir root")
	}
	if cfg.Concurrency < 0 {
		return nil, fmt.Errorf("fleet: concurrency %d: expected 1 or more", cfg.Concurrency)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 1
	}
	if cfg.AckWait < 0 {
		return nil, fmt.Errorf("fleet: ack wait %s: expected a positive duration", cfg.AckWait)
	}
	if cfg.Name == "" {
		cfg.Name = DefaultWorkerName()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Log == nil {
		cfg.Log = func(string) {}
	}
	if err := os.MkdirAll(cfg.WorkdirRoot, 0o700); err != nil {
		return nil, fmt.Errorf("fleet: work dir root: %w", err)
	}
	cons, err := c.workConsumer(ctx, cfg.AckWait)
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: work consumer: %w", err)
	}
	return &Worker{c: c, cfg: cfg, cons: cons, ackWait: info.Config.AckWait}, nil
}

// Stop makes the worker take no more tasks: Run returns nil once the tasks in hand have
// run to their end and been recorded (cancelling Run's context aborts them instead).
func (w *Worker) Stop() { w.stopping.Store(true) }

// Name is the worker's name in statuses.
func (w *Worker) Name() string { return w.cfg.Name }

// Done is how many tasks this worker has handled to the end (acknowledged).
func (w *Worker) Done() int64 { return w.done.Load() }

// Run takes tasks until ctx is cancelled (it returns nil) or the connection is closed
// for good (it returns ErrConnectionLost). Tasks in hand when ctx is cancelled are left
// unacknowledged, to be redelivered.
//
// When the connection drops the client reconnects with backoff; meanwhile the worker
// takes no task, the runs in hand go on, their "in progress" words wait in the client's
// buffer, and their results are recorded once the server answers again. The work
// consumer is durable, so a task's delivery, and the lease its worker keeps renewing,
// outlive a server restart on the same store.
func (w *Worker) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := 0; i < w.cfg.Concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.slot(ctx)
		}()
	}
	wg.Wait()
	if w.lost.Load() && ctx.Err() == nil {
		return ErrConnectionLost
	}
	return nil
}

// slot is one task at a time: pull, run, store, acknowledge.
func (w *Worker) slot(ctx context.Context) {
	for ctx.Err() == nil && !w.stopping.Load() {
		if w.c.Closed() {
			if w.lost.CompareAndSwap(false, true) {
				w.cfg.Log("the NATS connection is closed: taking no more tasks")
			}
			return
		}
		if w.lost.Load() {
			return
		}
		if !w.c.Connected() {
			if w.offline.CompareAndSwap(false, true) {
				w.cfg.Log("the NATS connection is down: reconnecting; the tasks in hand keep running")
			}
			w.pause(ctx, MinReconnectWait)
			continue
		}
		if w.offline.CompareAndSwap(true, false) {
			w.cfg.Log("the NATS connection is back: taking tasks again")
		}
		fctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		batch, err := w.cons.Fetch(1, jetstream.FetchContext(fctx))
		if err != nil {
			cancel()
			if ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			w.handle(ctx, msg)
		}
		cancel()
		if got == 0 && w.cfg.Drain && w.drained(ctx) {
			return
		}
	}
}

// handle runs one delivery of a task.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	var t Task
	if err := json.Unmarshal(msg.Data(), &t); err != nil || t.ID == "" {
		w.cfg.Log(fmt.Sprintf("a queued message is not a task (%v): dropped", err))
		_ = msg.Term()
		return
	}
	// The attempt's number is the task's own counter, kept in its status and taken by
	// the same compare-and-set that records the attempt: one more than the highest
	// attempt recorded. JetStream's delivery count is not used: it starts again at 1 when
	// a killed server loses the consumer's state, and attempt numbers, run ids, work dirs
	// and trace objects must never repeat.
	var (
		n          int
		runID      string
		superseded []Attempt
	)
	// A task queued without a status (its submit could not write it after the publish)
	// gets one now, from the message.
	seed := &Status{Task: t, State: Queued}
	st, err := w.c.updateOrCreate(ctx, t.ID, seed, func(s *Status) bool {
		superseded = superseded[:0]
		if s.State == Finished {
			return false
		}
		n = s.nextAttempt()
		runID = fmt.Sprintf("%s-%d", t.ID, n)
		for i := range s.Attempts {
			if s.Attempts[i].State == Running {
				s.Attempts[i].State = Superseded
				superseded = append(superseded, s.Attempts[i])
			}
		}
		s.State = Running
		s.Attempts = append(s.Attempts, Attempt{N: n, Worker: w.cfg.Name, RunID: runID, State: Running, StartedAt: w.cfg.Clock.Now().UTC()})
		return true
	})
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: %v", t.ID, err))
		return // redelivered after the ack wait
	}
	if st.State == Finished {
		// An earlier attempt stored its result but was gone before acknowledging.
		w.ack(ctx, msg, t.ID)
		return
	}
	w.cfg.Log(fmt.Sprintf("task %s: attempt %d started (run %s)", t.ID, n, runID))

	// The lease is renewed until the result is recorded and acknowledged, which may
	// wait for the server to come back.
	stop := w.heartbeat(msg)
	defer stop()
	a, runErr := w.run(ctx, t, n, runID, superseded)
	if ctx.Err() != nil {
		// Stopping: the task goes back to the queue for another worker.
		_ = msg.Nak()
		return
	}
	w.finish(ctx, msg, t, a, runErr)
}

// pause waits d, or less when ctx ends.
func (w *Worker) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// persist does one write of a task's to JetStream, doing it again while the server does
// not answer (the connection is down, or back but the server not ready), with backoff:
// a result is not given up because the server restarted while the run went on. It
// gives up when ctx ends, when the connection is closed for good, or when the worker is
// stopping and the connection is down; the task is then redelivered.
func (w *Worker) persist(ctx context.Context, what string, f func(context.Context) error) error {
	wait := MinReconnectWait
	for said := false; ; said = true {
		err := f(ctx)
		if err == nil || ctx.Err() != nil || w.c.Closed() || !unanswered(err) && w.c.Connected() ||
			w.stopping.Load() && !w.c.Connected() {
			return err
		}
		if !said {
			w.cfg.Log(fmt.Sprintf("%s: %v; trying again until the server answers", what, err))
		}
		w.pause(ctx, wait)
		wait = min(2*wait, MaxReconnectWait)
	}
}

// heartbeat tells the server the task is in progress every third of the ack wait.
func (w *Worker) heartbeat(msg jetstream.Msg) (stop func()) {
	every := w.ackWait / 3
	if every <= 0 {
		every = time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// attemptRun is how an attempt's run went.
type attemptRun struct {
	n         int
	final     *taskrun.Result
	trace     string // object name, "" when none was stored
	traceHead string
	signedBy  string
}

// run runs the task with taskrun in a fresh work dir and stores its trace.
func (w *Worker) run(ctx context.Context, t Task, n int, runID string, superseded []Attempt) (attemptRun, error) {
	out := attemptRun{n: n}
	dir := filepath.Join(w.cfg.WorkdirRoot, t.ID, strconv.Itoa(n))
	if _, err := os.Stat(dir); err == nil {
		dir = taskrun.FreshPath(dir) // a work dir is never reused
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return out, fmt.Errorf("work dir: %w", err)
	}
	// The worker decides the task's network before anything of the task runs.
	policy := NetPolicy{Allow: w.cfg.AllowNet, Fleet: w.c.serverAddrs()}
	taskNet, err := policy.TaskRules(ctx, t.Options.AllowNet)
	if err != nil {
		return out, err
	}
	cfg, err := w.cfg.Prepare(ctx, t, work)
	if err != nil {
		return out, err
	}
	cfg.AllowNet = append(cfg.AllowNet, taskNet...)
	if len(taskNet) > 0 {
		// The same policy again at every connection: a name may resolve elsewhere later.
		if cfg.NetCheck, err = policy.AddrCheck(ctx); err != nil {
			return out, err
		}
	}
	if w.cfg.Signer != nil {
		cfg.Signer, cfg.SignKey = w.cfg.Signer, w.cfg.SignKey
	}
	cfg.Task, cfg.Workdir, cfg.RunID = t.Text, work, runID
	cfg.TracePath = filepath.Join(dir, "trace.jsonl")
	cfg.Meta = fleetMeta(cfg.Meta, t, n, w.cfg.Name, superseded)
	if cfg.Snapshots == nil && w.cfg.Memory == nil {
		cfg.Snapshots = w.cfg.Snapshots
	}
	if m := w.cfg.Memory; m != nil {
		// Every record the log holds now is in the store before the run calibrates.
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := m.CatchUp(cctx); err != nil {
			w.cfg.Log(fmt.Sprintf("task %s: memory is behind the Megram log: %v", t.ID, err))
		}
		cancel()
		cfg.Memory, cfg.MemoryDir, cfg.SkipDream = m.Store(), "", true
	}
	// What the attempt continues from, its snapshot restored: before the run, which may
	// then snapshot into the store the restore used.
	from, err := w.resumePoint(ctx, t, n, dir, &cfg)
	if err != nil {
		return out, err
	}
	tap := newBusTap(w.c, runID)
	cfg.Events = append(cfg.Events, tap.publish)
	// The line stream stores the file's bytes as written, so it sits on the file's sink
	// itself rather than on the observer path, which sees events, not their lines.
	lines := newLineTap(w.c, t.ID, n, cfg.TracePath)
	if cfg.Snapshots != nil {
		lines.snaps = &snapPush{store: cfg.Snapshots, remote: &w.c.snaps, connected: w.c.Connected}
	}
	wrap := cfg.WrapSink
	cfg.WrapSink = func(next trace.Sink) trace.Sink {
		next = lines.wrap(next)
		if wrap != nil {
			next = wrap(next)
		}
		return next
	}
	res, runErr := w.start(ctx, from, cfg)
	if res.TracePath != "" {
		tap.end(runErr) // a run that ended on an error ends for the fleet's Auditor too
	}
	if m := w.cfg.Memory; m != nil && res.TracePath != "" {
		dreamed, n, err := m.AfterTask(ctx)
		switch {
		case err != nil:
			// Not acknowledged: the Megrams of an acknowledged task are in the log.
			out.final = &res
			return out, fmt.Errorf("memory: %w", err)
		case dreamed:
			w.cfg.Log(fmt.Sprintf("task %s: the Dreamer ran here (lease held); %d record(s) to the Megram log", t.ID, n))
		case n > 0:
			w.cfg.Log(fmt.Sprintf("task %s: %d record(s) to the Megram log", t.ID, n))
		}
	}
	// Bounded: without a server the acknowledgements never come.
	bound := 10 * time.Second
	if !w.c.Connected() {
		bound = time.Second
	}
	tctx, tcancel := context.WithTimeout(ctx, bound)
	err = tap.close(tctx)
	tcancel()
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: bus messages: %v", t.ID, err))
	}
	tctx, tcancel = context.WithTimeout(ctx, bound)
	_, err = lines.close(tctx)
	tcancel()
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: trace lines: %v", t.ID, err))
	}
	if res.TracePath == "" {
		return out, runErr // refused before the run: no trace
	}
	out.final = &res
	b, err := os.ReadFile(res.TracePath)
	if err != nil {
		return out, fmt.Errorf("reading the trace: %w", err)
	}
	name := fmt.Sprintf("%s/%d", t.ID, n)
	if err := w.persist(ctx, fmt.Sprintf("task %s: storing the trace", t.ID), func(ctx context.Context) error {
		_, err := w.c.traces.PutBytes(ctx, name, b)
		return err
	}); err != nil {
		return out, fmt.Errorf("storing the trace: %w", err)
	}
	out.trace, out.traceHead, out.signedBy = name, res.TraceHead, res.SignedBy
	return out, runErr
}

// fleetMeta adds the fleet's fields to the trace header: which task and attempt this
// run is, on which worker, and which earlier attempts it supersedes.
func fleetMeta(meta map[string]string, t Task, n int, worker string, superseded []Attempt) map[string]string {
	out := map[string]string{}
	for k, v := range meta {
		out[k] = v
	}
	out["fleet_task"], out["fleet_attempt"], out["fleet_worker"] = t.ID, strconv.Itoa(n), worker
	if len(superseded) > 0 {
		s := ""
		for i, a := range superseded {
			if i > 0 {
				s += "; "
			}
			s += fmt.Sprintf("attempt %d on %s (run %s)", a.N, a.Worker, a.RunID)
		}
		out["fleet_supersedes"] = s
	}
	return out
}

// finish records the attempt's result — accepted if the task has none and the attempt
// was not superseded meanwhile — and acknowledges the task once it is recorded.
func (w *Worker) finish(ctx context.Context, msg jetstream.Msg, t Task, a attemptRun, runErr error) {
	if a.final != nil && a.trace == "" {
		// The trace could not be stored: no result is recorded without it.
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d: %v; left for redelivery", t.ID, a.n, runErr))
		return
	}
	if a.final == nil && a.trace == "" && runErr != nil {
		w.failedStart(ctx, msg, t, a.n, runErr)
		return
	}
	accepted := false
	var st Status
	err := w.persist(ctx, fmt.Sprintf("task %s: recording attempt %d", t.ID, a.n), func(ctx context.Context) (err error) {
		st, err = w.c.update(ctx, t.ID, w.recordResult(a, runErr, &accepted))
		return err
	})
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d: recording the result: %v; left for redelivery", t.ID, a.n, err))
		return
	}
	if !accepted {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d finished after it was superseded; its result is not the task's", t.ID, a.n))
		if st.State == Finished {
			w.forgetLines(ctx, t.ID)
			w.ack(ctx, msg, t.ID)
		}
		return
	}
	w.forgetLines(ctx, t.ID) // the task is finished: no attempt of it resumes
	w.cfg.Log(fmt.Sprintf("task %s: attempt %d finished: %s", t.ID, a.n, st.Outcome()))
	w.ack(ctx, msg, t.ID)
}

// recordResult is the change to a status that records attempt a's result: accepted
// (*accepted set) if the task has none and the attempt was not superseded meanwhile,
// else refused.
func (w *Worker) recordResult(a attemptRun, runErr error, accepted *bool) func(*Status) bool {
	return func(s *Status) bool {
		*accepted = false
		i := -1
		for j := range s.Attempts {
			if s.Attempts[j].N == a.n {
				i = j
			}
		}
		if i < 0 {
			return false
		}
		at := &s.Attempts[i]
		if s.Accepted == a.n && at.State == Finished {
			*accepted = true // recorded by an earlier try whose answer was lost
			return false
		}
		at.EndedAt, at.Trace, at.TraceHead, at.SignedBy = w.cfg.Clock.Now().UTC(), a.trace, a.traceHead, a.signedBy
		if s.State == Finished || at.State != Running {
			at.State = Refused
			return true
		}
		at.State, s.State, s.Accepted, *accepted = Finished, Finished, a.n, true
		s.Final, s.Error = nil, ""
		if a.final != nil {
			s.Final = a.final.Final
		}
		if runErr != nil {
			s.Error = runErr.Error()
		} else if s.Final == nil {
			s.Error = "the run ended without a FinalResult"
		}
		return true
	}
}

// publishRunEnd puts the end marker of a run that wrote no trace on the bus stream.
func (w *Worker) publishRunEnd(ctx context.Context, task, run, why string) {
	msg, err := runEndMsg(run, why)
	if err == nil {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = w.c.js.PublishMsg(pctx, msg)
		cancel()
	}
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: publishing its run's end: %v", task, err))
	}
}

// failedStart records an attempt whose run did not start (no trace) and puts the task
// back on the queue, after a pause that grows with each such failure so that a worker
// whose sandbox is broken does not spin through the queue; the MaxStartFailures-th
// such attempt ends the task with its error.
func (w *Worker) failedStart(ctx context.Context, msg jetstream.Msg, t Task, n int, runErr error) {
	failures, final, runID := 0, false, ""
	st, err := w.c.update(ctx, t.ID, func(s *Status) bool {
		failures, final, runID = 0, false, ""
		i := -1
		for j := range s.Attempts {
			if s.Attempts[j].N == n {
				i = j
			}
			if s.Attempts[j].State == Failed {
				failures++
			}
		}
		if i < 0 {
			return false
		}
		at := &s.Attempts[i]
		at.EndedAt, at.Error = w.cfg.Clock.Now().UTC(), runErr.Error()
		if s.State == Finished || at.State != Running {
			at.State = Refused
			return true
		}
		at.State = Failed
		failures++
		if failures < MaxStartFailures {
			s.State = Queued
			return true
		}
		final, runID = true, at.RunID
		s.State, s.Accepted, s.Final = Finished, n, nil
		s.Error = fmt.Sprintf("no run could start in %d attempts; the last: %v", failures, runErr)
		return true
	})
	switch {
	case err != nil:
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d: recording its failure: %v; left for redelivery", t.ID, n, err))
	case final || st.State == Finished:
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d could not start: %v; the task ends with that error", t.ID, n, runErr))
		if final {
			// The task's last run ended before it began: it ends for the fleet's Auditor too.
			w.publishRunEnd(ctx, t.ID, runID, st.Error)
		}
		w.ack(ctx, msg, t.ID)
	default:
		delay := time.Duration(failures) * w.ackWait / 2
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d could not start: %v; back to the queue in %s", t.ID, n, runErr, delay))
		if err := msg.NakWithDelay(delay); err != nil {
			w.cfg.Log(fmt.Sprintf("task %s: returning it to the queue: %v", t.ID, err))
		}
	}
}

// ackAttempts bounds the tries of an acknowledgement the server did not answer. One that
// never arrives costs a redelivery, which finds the result recorded and acknowledges.
const ackAttempts = 5

func (w *Worker) ack(ctx context.Context, msg jetstream.Msg, id string) {
	wait := MinReconnectWait
	for try := 1; ; try++ {
		err := msg.DoubleAck(ctx)
		if err == nil {
			w.done.Add(1)
			return
		}
		if try == ackAttempts || ctx.Err() != nil || w.c.Closed() || !unanswered(err) {
			w.cfg.Log(fmt.Sprintf("task %s: acknowledging: %v", id, err))
			return
		}
		w.pause(ctx, wait)
		wait = min(2*wait, MaxReconnectWait)
	}
}

// drained reports whether no task is waiting and none is in any worker's hands.
func (w *Worker) drained(ctx context.Context) bool {
	info, err := w.cons.Info(ctx)
	return err == nil && info.NumPending == 0 && info.NumAckPending == 0
}
