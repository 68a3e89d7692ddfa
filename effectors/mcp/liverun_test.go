package mcp_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/effectors/mcp/internal/testserver"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the recorded MCP trace the CLI's tests read (cmd/spine/testdata/mcp)")

// crashTrace is where TestLiveRunServerCrashes keeps its trace for the CLI's display tests.
const crashTrace = "../../cmd/spine/testdata/mcp/server_crash.trace.jsonl"

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func call(id, name string, args map[string]any) contract.ModelToolCall {
	return contract.ModelToolCall{ID: id, Name: name, Arguments: js(args)}
}

// TestLiveRunServerCrashes: a whole live run (taskrun, scripted replies) with the Go SDK
// test server in the sandbox. R3 echoes through it, then calls the tool that crashes it:
// a tool_unavailable fault. GGS's rule runs the round again unchanged; R3's next call
// finds the server gone, a second fault in a row, and the rules abandon the task with a
// FinalResult naming tool_unavailable. The trace holds every call as a tool:mcp__…
// exchange, the tool list in its header, and replays byte for byte.
func TestLiveRunServerCrashes(t *testing.T) {
	jail, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testserver.EnvVar, "1")
	work := t.TempDir()
	os.Chmod(work, 0o777)
	tracePath := filepath.Join(t.TempDir(), "crash.trace.jsonl")

	const task = "Echo notes/a.txt through the go server"
	criterion := "the server echoed notes/a.txt"
	plan := js(map[string]any{"task_criteria": []string{criterion}, "subtasks": []map[string]any{{
		"intent": task, "success_criteria": []string{criterion}, "context": "", "sequence": 1,
		"tools": []string{"mcp__go__echo", "mcp__go__crash"}, "targets": []string{"notes/a.txt"}}}})
	chat := scripted.NewChat(scripted.Script{
		llm.R1: {{Content: js(map[string]any{"intent": task, "constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}})}},
		llm.R2: {{Content: plan}},
		llm.R3: {
			{ToolCalls: []contract.ModelToolCall{call("c1", "mcp__go__echo", map[string]any{"path": "notes/a.txt"})}},
			{Expect: []string{"echo notes/a.txt"}, ToolCalls: []contract.ModelToolCall{call("c2", "mcp__go__crash", map[string]any{"path": "notes/a.txt"})}},
			// The round again, unchanged: the server is gone.
			{ToolCalls: []contract.ModelToolCall{call("c3", "mcp__go__echo", map[string]any{"path": "notes/a.txt"})}},
		},
	})
	res, err := taskrun.RunTask(context.Background(), taskrun.Config{
		Task: task, Workdir: work, LLM: scripted.LLMConfig(), Chat: chat, TracePath: tracePath, Jail: jail,
		Clock: clock.NewStep(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Millisecond), IDs: &engine.SeqIDs{Prefix: "id"},
		RunID: "run-mcp-crash",
		MCPServers: []mcp.Server{{Name: "go", Command: exe, Env: []string{testserver.EnvVar}, Timeout: 10 * time.Second,
			ReadOnly: []string{filepath.Dir(exe)}}},
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if u := chat.Unplayed(); len(u) > 0 {
		t.Errorf("unplayed: %v", u)
	}
	fr := res.Final
	if fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultToolUnavailable {
		t.Fatalf("final = %+v", fr)
	}
	if res.Result.Outcome != engine.OutcomeFailure {
		t.Errorf("outcome %s", res.Result.Outcome)
	}
	recorded, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(recorded)
	for _, want := range []string{`"name":"tool:mcp__go__echo"`, `"name":"tool:mcp__go__crash"`, `"mcp_tools":`,
		`"rule":"retry_after_fault"`, `"rule":"abandon_on_fault"`, `is unavailable`} {
		if !strings.Contains(s, want) {
			t.Errorf("the trace lacks %s", want)
		}
	}
	if r := replay.Check(context.Background(), tracePath, replay.CheckOptions{Compare: true}); !r.OK() {
		t.Errorf("replay: %v %v %v", r.Failed, r.ReplayErr, r.Diff)
	}
	if *rewrite {
		if err := os.MkdirAll(filepath.Dir(crashTrace), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crashTrace, recorded, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
