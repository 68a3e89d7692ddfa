package memory

import (
	"context"

	"github.com/agentspine/spine/contract"
)

// Tag conventions of the MKCT store. A micro-event (an action state) is tagged with the
// tool and target that failed; a macro-event (a terminal state) with the task's intent,
// twice: under the seed's three-word tag (intent:<first three words>), which every task
// starting alike shares, and under the full tag (intent.full:<every word>, see
// contract.IntentFullSlug), which only tasks with the same whole intent share.
const (
	SpaceToolPrefix       = "tool:"
	EntityPathPrefix      = "path:"
	SpaceIntentPrefix     = contract.IntentSpacePrefix
	SpaceIntentFullPrefix = contract.IntentFullSpacePrefix
	// EntityLocal is the entity of every intent-level Megram of a local task.
	EntityLocal = "env:local"
)

// ToolSpace is the space of a tool: "tool:<name>".
func ToolSpace(tool string) string { return SpaceToolPrefix + tool }

// PathEntity is the entity of a target: "path:<target>".
func PathEntity(target string) string { return EntityPathPrefix + target }

// IntentSpace is the seed's space of an intent: "intent:" + contract.IntentSlug(intent).
func IntentSpace(intent string) string { return contract.IntentSpace(intent) }

// IntentFullSpace is the precise space of an intent: "intent.full:" +
// contract.IntentFullSlug(intent).
func IntentFullSpace(intent string) string { return contract.IntentFullSpace(intent) }

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
// abandon) under the seed's tag: space intent:<slug of intent>, entity env:local.
func TerminalMegram(intent string, q Quantum, content string) contract.Megram {
	return contract.Megram{
		Level: contract.LevelM, Space: IntentSpace(intent), Entity: EntityLocal,
		Content: content, State: q.State, F: q.F, Sigma: q.Sigma, K: q.K,
	}
}

// TerminalMegrams builds both Megrams of a terminal state: the seed's tag, then the full
// tag, each with entity env:local.
func TerminalMegrams(intent string, q Quantum, content string) []contract.Megram {
	seed := TerminalMegram(intent, q, content)
	full := seed
	full.Space = IntentFullSpace(intent)
	return []contract.Megram{seed, full}
}

// ReadIntentSpace picks the space calibration reads for an intent's pair (with entity
// env:local): the full tag when its pair holds anything live (attention above zero, or a
// C entry), otherwise the seed's three-word tag. An intent seen before is thus judged on
// its own outcomes only, and a new one on those of tasks that start alike. QueryC runs
// only when the potentials are empty, and then refreshes entries calibration reads anyway.
func ReadIntentSpace(ctx context.Context, r Reader, intent string) (string, error) {
	full := IntentFullSpace(intent)
	pot, err := r.QueryMK(ctx, full, EntityLocal)
	if err != nil {
		return "", err
	}
	if pot.Attention > 0 {
		return full, nil
	}
	sops, err := r.QueryC(ctx, full, EntityLocal)
	if err != nil {
		return "", err
	}
	if len(sops) > 0 {
		return full, nil
	}
	return IntentSpace(intent), nil
}
