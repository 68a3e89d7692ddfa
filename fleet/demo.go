package fleet

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentspine/spine/effectors/scripted"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/taskrun"
)

// DemoPrepare runs every task as `spine demo --pipeline` runs its own: the demo's tiny
// project copied into the work dir, the roles' replies from its script (no model, no
// key), the shipped rules. The task's words go into the trace as they were submitted;
// R1's scripted reply expects them to name report.txt. It is for trying a fleet and for
// tests; noSandbox runs the scripted tool calls unconfined where bubblewrap cannot run.
func DemoPrepare(rs *engine.RuleSet, noSandbox bool) PrepareFunc {
	return func(_ context.Context, _ Task, workdir string) (taskrun.Config, error) {
		d := scripted.NewPipelineDemo()
		for _, f := range d.Files {
			p := filepath.Join(workdir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return taskrun.Config{}, err
			}
			if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
				return taskrun.Config{}, err
			}
		}
		return taskrun.Config{LLM: scripted.LLMConfig(), Chat: scripted.NewChat(d.Script), Rules: rs,
			NoSandbox: noSandbox}, nil
	}
}
