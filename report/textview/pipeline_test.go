package textview

import (
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// TestPipelineShowsMemoryReads: R2's query and R5's answer each get one line
// saying what was asked and what memory said.
func TestPipelineShowsMemoryReads(t *testing.T) {
	for _, tc := range []struct {
		typ, from, to, payload, want string
	}{
		{contract.TypeMemoryQuery, "R2", "R5", `{"intent":"find the port","tools":["read_file","shell"],"targets":[{"tool":"read_file","target":"a.yaml"}]}`,
			`R2   → R5   MemoryQuery     intent "find the port" · 2 tool(s), 1 target(s) asked` + "\n"},
		{contract.TypeMemoryAnswer, "R5", "R2", `{"avoid":["x"],"exploit":[],"caution":[],"verdicts":[{"action":"Avoid","tool":"shell","pair":"tool:shell × env:local","decision":-1.2,"text":"t"}]}`,
			"R5   → R2   MemoryAnswer    avoid 1 · prefer 0 · caution 0 · avoid tool:shell × env:local\n"},
		{contract.TypeMemoryAnswer, "R5", "R2", `{"avoid":null,"exploit":null,"caution":null,"error":"leveldb: closed"}`,
			"R5   → R2   MemoryAnswer    memory could not be read: leveldb: closed\n"},
	} {
		var b strings.Builder
		d := &Pipeline{W: &b, Epsilon: 0.1}
		d.Message(trace.Message{From: tc.from, To: tc.to, Type: tc.typ, TaskID: "t", Payload: []byte(tc.payload)})
		if b.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.typ, b.String(), tc.want)
		}
	}
}
