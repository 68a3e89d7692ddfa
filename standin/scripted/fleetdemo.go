package scripted

import (
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/taskrun"
)

// DemoTaskConfig prepares workdir for `spine worker --demo`: the pipeline demo's tiny
// project copied in, the roles' replies from the AnyTask stand-in (no model, no key),
// the given rules. The stand-in answers any task text, where the pipeline demo's script
// answers only its own task; the trace header names it ("standin"). It is for trying a
// fleet and for tests; noSandbox runs the stand-in's tool calls unconfined where
// bubblewrap cannot run.
func DemoTaskConfig(workdir string, rs *ruleset.RuleSet, noSandbox bool) (taskrun.Config, error) {
	if err := NewPipelineDemo().WriteFiles(workdir); err != nil {
		return taskrun.Config{}, err
	}
	return taskrun.Config{LLM: AnyTaskLLMConfig(), Chat: AnyTask{}, Rules: rs, NoSandbox: noSandbox,
		Meta: map[string]string{"standin": AnyTaskNote}}, nil
}
