package engine

import (
	"encoding/json"

	"github.com/agentspine/spine/spine/trace"
)

// The bodies the engine writes most often are package trace's shapes, encoded by
// trace's appenders from the values the engine holds: a cycle's reused slices, a rule's
// then encoded at load. The engine declares no body of its own.

var _ trace.FieldsAppender = (*CycleResult)(nil)

// The engine writes an empty list where a cycle's slice is nil.
var (
	noEvals = []trace.RuleEval{}
	noNames = []string{}
)

// AppendFields appends the cycle's conflict_set body (trace.ConflictSet) without
// reflection.
func (c *CycleResult) AppendFields(buf []byte) []byte {
	evals, names := c.Evaluated, c.ConflictSet
	if evals == nil {
		evals = noEvals
	}
	if names == nil {
		names = noNames
	}
	return trace.AppendConflictSet(buf, c.Cycle, c.Stage, c.Scope, evals, names, c.Fired, c.DecidedBy, c.Objectives)
}

// AppendJSON appends the evaluation as trace.ObjectiveEval: the error alone when the
// evaluation failed, else the values the objective declares.
func (o ObjectiveEval) AppendJSON(buf []byte) []byte {
	ok := o.Error == ""
	return trace.AppendObjectiveEval(buf, o.Objective, o.Error, o.Score, ok && o.HasScore, o.Satisfied, ok && o.HasSatisfied)
}

// factChange is the body of a fact_* event: trace.FactChange with the payload encoded.
func factChange(f Fact) (trace.FactChange, error) {
	p, err := json.Marshal(f.Payload)
	if err != nil {
		return trace.FactChange{}, err
	}
	return trace.FactChange{Fact: trace.Fact{Kind: f.Kind, ID: f.ID, Rev: f.Rev, Payload: p}}, nil
}
