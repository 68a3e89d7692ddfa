package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The fleet's JetStream layout (and LineStream, the trace lines: tracestream.go; and
// SnapshotBucket, the work-dir snapshots: snapstore.go).
const (
	TaskStream     = "SPINE_TASKS"    // work queue of submitted tasks
	TaskSubject    = "spine.task"     // what Submit publishes on
	WorkConsumer   = "spine-workers"  // the durable pull consumer every worker shares
	StatusBucket   = "spine_status"   // task id → Status
	TraceBucket    = "spine_traces"   // object store: <task id>/<attempt> → the whole trace
	BusStream      = "SPINE_BUS"      // every bus message of every run
	BusSubjectPfx  = "spine.run."     // spine.run.<run>.<from>.<to>
	DefaultAckWait = 30 * time.Second // a task not acknowledged nor in progress this long is redelivered
)

// setup creates what is missing of the layout; what exists is kept as it is, so a
// restarted server keeps its queue, statuses and traces.
func (c *Client) setup(ctx context.Context) error {
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: TaskStream, Subjects: []string{TaskSubject}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: time.Hour,
	}); err != nil {
		return fmt.Errorf("task stream: %w", err)
	}
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: BusStream, Subjects: []string{BusSubjectPfx + ">"}, Storage: jetstream.FileStorage,
	}); err != nil {
		return fmt.Errorf("bus stream: %w", err)
	}
	if err := c.lineStream(ctx); err != nil {
		return err
	}
	var err error
	if c.status, err = c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: StatusBucket, History: 8, Storage: jetstream.FileStorage}); err != nil {
		return fmt.Errorf("status bucket: %w", err)
	}
	if c.traces, err = c.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: TraceBucket, Storage: jetstream.FileStorage}); err != nil {
		return fmt.Errorf("trace store: %w", err)
	}
	if err := c.snapshotBucket(ctx); err != nil {
		return err
	}
	if _, err := c.js.Consumer(ctx, TaskStream, WorkConsumer); errors.Is(err, jetstream.ErrConsumerNotFound) {
		_, err = c.workConsumer(ctx, 0)
		return err
	} else if err != nil {
		return fmt.Errorf("work consumer: %w", err)
	}
	return nil
}

// workConsumer creates or updates the shared pull consumer; ackWait 0 keeps the
// consumer's own (DefaultAckWait for a new one).
func (c *Client) workConsumer(ctx context.Context, ackWait time.Duration) (jetstream.Consumer, error) {
	if ackWait == 0 {
		if cons, err := c.js.Consumer(ctx, TaskStream, WorkConsumer); err == nil {
			return cons, nil
		}
		ackWait = DefaultAckWait
	}
	cons, err := c.js.CreateOrUpdateConsumer(ctx, TaskStream, jetstream.ConsumerConfig{
		Durable: WorkConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
		MaxDeliver: -1, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("work consumer: %w", err)
	}
	return cons, nil
}

// token makes s usable as one token of a subject: no dots, wildcards or spaces.
func token(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '*', '>', ' ', '\t', '\r', '\n':
			return '_'
		}
		return r
	}, s)
}
