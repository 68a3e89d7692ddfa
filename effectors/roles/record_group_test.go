package roles

import (
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// TestGroupJournalsInPlanOrderAsItHappens: the first unfinished subtask's record reaches
// the journal as it is made; the others' wait until every subtask before theirs has
// finished, whatever order they finish in, so the journal is in plan order.
func TestGroupJournalsInPlanOrderAsItHappens(t *testing.T) {
	journal := &buffer{}
	g := newGroup(journal, 3)
	names := func() string {
		var out []string
		for _, e := range journal.events {
			if e.x != nil {
				out = append(out, e.x.Name)
			} else {
				out = append(out, "msg:"+e.m.Type)
			}
		}
		return strings.Join(out, " ")
	}
	steps := []struct {
		do   func()
		want string
	}{
		{func() { g.bufs[2].exchange(engine.Exchange{Name: "c1"}) }, ""},
		{func() { g.bufs[0].exchange(engine.Exchange{Name: "a1"}) }, "a1"},
		{func() { g.bufs[1].Message(trace.Message{Type: "b1"}) }, "a1"},
		{func() { g.finished(2) }, "a1"},
		{func() { g.bufs[0].exchange(engine.Exchange{Name: "a2"}) }, "a1 a2"},
		{func() { g.finished(0) }, "a1 a2 msg:b1"},
		{func() { g.bufs[1].exchange(engine.Exchange{Name: "b2"}) }, "a1 a2 msg:b1 b2"},
		{func() { g.finished(1) }, "a1 a2 msg:b1 b2 c1"},
	}
	for i, s := range steps {
		s.do()
		if got := names(); got != s.want {
			t.Fatalf("step %d: journal %q, want %q", i+1, got, s.want)
		}
	}
	if seq := g.bufs[1].Message(trace.Message{Type: "late"}); seq != 0 {
		t.Errorf("a buffer writing through gave its subtask seq %d; a subtask never learns it", seq)
	}
}
