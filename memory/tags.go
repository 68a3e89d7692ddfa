package memory

import "github.com/agentspine/spine/contract"

// Tag conventions of the MKCT store. A micro-event (an action state) is tagged with the
// tool and target that failed; a macro-event (a terminal state) with the task's intent.
const (
	SpaceToolPrefix   = "tool:"
	EntityPathPrefix  = "path:"
	SpaceIntentPrefix = "intent:"
	// EntityLocal is the entity of every intent-level Megram of a local task.
	EntityLocal = "env:local"
)

// ToolSpace is the space of a tool: "tool:<name>".
func ToolSpace(tool string) string { return SpaceToolPrefix + tool }

// PathEntity is the entity of a target: "path:<target>".
func PathEntity(target string) string { return EntityPathPrefix + target }

// IntentSpace is the space of an intent: "intent:" + contract.IntentSlug(intent).
func IntentSpace(intent string) string { return SpaceIntentPrefix + contract.IntentSlug(intent) }

// Quantum is the (state, f, σ, k) a writer assigns to a Megram. GGS owns the values (its
// quantization matrix); this package only carries them.
type Quantum struct {
	State string
	F     float64
	Sigma float64
	K     float64
}

// BlockedTargetMegram builds the M-level Megram of one blocked target on an action state:
// space tool:<tool>, entity path:<target>. ID and times are left for Write to fill.
func BlockedTargetMegram(tool, target string, q Quantum, content string) contract.Megram {
	return contract.Megram{
		Level: contract.LevelM, Space: ToolSpace(tool), Entity: PathEntity(target),
		Content: content, State: q.State, F: q.F, Sigma: q.Sigma, K: q.K,
	}
}

// TerminalMegram builds the M-level Megram of a terminal state (accept, success,
// abandon): space intent:<slug of intent>, entity env:local.
func TerminalMegram(intent string, q Quantum, content string) contract.Megram {
	return contract.Megram{
		Level: contract.LevelM, Space: IntentSpace(intent), Entity: EntityLocal,
		Content: content, State: q.State, F: q.F, Sigma: q.Sigma, K: q.K,
	}
}
