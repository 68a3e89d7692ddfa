package roles

import (
	"context"
	"sync"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// SnapshotName is the exchange that records a snapshot of the work dir: its request a
// SnapshotAt, its response the snapshot's root hash.
const SnapshotName = trace.ExchangeSnapshot + "workdir"

// Where a snapshot is taken (SnapshotAt.At).
const (
	SnapshotStart = "start" // before the first round
	SnapshotEnd   = "end"   // at the end of a round
	SnapshotTool  = "tool"  // right after a tool call that may have changed the work dir
)

// SnapshotAt is where a snapshot was taken: before the first round, at the end of round
// Round, or after tool call ToolCall of subtask SubTask in round Round.
type SnapshotAt struct {
	Round    int    `json:"round"`
	At       string `json:"at"`
	SubTask  string `json:"subtask,omitempty"`
	ToolCall string `json:"tool_call,omitempty"`
}

// readOnlyTools are the sandbox tools that never change the work dir. Every other tool
// (the shell, write_file, any MCP tool: the spine cannot know what a server's tool does)
// may, and is followed by a snapshot when Config.SnapshotTools is set.
var readOnlyTools = map[string]bool{sandbox.ToolReadFile: true, sandbox.ToolListFiles: true}

// ToolChangesWorkdir reports whether a call of the named tool may change the work dir:
// whether a snapshot follows it.
func ToolChangesWorkdir(tool string) bool { return !readOnlyTools[tool] }

// snapshotter serialises the snapshots of one pipeline: parallel subtasks take them
// from their own goroutines, into one store, of one dir.
type snapshotter struct{ mu sync.Mutex }

// takeSnapshot runs the snapshot function and makes its exchange.
func (p *Pipeline) takeSnapshot(at SnapshotAt) engine.Exchange {
	p.snap.mu.Lock()
	defer p.snap.mu.Unlock()
	start := p.cfg.Clock.Now()
	root, err := p.cfg.Snapshot()
	x := engine.Exchange{Name: SnapshotName, Request: at, DurationMS: p.cfg.Clock.Now().Sub(start).Milliseconds()}
	if err != nil {
		x.Error = err.Error()
	} else {
		x.Response = root
	}
	return x
}

// snapshotWorkdir takes and journals a snapshot of the work dir at a round boundary
// (Config.Snapshot), or, while a resumed run re-runs its recording, journals the
// recorded one and takes none: the files are the resume's to check against the last
// recorded root. A failed snapshot is on record as the exchange's error; the round goes
// on. A cancelled ctx takes none.
func (p *Pipeline) snapshotWorkdir(ctx context.Context, rec recorder, round int, at string) error {
	if p.cfg.Snapshot == nil || ctx.Err() != nil {
		// An interrupted round is no boundary a run continues from: a resume re-runs it.
		return nil
	}
	req := SnapshotAt{Round: round, At: at}
	if ok, _, err := served(ctx, rec, SnapshotName, req, nil); err != nil || ok {
		return err
	}
	rec.exchange(p.takeSnapshot(req))
	return nil
}

// snapshotAfterTool journals a snapshot of the work dir right after the journalled call
// of a tool that may have changed it (Config.SnapshotTools), so that the last snapshot
// before any line of a trace holds the effects of every tool call the lines before it
// record: a resume restores it and serves those calls without making them again. It is
// taken even when ctx was cancelled after the call: the call is on record.
//
// The snapshot is taken when its line is written, not when asked (recorder.snapshot): a
// parallel subtask's lines wait for the subtasks before it, and a snapshot taken
// earlier would miss what their calls, written before it, did.
func (p *Pipeline) snapshotAfterTool(ctx context.Context, rec recorder, subtask, tool, call string) error {
	if p.cfg.Snapshot == nil || !p.cfg.SnapshotTools || !ToolChangesWorkdir(tool) {
		return nil
	}
	req := SnapshotAt{Round: p.current, At: SnapshotTool, SubTask: subtask, ToolCall: call}
	if ok, _, err := served(ctx, rec, SnapshotName, req, nil); err != nil || ok {
		return err
	}
	rec.snapshot(func() engine.Exchange { return p.takeSnapshot(req) })
	return nil
}
