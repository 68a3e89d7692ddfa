package scripted

import (
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/taskrun"
)

// DemoTaskConfig prepares workdir as `spine demo --pipeline` prepares its own: the demo's
// tiny project copied in, the roles' replies from its script (no model, no key), the given
// rules. It is what `spine worker --demo` runs for every task, for trying a fleet and for
// tests; noSandbox runs the scripted tool calls unconfined where bubblewrap cannot run.
func DemoTaskConfig(workdir string, rs *engine.RuleSet, noSandbox bool) (taskrun.Config, error) {
	d := NewPipelineDemo()
	if err := d.WriteFiles(workdir); err != nil {
		return taskrun.Config{}, err
	}
	return taskrun.Config{LLM: LLMConfig(), Chat: NewChat(d.Script), Rules: rs, NoSandbox: noSandbox}, nil
}
