package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/contract"
)

// RunOptions are the run flags a task carries to its worker: what `spine run` would be
// given besides the task, minus anything secret or local (the key, the work dir, the
// trace path are the worker's).
type RunOptions struct {
	Model    string   `json:"model,omitempty"`
	Caution  string   `json:"caution,omitempty"`
	AllowNet []string `json:"allow_net,omitempty"`
}

// Task is one submitted task as it sits on the queue.
type Task struct {
	ID          string     `json:"id"`
	Text        string     `json:"task"`
	Options     RunOptions `json:"options"`
	SubmittedAt time.Time  `json:"submitted_at"`
}

// States of a task.
const (
	Queued   = "queued"
	Running  = "running"
	Finished = "finished"
)

// States of an attempt besides Running and Finished.
const (
	// Superseded: the task was delivered again while this attempt held it (its worker
	// died or stopped answering); a superseded attempt's result is never accepted.
	Superseded = "superseded"
	// Refused: the attempt finished after the task already had an accepted result, or
	// after it was superseded; its trace is kept, its result is not the task's.
	Refused = "refused"
	// Failed: the worker could not start the run (its sandbox, work dir, memory or model
	// set-up failed) and left no trace. That says more of the worker than of the task,
	// so the task goes back to the queue, until MaxStartFailures attempts have failed so.
	Failed = "failed"
)

// MaxStartFailures is how many attempts of a task may fail to start a run before the
// task ends with the last one's error instead of going back to the queue once more. It
// counts attempts recorded failed in the task's status, not deliveries: a delivery whose
// attempt was never recorded (its worker could not reach the status) ran nothing, and
// JetStream's delivery count starts again at 1 when a killed server loses its state.
const MaxStartFailures = 3

