package engine

import (
	"context"
	"encoding/json"

	"github.com/agentspine/spine/spine/ruleset"
)

// Effector is the boundary between the deterministic control plane and everything that
// is not: models, tools, people. The engine calls Mint in the act state and Gate in the
// evaluate state, and nowhere else. Both calls and their results are trace events.
type Effector interface {
	// Mint produces a construct that pursues the objective, using the feedback facts.
	Mint(ctx context.Context, req MintRequest) (Construct, error)
	// Gate judges a construct and returns the signals the rules will reason over.
	Gate(ctx context.Context, req GateRequest) (Signals, error)
}

// MintRequest asks an effector for a construct.
type MintRequest struct {
	Iteration int    `json:"iteration"`
	Objective string `json:"objective"`
	Rule      string `json:"rule"` // the rule that set the objective
	// Feedback is every fact of a declared kind, ordered by kind then id.
	Feedback []Fact `json:"feedback"`
}

// Construct is whatever an effector made; the spine treats it as opaque JSON.
type Construct struct {
	ID   string          `json:"id"`
	Body json.RawMessage `json:"body,omitempty"`
}

// GateRequest asks an effector to judge a construct.
type GateRequest struct {
	Iteration int       `json:"iteration"`
	Objective string    `json:"objective"`
	Construct Construct `json:"construct"`
}

// Signals are the fact changes a gate reports.
type Signals struct {
	Changes []Change `json:"changes"`
}

// Change operations.
const (
	ChangePut     = "put"     // assert, or update when the fact exists
	ChangeRetract = "retract" // remove the fact
)

// Change is one fact change reported by a gate.
type Change struct {
	Op     string         `json:"op"`
	Kind   string         `json:"kind"`
	ID     string         `json:"id,omitempty"`
	Fields ruleset.Fields `json:"fields,omitempty"`
}

// Finisher is an optional extension of Effector. When a run reaches a terminal
// objective, the engine calls Finish once, in terminate_or_iterate, so that the host can
// deliver its final result (a summary, a merged output, a failure report). The call and
// its result are journalled and replayed like Mint and Gate.
type Finisher interface {
	Finish(ctx context.Context, req FinishRequest) (Construct, error)
}

// FinishRequest tells a Finisher how the run ended.
type FinishRequest struct {
	Iteration int    `json:"iteration"`
	Objective string `json:"objective"`
	Rule      string `json:"rule"`
	Outcome   string `json:"outcome"` // OutcomeSuccess or OutcomeFailure
}
