package roles

import (
	"context"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// SnapshotName is the exchange that records a snapshot of the work dir at a round
// boundary: its request a SnapshotAt, its response the snapshot's root hash.
const SnapshotName = trace.ExchangeSnapshot + "workdir"

// SnapshotAt is where a snapshot was taken: before the first round ("start") or at the
// end of round Round ("end").
type SnapshotAt struct {
	Round int    `json:"round"`
	At    string `json:"at"`
}

// snapshotWorkdir takes and journals a snapshot of the work dir (Config.Snapshot), or,
// while a resumed run re-runs its recording, journals the recorded one and takes none:
// the files are the resume's to check against the last recorded root. A failed snapshot
// is on record as the exchange's error; the round goes on. A cancelled ctx takes none.
func (p *Pipeline) snapshotWorkdir(ctx context.Context, rec recorder, round int, at string) error {
	if p.cfg.Snapshot == nil || ctx.Err() != nil {
		// An interrupted round is no boundary a run continues from: a resume re-runs it.
		return nil
	}
	req := SnapshotAt{Round: round, At: at}
	var root string
	if ok, _, err := served(ctx, rec, SnapshotName, req, &root); err != nil || ok {
		return err
	}
	start := p.cfg.Clock.Now()
	root, err := p.cfg.Snapshot()
	x := engine.Exchange{Name: SnapshotName, Request: req, DurationMS: p.cfg.Clock.Now().Sub(start).Milliseconds()}
	if err != nil {
		x.Error = err.Error()
	} else {
		x.Response = root
	}
	rec.exchange(x)
	return nil
}
