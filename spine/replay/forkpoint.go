package replay

import (
	"fmt"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Boundary is a cycle boundary of a recording: the point, as the engine enters
// select_objective, where it polls for new rules before the cycle's conflict set. A run
// forked there has the recording's facts, revisions and refraction memory, and a rule
// reload there is what a hot reload would have done.
type Boundary struct {
	Seq       int64 // the seq the engine writes next at the poll: a reload there gets it
	Line      int   // the recording's line holding Seq (the reload, or the cycle's conflict set)
	Cycle     int   // the cycle that follows (its conflict_set's cycle), 0 when the recording ends first
	Iteration int   // the loop's iteration
}

// Boundaries lists the recording's cycle boundaries in order, up to its end or the
// recorded cancellation. It reads them from the trace as the engine writes them: a
// transition to select_objective, then the state fact's update; the poll comes next.
func Boundaries(rec *Recording) []Boundary {
	var out []Boundary
	evs := rec.Events
	for i := range evs {
		tr, ok := trace.As[trace.Transition](&evs[i])
		if !ok || tr.To != engine.StateSelect || i+1 >= len(evs) {
			continue
		}
		st := &evs[i+1]
		if fc, ok := trace.As[trace.FactChange](st); !ok || fc.Fact.Kind != ruleset.KindState {
			continue
		}
		b := Boundary{Seq: st.Seq + 1, Iteration: tr.Iteration}
		if rec.canceledAt != 0 && b.Seq >= rec.canceledAt {
			break
		}
		for j := i + 2; j < len(evs); j++ {
			if evs[j].Seq == b.Seq {
				b.Line = evs[j].Line
			}
			if cs, ok := trace.As[trace.ConflictSet](&evs[j]); ok {
				b.Cycle = cs.Cycle
				break
			}
		}
		out = append(out, b)
	}
	return out
}

// ForkPoint is the cycle boundary at or before seq: where a fork "at seq" starts
// differing from the recording. seq before the first boundary or past the recording is
// an error saying which seqs can be forked from.
func ForkPoint(rec *Recording, seq int64) (Boundary, error) {
	bs := Boundaries(rec)
	if len(bs) == 0 {
		return Boundary{}, fmt.Errorf("%s: the recording has no cycle boundary to fork from (the loop never reached select_objective)", rec.Name)
	}
	last := rec.Events[len(rec.Events)-1].Seq
	switch {
	case seq < bs[0].Seq:
		return Boundary{}, fmt.Errorf("%s: seq %d is before the first cycle boundary (seq %d); fork at a seq from %d to %d", rec.Name, seq, bs[0].Seq, bs[0].Seq, last)
	case seq > last:
		return Boundary{}, fmt.Errorf("%s: seq %d is past the recording's last line (seq %d); fork at a seq from %d to %d", rec.Name, seq, last, bs[0].Seq, last)
	}
	at := bs[0]
	for _, b := range bs {
		if b.Seq <= seq {
			at = b
		}
	}
	return at, nil
}
