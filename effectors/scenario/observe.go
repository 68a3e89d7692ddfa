package scenario

import (
	"context"
	"fmt"

	"github.com/agentspine/spine/spine"
)

var _ spine.Observer = (*Effector)(nil)

// Observe judges what the run holds at the start of an iteration, as the observe state
// of the seed's FSM does: before the first construct it serves the scenario's seed
// verdict (nothing when the file gives none); after that it serves again the round that
// gated the current construct, so the same construct always gets the same verdict. The
// round's retractions are left out: they were carried out when the construct was gated.
func (e *Effector) Observe(ctx context.Context, req spine.ObserveRequest) (spine.Signals, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if req.Construct == nil {
		if e.sc.Seed == nil {
			return spine.Signals{Changes: []spine.Change{}}, nil
		}
		return spine.Signals{Changes: e.sc.Seed.Changes}, nil
	}
	i, ok := e.judged[req.Construct.ID]
	if !ok {
		return spine.Signals{}, fmt.Errorf("scenario %q: construct %q was never gated, so it has no verdict to observe", e.sc.Name, req.Construct.ID)
	}
	puts := []spine.Change{}
	for _, c := range e.sc.Rounds[i].Changes {
		if c.Op == spine.ChangePut {
			puts = append(puts, c)
		}
	}
	return spine.Signals{Changes: puts}, nil
}

// Last returns the construct gated last, and false before the first gate.
func (e *Effector) Last() (spine.Construct, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last == nil {
		return spine.Construct{}, false
	}
	return *e.last, true
}
