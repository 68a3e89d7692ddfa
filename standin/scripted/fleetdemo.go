package scripted

import (
	"os"
	"path/filepath"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/taskrun"
)

// DemoTaskConfig prepares workdir as `spine demo --pipeline` prepares its own: the demo's
// tiny project copied in, the roles' replies from its script (no model, no key), the given
// rules. It is what `spine worker --demo` runs for every task, for trying a fleet and for
// tests; noSandbox runs the scripted tool calls unconfined where bubblewrap cannot run.
func DemoTaskConfig(workdir string, rs *engine.RuleSet, noSandbox bool) (taskrun.Config, error) {
	d := NewPipelineDemo()
	for _, f := range d.Files {
		p := filepath.Join(workdir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return taskrun.Config{}, err
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			return taskrun.Config{}, err
		}
	}
	return taskrun.Config{LLM: LLMConfig(), Chat: NewChat(d.Script), Rules: rs, NoSandbox: noSandbox}, nil
}
