package taskrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

// MetaSnapshots is the header field naming the snapshot store of a run that snapshotted
// its work dir (Config.Snapshots).
const MetaSnapshots = "snapshots"

// MetaSnapshotTools is the header field of a run that also snapshotted its work dir
// right after every tool call that may have changed it (SnapshotToolsWrites), not only
// at round boundaries: its re-run asks for those snapshots where it made them.
const MetaSnapshotTools = "snapshot_tools"

// SnapshotToolsWrites is MetaSnapshotTools's value: after the calls of every tool but
// the read-only ones (roles.ToolChangesWorkdir).
const SnapshotToolsWrites = "writes"

func snapshotDir(s *snapshot.Store) string {
	if s == nil {
		return ""
	}
	return s.Dir
}

// RecordedSnapshot is a snapshot of the work dir a recording holds: its root hash, where
// in the run it was taken, and the seq of its exchange.
type RecordedSnapshot struct {
	Root string
	At   roles.SnapshotAt
	Seq  int64
}

// LastSnapshot is the last snapshot rec records before seq (0: anywhere), ok false when
// it records none (a snapshot that failed is not one).
func LastSnapshot(rec *replay.Recording, before int64) (RecordedSnapshot, bool) {
	var last RecordedSnapshot
	found := false
	for i := range rec.Events {
		e := &rec.Events[i]
		if before > 0 && e.Seq >= before {
			break
		}
		x, ok := trace.As[trace.Exchange](e)
		if !ok || x.Name != roles.SnapshotName || x.Error != "" {
			continue
		}
		var s RecordedSnapshot
		if json.Unmarshal(x.Response, &s.Root) != nil || json.Unmarshal(x.Request, &s.At) != nil || s.Root == "" {
			continue
		}
		s.Seq = e.Seq
		last, found = s, true
	}
	return last, found
}

// UncoveredToolCall is the line (1-based) of the first tool call rec records after its
// last snapshot that may have changed the work dir (roles.ToolChangesWorkdir), 0 when
// there is none or rec records no snapshot. That snapshot does not hold what the call
// did, though a re-run would serve its recorded answer: a resume restoring it must make
// the call again. In a trace whose run snapshotted after tool calls (MetaSnapshotTools)
// that is a call whose own snapshot the kill cut off; in an older one, any tool call
// after the last round boundary.
func UncoveredToolCall(rec *replay.Recording) int {
	s, ok := LastSnapshot(rec, 0)
	if !ok {
		return 0
	}
	for i := range rec.Events {
		e := &rec.Events[i]
		if e.Seq <= s.Seq {
			continue
		}
		x, ok := trace.As[trace.Exchange](e)
		if !ok {
			continue
		}
		if tool, ok := strings.CutPrefix(x.Name, trace.ExchangeTool); ok && roles.ToolChangesWorkdir(tool) {
			return e.Line
		}
	}
	return 0
}

// coverTools cuts o's recording before its first tool call the last snapshot does not
// cover (UncoveredToolCall), so that a resume restoring that snapshot makes the call
// again instead of serving it over files that lack its effect. It returns the line
// cut at, 0 when nothing was cut.
func (o *Opened) coverTools() (int, error) {
	if o.Recording.Header.Meta[MetaSnapshots] == "" {
		return 0, nil
	}
	n := UncoveredToolCall(o.Recording)
	if n == 0 {
		return 0, nil
	}
	c := o.Continuation
	keep := n - 1
	f := &trace.File{Name: c.File.Name, Events: c.File.Events[:keep]}
	rec, err := replay.NewRecording(c.Name, f)
	if err != nil {
		return 0, err
	}
	o.Continuation = &trace.Continuation{Name: c.Name, File: f, Lines: c.Lines[:keep], Head: f.Events[keep-1].H}
	o.Recording = rec
	return n, nil
}

// SnapshotStore opens the store o's header names, nil when the run took no snapshots.
func (o *Opened) SnapshotStore() (*snapshot.Store, error) {
	dir := o.Recording.Header.Meta[MetaSnapshots]
	if dir == "" {
		return nil, nil
	}
	return snapshot.Open(dir)
}

// WorkdirMismatchError is a work dir that is not as the snapshot a resume continues
// from holds it, when the resume was asked not to restore it.
type WorkdirMismatchError struct {
	Dir      string
	Snapshot RecordedSnapshot
	First    *snapshot.Difference
}

func (e *WorkdirMismatchError) Error() string {
	return fmt.Sprintf("the work dir %s differs from the snapshot of round %d (%s, line seq %d) the run continues from: first at %s",
		e.Dir, e.Snapshot.At.Round, e.Snapshot.At.At, e.Snapshot.Seq, e.First)
}

// WorkdirCheck is what a resume or fork found of the work dir against the recording's
// last snapshot before the switch.
type WorkdirCheck struct {
	Snapshot RecordedSnapshot
	Differed *snapshot.Difference // nil: the dir matched (or was empty, for a fork)
	Restored bool
}

// CheckWorkdir compares dir with the last snapshot rec records before seq (0: anywhere)
// and, when they differ, restores the snapshot into dir if restore is true, else
// returns a *WorkdirMismatchError naming the first differing file. ok false: the
// recording holds no snapshot before seq, and nothing was checked.
func CheckWorkdir(store *snapshot.Store, rec *replay.Recording, before int64, dir string, restore bool) (WorkdirCheck, bool, error) {
	s, ok := LastSnapshot(rec, before)
	if !ok {
		return WorkdirCheck{}, false, nil
	}
	wc := WorkdirCheck{Snapshot: s}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return wc, true, err
	}
	d, err := store.Compare(s.Root, dir)
	if err != nil {
		return wc, true, fmt.Errorf("the snapshot of round %d (%s): %w", s.At.Round, s.Root, err)
	}
	if d == nil {
		return wc, true, nil
	}
	wc.Differed = d
	if !restore {
		return wc, true, &WorkdirMismatchError{Dir: dir, Snapshot: s, First: d}
	}
	if err := store.Restore(s.Root, dir); err != nil {
		return wc, true, fmt.Errorf("restoring the snapshot of round %d into %s: %w", s.At.Round, dir, err)
	}
	wc.Restored = true
	return wc, true, nil
}

// NewForkWorkdir makes a new, empty work dir for a fork beside the recorded one
// (<workdir>.fork-<random>).
func NewForkWorkdir(recorded string) (string, error) {
	if recorded == "" {
		return "", fmt.Errorf("the header records no work dir")
	}
	return os.MkdirTemp(filepath.Dir(recorded), filepath.Base(recorded)+".fork-")
}
