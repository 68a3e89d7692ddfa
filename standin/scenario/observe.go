package scenario

import (
	"context"
	"fmt"

	"github.com/agentspine/spine/spine/engine"
)

var _ engine.Observer = (*Effector)(nil)

// Observe judges what the run holds at the start of an iteration, as the observe state
// of the seed's FSM does: before the first construct it serves the scenario's seed
// verdict (nothing when the file gives none); after that it serves again the round that
// gated the current construct, so the same construct always gets the same verdict. The
// round's retractions are left out: they were carried out when the construct was gated.
func (e *Effector) Observe(ctx context.Context, req engine.ObserveRequest) (engine.Signals, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if req.Construct == nil {
		if e.sc.Seed == nil {
			return engine.Signals{Changes: []engine.Change{}}, nil
		}
		return engine.Signals{Changes: e.sc.Seed.Changes}, nil
	}
	i, ok := e.judged[req.Construct.ID]
	if !ok {
		return engine.Signals{}, fmt.Errorf("scenario %q: construct %q was never gated, so it has no verdict to observe", e.sc.Name, req.Construct.ID)
	}
	puts := []engine.Change{}
	for _, c := range e.sc.Rounds[i].Changes {
		if c.Op == engine.ChangePut {
			puts = append(puts, c)
		}
	}
	return engine.Signals{Changes: puts}, nil
}

// Last returns the construct gated last, and false before the first gate.
func (e *Effector) Last() (engine.Construct, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last == nil {
		return engine.Construct{}, false
	}
	return *e.last, true
}
