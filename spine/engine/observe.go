package engine

import (
	"context"
	"fmt"
)

// Observer is an optional extension of Effector: the seed's OBSERVE_CONTRACT. When the
// effector is an Observer, the observe state gates the current construct (or, before
// the first one, the seed) and asserts the signals it returns before the rules run, so
// that every iteration starts from the membrane's verdict rather than from what the
// last round left behind. The call and its result are journalled and replayed like
// Mint and Gate; an effector that is no Observer leaves observe a pass-through, and a
// replay calls observe only where the recording did.
type Observer interface {
	Observe(ctx context.Context, req ObserveRequest) (Signals, error)
}

// ObserveRequest asks an Observer to judge what the run holds at the start of an
// iteration.
type ObserveRequest struct {
	Iteration int `json:"iteration"`
	// Construct is the construct the last act minted; nil before the first, when the
	// Observer judges its seed.
	Construct *Construct `json:"construct,omitempty"`
}

// observe gates the current construct or the seed when the effector is an Observer.
func (e *Engine) observe(ctx context.Context) error {
	s := e.sess
	obs, ok := e.eff.(Observer)
	if !s.x.Makes(e.calls+1, "observe", ok) {
		return nil
	}
	req := ObserveRequest{Iteration: e.iteration}
	if e.construct.ID != "" || len(e.construct.Body) > 0 {
		c := e.construct
		req.Construct = &c
	}
	var call func(context.Context, ObserveRequest) (Signals, error)
	if ok {
		call = obs.Observe
	}
	sig, err := exchange(ctx, e, "observe", req, call, fmt.Sprintf("iteration %d", e.iteration))
	return e.apply("observe", sig, err)
}