// Attempt is one delivery of a task to a worker that took it.
type Attempt struct {
	N         int       `json:"n"` // 1, 2, …: never repeated within a task (Status.nextAttempt)
	Worker    string    `json:"worker"`
	RunID     string    `json:"run_id"`
	State     string    `json:"state"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	Trace     string    `json:"trace,omitempty"` // its object in TraceBucket
	TraceHead string    `json:"trace_head,omitempty"`
	SignedBy  string    `json:"signed_by,omitempty"` // fingerprint of the worker's key that signed the trace
	Error     string    `json:"error,omitempty"`     // why a failed attempt's run did not start
	// Resumed is the earlier attempt and line this one continued from; nil when it ran
	// from the start.
	Resumed *Resumption `json:"resumed,omitempty"`
}

// Status is what the fleet knows of a task.
type Status struct {
	Task
	State    string    `json:"state"`
	Attempts []Attempt `json:"attempts,omitempty"`
	// Accepted is the attempt whose result is the task's (0 while none is); Final is its
	// FinalResult, or Error why it ended without one.
	Accepted int                   `json:"accepted,omitempty"`
	Final    *contract.FinalResult `json:"final,omitempty"`
	Error    string                `json:"error,omitempty"`
}

// nextAttempt is the number of the task's next attempt: one more than the highest
// recorded. The status is only ever rewritten by a compare-and-set on its revision
// (Client.update), and attempts are never removed from it, so two deliveries never get
// the same number, whatever the server forgot between them.
func (s Status) nextAttempt() int {
	n := 0
	for _, a := range s.Attempts {
		n = max(n, a.N)
	}
	return n + 1
}

// Outcome is the task's outcome in a word: the FinalResult's directive (with its reason
// when a fault ended it), "error", or "" while it has none.
func (s Status) Outcome() string {
	switch {
	case s.Final != nil && s.Final.Reason != "":
		return s.Final.Directive + " (" + s.Final.Reason + ")"
	case s.Final != nil:
		return s.Final.Directive
	case s.Accepted > 0:
		return "error"
	}
	return ""
}

// AcceptedAttempt is the attempt whose result is the task's.
func (s Status) AcceptedAttempt() (Attempt, bool) {
	for _, a := range s.Attempts {
		if a.N == s.Accepted && s.Accepted > 0 {
			return a, true
		}
	}
	return Attempt{}, false
}

// Submit puts a task on the queue and returns its status, queued. Its id comes from the
// client's IDSource.
//
// The task is published first and its status recorded after, so a submit either queues
// the task or leaves nothing behind: a status written first could outlive a publish
// that failed (its clean-up fails too when the server is gone), a task no worker would
// ever take. The publish carries the task id as its JetStream message id, so trying it
// again after an unanswered publish never queues the task twice. Once the task is
// queued it is the submitter's: when its status cannot be written (the server went away
// after storing it) Submit still succeeds, and the worker that takes the task records
// the status from the message (Worker.handle).
func (c *Client) Submit(ctx context.Context, text string, o RunOptions) (Status, error) {
	if strings.TrimSpace(text) == "" {
		return Status{}, errors.New("fleet: the task text is empty")
	}
	id := newTaskID(c.ids.NewID())
	st := Status{Task: Task{ID: id, Text: text, Options: o, SubmittedAt: c.clock.Now().UTC()}, State: Queued}
	msg, err := json.Marshal(st.Task)
	if err != nil {
		return Status{}, err
	}
	if err := c.publishTask(ctx, id, msg); err != nil {
		return Status{}, err
	}
	val, err := json.Marshal(st)
	if err != nil {
		return Status{}, err
	}
	// Queued whatever this says: a failed write leaves the status to the worker that
	// takes the task, and ErrKeyExists means one already has.
	_, _ = c.status.Create(ctx, id, val)
	return st, nil
}

// publishAttempts bounds how often Submit tries a publish whose outcome it does not know.
const publishAttempts = 3

// publishTask puts the task's message on the queue, trying again (with the same message
// id, which the stream deduplicates) while the server does not answer.
func (c *Client) publishTask(ctx context.Context, id string, msg []byte) error {
	var err error
	for try := 1; try <= publishAttempts; try++ {
		_, err = c.js.PublishMsg(ctx, &nats.Msg{Subject: TaskSubject, Data: msg,
			Header: nats.Header{jetstream.MsgIDHeader: []string{id}}})
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !unanswered(err) {
			break
		}
	}
	if unanswered(err) && !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, jetstream.ErrNoStreamResponse) {
		return fmt.Errorf("fleet: queueing task %s: %w (the server may have stored it before it stopped answering: `spine status %s` shows it once a worker takes it)", id, err, id)
	}
	return fmt.Errorf("fleet: queueing task %s: %w", id, err)
}

// unanswered reports whether err says a request went without an answer (a timeout, no
// responder, a connection down), rather than that the server refused it.
func unanswered(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrConnectionReconnecting) || errors.Is(err, nats.ErrDisconnected)
}

// newTaskID makes a task id from an id source's id: "task-" and at most 16 of its
// characters, those a KV key and a subject token allow.
func newTaskID(raw string) string {
	var b strings.Builder
	for _, r := range raw {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
		if b.Len() == 16 {
			break
		}
	}
	return "task-" + b.String()
}

// Status reads one task's status.
func (c *Client) Status(ctx context.Context, id string) (Status, error) {
	st, _, err := c.readStatus(ctx, id)
	return st, err
}

// ErrNoTask is the error of a task id the fleet does not know.
var ErrNoTask = errors.New("no such task")

func (c *Client) readStatus(ctx context.Context, id string) (Status, uint64, error) {
	if id == "" || strings.ContainsAny(id, ".*> \t") {
		return Status{}, 0, fmt.Errorf("fleet: task %q: %w", id, ErrNoTask)
	}
	e, err := c.status.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Status{}, 0, fmt.Errorf("fleet: task %q: %w", id, ErrNoTask)
	}
	if err != nil {
		return Status{}, 0, fmt.Errorf("fleet: task %s: %w", id, err)
	}
	var st Status
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return Status{}, 0, fmt.Errorf("fleet: task %s: status revision %d is not a status: %w", id, e.Revision(), err)
	}
	return st, e.Revision(), nil
}

// List reads every task's status, oldest submission first (then by id).
func (c *Client) List(ctx context.Context) ([]Status, error) {
	keys, err := c.status.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: listing tasks: %w", err)
	}
	var out []Status
	for k := range keys.Keys() {
		st, err := c.Status(ctx, k)
		if errors.Is(err, ErrNoTask) {
			continue // purged meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Status) int {
		if c := a.SubmittedAt.Compare(b.SubmittedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// update applies change to the task's status with a compare-and-set on its revision,
// retrying when another writer came first. change sees the current status and returns
// false to leave it as it is.
func (c *Client) update(ctx context.Context, id string, change func(*Status) bool) (Status, error) {
	return c.updateOrCreate(ctx, id, nil, change)
}

// updateOrCreate is update, except that a task with no status yet starts from seed (when
// not nil), written only if no status appeared meanwhile.
func (c *Client) updateOrCreate(ctx context.Context, id string, seed *Status, change func(*Status) bool) (Status, error) {
	for {
		st, rev, err := c.readStatus(ctx, id)
		if errors.Is(err, ErrNoTask) && seed != nil {
			st, rev, err = *seed, 0, nil
		}
		if err != nil {
			return st, err
		}
		if !change(&st) {
			return st, nil
		}
		val, err := json.Marshal(st)
		if err != nil {
			return st, err
		}
		if rev == 0 {
			_, err = c.status.Create(ctx, id, val)
		} else {
			_, err = c.status.Update(ctx, id, val, rev)
		}
		if err == nil {
			return st, nil
		}
		var apiErr *jetstream.APIError
		if !errors.Is(err, jetstream.ErrKeyExists) &&
			(!errors.As(err, &apiErr) || apiErr.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence) {
			return st, fmt.Errorf("fleet: task %s: %w", id, err)
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
	}
}

// Trace fetches the trace of a task's attempt: the accepted one when attempt is 0.
func (c *Client) Trace(ctx context.Context, id string, attempt int) ([]byte, Attempt, error) {
	st, err := c.Status(ctx, id)
	if err != nil {
		return nil, Attempt{}, err
	}
	var a Attempt
	found := false
	for _, x := range st.Attempts {
		if attempt == 0 && x.N == st.Accepted && st.Accepted > 0 || attempt != 0 && x.N == attempt {
			a, found = x, true
		}
	}
	switch {
	case !found && attempt == 0:
		return nil, a, fmt.Errorf("fleet: task %s is %s and has no accepted result yet", id, st.State)
	case !found:
		return nil, a, fmt.Errorf("fleet: task %s has no attempt %d (it has %d)", id, attempt, len(st.Attempts))
	case a.Trace == "" && a.Error != "":
		return nil, a, fmt.Errorf("fleet: task %s's attempt %d (%s) stored no trace: its run did not start: %s", id, a.N, a.State, a.Error)
	case a.Trace == "":
		return nil, a, fmt.Errorf("fleet: task %s's attempt %d (%s) stored no trace", id, a.N, a.State)
	}
	b, err := c.traces.GetBytes(ctx, a.Trace)
	if err != nil {
		return nil, a, fmt.Errorf("fleet: trace %s: %w", a.Trace, err)
	}
	return b, a, nil
}
