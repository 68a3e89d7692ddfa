package roles

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// lineRecorder is a journal that writes as it is told: a snapshot is taken when its line
// is written.
type lineRecorder struct{ lines []string }

func (r *lineRecorder) exchange(x engine.Exchange) {
	r.lines = append(r.lines, fmt.Sprint(x.Name, "=", x.Response))
}
func (r *lineRecorder) snapshot(take func() engine.Exchange) { r.exchange(take()) }
func (r *lineRecorder) Message(m trace.Message) int64 {
	r.lines = append(r.lines, "msg:"+m.Type)
	return int64(len(r.lines))
}

// TestSnapshotTakenWhenItsLineIsWritten: a parallel subtask's snapshot after its tool
// call waits with its lines for the subtasks before it, and is taken when written, so
// it holds what their calls, written before it, did to the files.
func TestSnapshotTakenWhenItsLineIsWritten(t *testing.T) {
	files := 0 // what the work dir holds: the tool calls made so far
	take := func() engine.Exchange { return engine.Exchange{Name: "snap", Response: files} }
	j := &lineRecorder{}
	g := newGroup(j, 2)
	steps := []struct {
		do   func()
		want string
	}{
		// Subtask 2 calls a tool first; its lines wait for subtask 1.
		{func() {
			files++
			g.bufs[1].exchange(engine.Exchange{Name: "tool:b", Response: files})
			g.bufs[1].snapshot(take)
		}, ""},
		// Subtask 1 writes through: its snapshot holds both calls.
		{func() {
			files++
			g.bufs[0].exchange(engine.Exchange{Name: "tool:a", Response: files})
			g.bufs[0].snapshot(take)
		}, "tool:a=2 snap=2"},
		{func() { files++ }, "tool:a=2 snap=2"}, // subtask 2 calls again, unrecorded yet
		// Subtask 1 ends: subtask 2's lines are written, its snapshot taken now.
		{func() { g.finished(0) }, "tool:a=2 snap=2 tool:b=1 snap=3"},
	}
	for i, s := range steps {
		s.do()
		if got := strings.Join(j.lines, " "); got != s.want {
			t.Fatalf("step %d: journal %q, want %q", i+1, got, s.want)
		}
	}
}

// TestToolChangesWorkdir: the sandbox's read-only tools are not followed by a snapshot;
// every other tool is, an MCP tool's included.
func TestToolChangesWorkdir(t *testing.T) {
	for _, tc := range []struct {
		tool string
		want bool
	}{
		{sandbox.ToolReadFile, false}, {sandbox.ToolListFiles, false},
		{sandbox.ToolWriteFile, true}, {sandbox.ToolShell, true}, {"mcp__fs__read_text", true}, {"unknown", true},
	} {
		if got := ToolChangesWorkdir(tc.tool); got != tc.want {
			t.Errorf("ToolChangesWorkdir(%q) = %v, want %v", tc.tool, got, tc.want)
		}
	}
	// The read-only names are tools the sandbox declares: a renamed tool would
	// leave the table naming a tool that no longer exists.
	declared := map[string]bool{}
	for _, s := range (&sandbox.Sandbox{}).Specs() {
		declared[s.Name] = true
	}
	for tool := range readOnlyTools {
		if !declared[tool] {
			t.Errorf("the read-only tool %s is not one the sandbox declares", tool)
		}
	}
}
