package ggs

import (
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// Each constructor builds what its mode uses: New decides by itself and holds a session;
// a Loop decides in the engine's agenda, so its Solver holds none, and a session option
// given to it is refused rather than ignored.
func TestConstructorsBuildWhatTheirModeUses(t *testing.T) {
	rs := loadRules(t)
	s, err := New(rs)
	if err != nil {
		t.Fatal(err)
	}
	if s.decider == nil {
		t.Error("New: the Solver has no decider, yet HandleReplan decides with it")
	}
	task := contract.TaskSpec{TaskID: "t1", Intent: "find the port"}
	l, err := NewLoop(rs, nil, task)
	if err != nil {
		t.Fatal(err)
	}
	if l.solver.decider != nil {
		t.Error("NewLoop: the Solver built a session of its own, which the engine's agenda makes unused")
	}
	if got, want := l.solver.Params(), s.Params(); got != want {
		t.Errorf("NewLoop: params %+v, New: %+v; both read the same rule set", got, want)
	}

	for _, tc := range []struct {
		name string
		task contract.TaskSpec
		opts []Option
		want string
	}{
		{"no task id", contract.TaskSpec{Intent: "x"}, nil, "ggs: the task has no task_id"},
		{"session options", task, []Option{WithSessionOptions(engine.WithTrace(trace.Discard))},
			"ggs: WithSessionOptions configures the session of a Solver from New; a Loop decides in the engine's session"},
		{"memory without a clock", task, []Option{WithMemory(&memoryLog{}, nil, &engine.SeqIDs{})},
			"ggs: WithMemory needs a clock and an ID source"},
	} {
		_, err := NewLoop(rs, nil, tc.task, tc.opts...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: NewLoop error %v, want %q", tc.name, err, tc.want)
		}
	}
}
