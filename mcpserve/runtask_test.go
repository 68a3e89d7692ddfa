package mcpserve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/standin/scripted"
)

// run_task is offered when a model is configured, runs the task as `spine run` does
// (here the pipeline demo's scripted replies, tools unconfined) and answers with the
// final result and the trace, which replays.
func TestRunTask(t *testing.T) {
	d := scripted.NewPipelineDemo()
	work, traces := t.TempDir(), t.TempDir()
	if _, err := scripted.DemoTaskConfig(work, nil, true); err != nil { // writes the demo's project
		t.Fatal(err)
	}
	cs := connect(t, Options{Dir: repo, Run: &RunOptions{LLM: scripted.LLMConfig(), Chat: scripted.NewChat(d.Script),
		NoSandbox: true, TraceDir: traces}})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("tools with a model: %v, %v", tools, err)
	}
	var out RunOutput
	text, isErr := call(t, cs, ToolRunTask, map[string]any{"task": d.Task, "workdir": work}, &out)
	if isErr || out.Outcome != "success" || out.Directive != "accept" || out.Error != "" {
		t.Fatalf("run_task: %s %+v", text, out)
	}
	if !strings.Contains(text, "trace: "+out.Trace) || filepath.Dir(out.Trace) != traces {
		t.Errorf("run_task text %q, trace %s", text, out.Trace)
	}
	if b, _ := os.ReadFile(filepath.Join(work, d.Report)); string(b) != d.Want {
		t.Errorf("%s = %q, want %q", d.Report, b, d.Want)
	}
	if r := replay.Check(context.Background(), out.Trace, replay.CheckOptions{Compare: true}); !r.OK() {
		t.Errorf("the run's trace does not replay: %+v", r)
	}
}
