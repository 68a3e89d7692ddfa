package taskrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// TestLiveAuditWritesFindingsAfterTheHalt watches the trace as written: a ReplanRequest
// sent to R2 instead of R7 is a boundary violation, reported after the run's halt, and the
// trace with the finding replays byte for byte.
func TestLiveAuditWritesFindingsAfterTheHalt(t *testing.T) {
	la, err := newLiveAudit(audit.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rs, err := engine.LoadRulesFile(writeRules(t))
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	eff := misroutingEffector{}
	if _, err := engine.NewEngine(rs, eff, engine.WithEpilogue(la.epilogue), engine.WithTrace(ggsrun.Observe(sink, la.observe))).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	trace := sink.Bytes()
	lines := strings.Split(strings.TrimSpace(string(trace)), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"kind":"audit","finding":{"kind":"boundary_violation","severity":"error"`) ||
		!strings.Contains(lines[len(lines)-2], `"kind":"halt"`) {
		t.Fatalf("no finding after the halt:\n%s", strings.Join(lines[len(lines)-2:], "\n"))
	}
	tracetest.AssertReplays(t, trace, rs)
}

// writeRules writes a two-rule set that chooses go, then done, in the first iteration.
func writeRules(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "r.yaml")
	src := "name: r\nobjectives: [{name: go}, {name: done, terminal: success}]\nrules:\n" +
		"  - {name: start, salience: 1, when: 'state.iteration == 1 && objective == nil', then: {objective: go}}\n" +
		"  - {name: stop, salience: 2, when: 'state.iteration == 1 && objective != nil', then: {objective: done}}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// misroutingEffector journals a ReplanRequest from R4b straight to R2.
type misroutingEffector struct{}

func (misroutingEffector) Mint(ctx context.Context, r engine.MintRequest) (engine.Construct, error) {
	payload, _ := json.Marshal(&contract.ReplanRequest{TaskID: "t1", Recommendation: "replan"})
	engine.JournalFrom(ctx).Message(trace.Message{From: "R4b", To: "R2", Type: contract.TypeReplanRequest, TaskID: "t1",
		Payload: payload})
	return engine.Construct{ID: "c"}, nil
}

func (misroutingEffector) Gate(ctx context.Context, r engine.GateRequest) (engine.Signals, error) {
	return engine.Signals{}, nil
}
