package fleet

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/memory"
)

// The Megram log and the Dreamer's lease.
const (
	MegramStream  = "SPINE_MEGRAMS" // every record of every worker's store, append-only
	MegramSubject = "spine.megram"
	LeaseBucket   = "spine_leases" // key DreamerLease: the worker that runs the Dreamer
	DreamerLease  = "dreamer"
	// DefaultLeaseTTL is how long a lease outlives its holder's last renewal.
	DefaultLeaseTTL = 30 * time.Second
)

// SharedMemory makes a worker's LevelDB store an index of the fleet's Megram log. Every
// record the worker's runs (GGS's Megrams) or its Dreamer add is appended to the log in
// its exported form; every record of the log is restored into the store as it was
// exported, once, deduplicated by its id. So calibration on any worker reads every
// worker's experience. Only the holder of the Dreamer lease runs the Dreamer; its new
// records flow back to the others through the log. A record's recall time and its
// forgetting stay each store's own: the log only grows.
type SharedMemory struct {
	c    *Client
	mem  *memory.Service
	name string
	ttl  time.Duration

	mu      sync.Mutex
	known   map[string]bool // ids in the log or restored from it
	applied uint64          // the last log seq restored
	errs    int             // log records this store refused
	lastErr error

	stop      func()
	closeOnce sync.Once
}

// ShareMemory starts materialising the Megram log into mem (an ordered consumer from the
// log's first record) and returns the worker's handle on it. name identifies the worker
// for the lease; ttl 0 is DefaultLeaseTTL.
func (c *Client) ShareMemory(ctx context.Context, mem *memory.Service, name string, ttl time.Duration) (*SharedMemory, error) {
	if mem == nil || name == "" {
		return nil, errors.New("fleet: shared memory needs a store and the worker's name")
	}
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: MegramStream, Subjects: []string{MegramSubject},
		Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
		return nil, fmt.Errorf("fleet: Megram log: %w", err)
	}
	if _, err := c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: LeaseBucket, TTL: ttl, Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("fleet: lease bucket: %w", err)
	}
	cons, err := c.js.OrderedConsumer(ctx, MegramStream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, fmt.Errorf("fleet: Megram log: %w", err)
	}
	s := &SharedMemory{c: c, mem: mem, name: name, ttl: ttl, known: map[string]bool{}}
	cc, err := cons.Consume(s.apply)
	if err != nil {
		return nil, fmt.Errorf("fleet: Megram log: %w", err)
	}
	s.stop = func() { cc.Stop(); <-cc.Closed() }
	return s, nil
}

// Store is the worker's store: what its runs calibrate with and write to.
func (s *SharedMemory) Store() *memory.Service { return s.mem }

// apply restores one log record into the store unless it is known.
func (s *SharedMemory) apply(msg jetstream.Msg) {
	md, err := msg.Metadata()
	if err != nil {
		return
	}
	rec, err := memory.ParseExportLine(bytes.TrimSpace(msg.Data()))
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.applied = md.Sequence.Stream }()
	if err != nil {
		s.refused(fmt.Errorf("log seq %d: %w", md.Sequence.Stream, err))
		return
	}
	if s.known[rec.Record.ID] {
		return
	}
	s.known[rec.Record.ID] = true
	// SkipExisting: a record this store wrote itself, or restored before a restart, is
	// already there; one stored with other values (its own later recall) is kept as is.
	if _, err := s.mem.Restore(context.Background(), []memory.ExportedRecord{rec}, memory.ImportOptions{SkipExisting: true}); err != nil {
		s.refused(err)
	}
}

func (s *SharedMemory) refused(err error) {
	s.errs++
	if s.lastErr == nil {
		s.lastErr = err
	}
}

// Refused is how many log records the store did not take, and the first reason.
func (s *SharedMemory) Refused() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs, s.lastErr
}

