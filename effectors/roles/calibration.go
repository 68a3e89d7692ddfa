package roles

import (
	"context"
	"strings"
)

// Calibrator is the planner's view of shared memory: before every plan and replan it asks
// what memory says about the task's intent. A nil Calibrator means no memory.
type Calibrator interface {
	Calibrate(ctx context.Context, intent string) (Calibration, error)
}

// Calibration is memory's verdict on an intent, already sorted into the three sets the
// planner acts on. Each entry is text for the prompt; an entry that names a tool
// ("write_file", "tool:write_file") or a tool and target ("shell:make deploy") is also
// enforced by the plan validator and the executor.
type Calibration struct {
	Avoid   []string `json:"avoid"`   // MUST NOT
	Exploit []string `json:"exploit"` // SHOULD PREFER
	Caution []string `json:"caution"` // proceed only with confirmation
}

// empty reports whether memory said nothing.
func (c Calibration) empty() bool {
	return len(c.Avoid) == 0 && len(c.Exploit) == 0 && len(c.Caution) == 0
}

// mustNot is the merged MUST NOT set of one round: memory's Avoid entries, the
// directive's blocked tools and its blocked targets. Tools and targets are held apart
// so that the validator and the executor can enforce them.
type mustNot struct {
	tools   map[string]string   // tool → why
	targets map[string][]target // tool → blocked targets of it, in order
	text    []string            // Avoid entries with no tool in them: prompt only
}

type target struct {
	value, why string
}

// buildMustNot merges the sources; known names the tools R3 has.
func buildMustNot(cal Calibration, blockedTools, blockedTargets []string, known []string) mustNot {
	mn := mustNot{tools: map[string]string{}, targets: map[string][]target{}}
	for _, t := range blockedTools {
		mn.tools[t] = "blocked by the GGS directive"
	}
	for _, key := range blockedTargets {
		tool, tgt, _ := strings.Cut(key, ":")
		mn.targets[tool] = append(mn.targets[tool], target{value: tgt, why: "blocked by the GGS directive"})
	}
	for _, a := range cal.Avoid {
		s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(a), "tool:"))
		if contains(known, s) {
			mn.tools[s] = "memory says MUST NOT (Avoid)"
			continue
		}
		if tool, tgt, ok := strings.Cut(s, ":"); ok && contains(known, tool) && strings.TrimSpace(tgt) != "" {
			mn.targets[tool] = append(mn.targets[tool], target{value: strings.TrimSpace(tgt), why: "memory says MUST NOT (Avoid)"})
			continue
		}
		mn.text = append(mn.text, a)
	}
	return mn
}

// toolBlocked says why a tool may not be used, or "".
func (mn mustNot) toolBlocked(tool string) string { return mn.tools[tool] }

// targetBlocked says why tool may not be pointed at tgt, or "". Targets compare after
// trimming and, for paths, lexical cleaning, so "./a/b" and "a/b" are the same target.
func (mn mustNot) targetBlocked(tool, tgt string) string {
	for _, b := range mn.targets[tool] {
		if sameTarget(tool, b.value, tgt) {
			return b.why
		}
	}
	return ""
}
