package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/snapshot/tracerefs"
)

// The fleet's snapshot objects: every work-dir snapshot a worker's run records, its
// blobs and manifest (snapshot.BlobName, snapshot.ManifestName) in one JetStream object
// store, each content stored once across the fleet. A worker sends a snapshot's new
// objects before the trace line that records its root (lineTap), so a stored line's
// root is always there to restore; a redelivered task's worker fetches the last one
// before the switch into its own store, checking every hash, and restores it.
const (
	SnapshotBucket = "spine_snapshots"
	// SnapshotMaxAge is how long an object stays unless it is sent again: a root whose
	// objects are older than half of it is sent again whole by the next run that records
	// it, so the objects of a task in progress outlive its stored lines (LineMaxAge).
	SnapshotMaxAge = 2 * LineMaxAge
	// snapshotPushWait bounds the sending of one snapshot's objects.
	snapshotPushWait = 2 * time.Minute
)

// snapshotBucket creates the object store of snapshots when it is missing.
func (c *Client) snapshotBucket(ctx context.Context) error {
	var err error
	c.snaps.os, err = c.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: SnapshotBucket, Storage: jetstream.FileStorage, TTL: SnapshotMaxAge})
	if err != nil {
		return fmt.Errorf("snapshot store: %w", err)
	}
	c.snaps.clock = c.clock
	return nil
}

// snapRemote is the fleet's object store as a snapshot.Remote. It remembers the names
// it saw there, so a run's snapshots ask the server only about what changed.
type snapRemote struct {
	os    jetstream.ObjectStore
	clock clock.Clock
	known sync.Map // name → struct{}
}

var _ snapshot.Remote = (*snapRemote)(nil)

func (r *snapRemote) Has(ctx context.Context, name string) (bool, error) {
	if _, ok := r.known.Load(name); ok {
		return true, nil
	}
	info, err := r.os.GetInfo(ctx, name)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return false, nil
	case err != nil:
		return false, err
	case r.clock.Now().Sub(info.ModTime) > SnapshotMaxAge/2:
		return false, nil // sent again: it would expire before the lines that need it
	}
	r.known.Store(name, struct{}{})
	return true, nil
}

func (r *snapRemote) Put(ctx context.Context, name string, rd io.Reader) error {
	if _, err := r.os.Put(ctx, jetstream.ObjectMeta{Name: name}, rd); err != nil {
		return err
	}
	r.known.Store(name, struct{}{})
	return nil
}

func (r *snapRemote) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	res, err := r.os.Get(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("not in the fleet's %s: %w", SnapshotBucket, snapshot.ErrNotFound)
	}
	return res, err
}

// snapPush sends, before a trace line is stored, the snapshot it records. store is
// where the run takes its snapshots.
type snapPush struct {
	store  *snapshot.Store
	remote *snapRemote
	// connected says whether sending can be tried now; a line waits for the connection.
	connected func() bool
}

// before sends the objects of the root line records, if it records one; an error holds
// the line back (and those after it) until the next flush.
func (p *snapPush) before(line []byte) error {
	if p == nil {
		return nil
	}
	root, ok := tracerefs.RootOf(line)
	if !ok {
		return nil
	}
	if !p.connected() {
		return fmt.Errorf("snapshot %.12s…: the connection is down: its line waits", root)
	}
	ctx, cancel := context.WithTimeout(context.Background(), snapshotPushWait)
	defer cancel()
	_, err := p.store.Push(ctx, root, p.remote)
	if errors.Is(err, snapshot.ErrNotFound) {
		// Neither the fleet nor this store holds it (a resumed run's recorded root that
		// expired): nothing to send, and holding the line would hold every later one.
		return nil
	}
	return err
}

// fetchSnapshot brings root from the fleet into store, every object checked.
func (c *Client) fetchSnapshot(ctx context.Context, store *snapshot.Store, root string) (snapshot.TransferStats, error) {
	return store.Fetch(ctx, root, &c.snaps)
}