// CatchUp waits until every record the log held when it was called is in the store.
func (s *SharedMemory) CatchUp(ctx context.Context) error {
	st, err := s.c.js.Stream(ctx, MegramStream)
	if err != nil {
		return fmt.Errorf("fleet: Megram log: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return fmt.Errorf("fleet: Megram log: %w", err)
	}
	last := info.State.LastSeq
	for {
		s.mu.Lock()
		applied := s.applied
		s.mu.Unlock()
		if applied >= last {
			return s.mem.Flush(ctx)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Publish appends to the log every record of the store the log does not have yet, and
// waits until the server holds them.
func (s *SharedMemory) Publish(ctx context.Context) (int, error) {
	// Bounded: without a server the acknowledgements never come.
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.mem.Flush(ctx); err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	if _, err := s.mem.Export(ctx, &buf); err != nil {
		return 0, err
	}
	var fresh [][]byte
	var ids []string
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 16<<20)
	s.mu.Lock()
	for sc.Scan() {
		rec, err := memory.ParseExportLine(sc.Bytes())
		if err != nil {
			s.mu.Unlock()
			return 0, err
		}
		if !s.known[rec.Record.ID] {
			fresh = append(fresh, bytes.Clone(sc.Bytes()))
			ids = append(ids, rec.Record.ID)
		}
	}
	s.mu.Unlock()
	if err := sc.Err(); err != nil {
		return 0, err
	}
	var acks []jetstream.PubAckFuture
	for i, line := range fresh {
		ack, err := s.c.js.PublishMsgAsync(&nats.Msg{Subject: MegramSubject, Data: line,
			Header: nats.Header{jetstream.MsgIDHeader: []string{ids[i]}}})
		if err != nil {
			return 0, fmt.Errorf("fleet: Megram log: %w", err)
		}
		acks = append(acks, ack)
	}
	for _, a := range acks {
		select {
		case <-a.Ok():
		case err := <-a.Err():
			return 0, fmt.Errorf("fleet: Megram log: %w", err)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	s.mu.Lock()
	for _, id := range ids {
		s.known[id] = true
	}
	s.mu.Unlock()
	return len(fresh), nil
}

// HoldLease takes or renews the Dreamer's lease and reports whether this worker holds
// it. A lease whose holder stopped renewing it expires after the bucket's TTL.
func (s *SharedMemory) HoldLease(ctx context.Context) (bool, error) {
	kv, err := s.c.js.KeyValue(ctx, LeaseBucket)
	if err != nil {
		return false, err
	}
	if _, err := kv.Create(ctx, DreamerLease, []byte(s.name)); err == nil {
		return true, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return false, err
	}
	e, err := kv.Get(ctx, DreamerLease)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil // expired meanwhile: the next call may take it
	}
	if err != nil {
		return false, err
	}
	if string(e.Value()) != s.name {
		return false, nil
	}
	if _, err := kv.Update(ctx, DreamerLease, []byte(s.name), e.Revision()); err != nil {
		return false, nil // another worker took it between the two calls
	}
	return true, nil
}

// AfterTask is the worker's memory step after a run: the lease holder runs a Dreamer
// pass, and every new record goes to the log.
func (s *SharedMemory) AfterTask(ctx context.Context) (dreamed bool, published int, err error) {
	hold, err := s.HoldLease(ctx)
	if err != nil {
		return false, 0, err
	}
	if hold {
		if err := s.mem.Flush(ctx); err != nil {
			return false, 0, err
		}
		if _, err := s.mem.DreamOnce(ctx); err != nil {
			return true, 0, err
		}
		dreamed = true
	}
	published, err = s.Publish(ctx)
	return dreamed, published, err
}

// Close stops materialising and gives the Dreamer's lease back if this worker holds it,
// so another may take it at once rather than after the TTL; the store stays open (it is
// the caller's).
func (s *SharedMemory) Close() { s.closeOnce.Do(s.close) }

func (s *SharedMemory) close() {
	if s.stop != nil {
		s.stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	kv, err := s.c.js.KeyValue(ctx, LeaseBucket)
	if err != nil {
		return
	}
	if e, err := kv.Get(ctx, DreamerLease); err == nil && string(e.Value()) == s.name {
		// Only the revision this worker holds: a lease taken over meanwhile stays.
		_ = kv.Delete(ctx, DreamerLease, jetstream.LastRevision(e.Revision()))
	}
}
