package roles

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
)

// Calibrator is the planner's view of shared memory: before every plan and replan it asks
// what memory says about the task's intent and the tools and targets the plan may use,
// and again, for the tools and targets a proposed plan names, before the plan check. A
// nil Calibrator means no memory.
type Calibrator interface {
	Calibrate(ctx context.Context, q contract.MemoryQuery) (Calibration, error)
}

// Calibration is memory's answer, sorted into what the planner acts on. Avoid, Exploit
// and Caution are text for the prompt (an intent-level verdict, a consolidated SOP or
// constraint): they cannot be checked against a plan mechanically, so the validator does
// not enforce them. Verdicts on tools and targets are enforced: an Avoid refuses a plan
// or a tool call, a Caution asks for confirmation of the call.
type Calibration struct {
	Avoid    []string  `json:"avoid"`   // MUST NOT
	Exploit  []string  `json:"exploit"` // SHOULD PREFER
	Caution  []string  `json:"caution"` // proceed only with confirmation
	Verdicts []Verdict `json:"verdicts,omitempty"`

	// asked is every tool × target memory was asked about this round, so the executor
	// asks only about the targets R3 chooses beyond them.
	asked map[contract.ToolTarget]bool
}

// Verdict is memory's verdict on a tool (Target "") or a tool on a target.
type Verdict struct {
	Action   string  `json:"action"` // contract.ActionAvoid, ActionExploit or ActionCaution
	Tool     string  `json:"tool"`
	Target   string  `json:"target,omitempty"`
	Pair     string  `json:"pair"`     // the Megram pair, e.g. "tool:read_file × path:config/service.yaml"
	Decision float64 `json:"decision"` // the pair's M_decision
	// Attention is the pair's M_attention, which OBSERVE hands to the rules with the
	// decision; 0 when the calibrator does not say.
	Attention float64 `json:"attention,omitempty"`
	Text      string  `json:"text"` // how it fared, for the prompt
}

// answer is c as R5 posts it to R2.
func (c Calibration) answer() contract.MemoryAnswer {
	a := contract.MemoryAnswer{Avoid: c.Avoid, Exploit: c.Exploit, Caution: c.Caution}
	for _, v := range c.Verdicts {
		a.Verdicts = append(a.Verdicts, contract.MemoryVerdict(v))
	}
	return a
}

// calibrationOf is the Calibration R2 reads from R5's answer.
func calibrationOf(a contract.MemoryAnswer) Calibration {
	c := Calibration{Avoid: a.Avoid, Exploit: a.Exploit, Caution: a.Caution}
	for _, v := range a.Verdicts {
		c.Verdicts = append(c.Verdicts, Verdict(v))
	}
	return c
}

// cite is the verdict's evidence as messages give it: "(pair, M_dec −2.55)".
func (v Verdict) cite() string {
	return fmt.Sprintf("(%s, M_dec %s)", v.Pair, signed(v.Decision))
}

// signed formats a potential with its sign, a true minus for negatives.
func signed(x float64) string {
	return strings.Replace(fmt.Sprintf("%+.2f", x), "-", "−", 1)
}

// merge adds what a later calibration of the same round said; verdicts on a tool or
// target already held are kept as they were.
func (c *Calibration) merge(o Calibration) {
	c.Avoid = appendNew(c.Avoid, o.Avoid)
	c.Exploit = appendNew(c.Exploit, o.Exploit)
	c.Caution = appendNew(c.Caution, o.Caution)
	for _, v := range o.Verdicts {
		if !c.hasVerdict(v.Tool, v.Target) {
			c.Verdicts = append(c.Verdicts, v)
		}
	}
}

func (c Calibration) hasVerdict(tool, target string) bool {
	for _, v := range c.Verdicts {
		if v.Tool == tool && v.Target == target {
			return true
		}
	}
	return false
}

// texts is the prompt lines of the verdicts with the given action.
func (c Calibration) texts(action string) []string {
	var out []string
	for _, v := range c.Verdicts {
		if v.Action == action {
			out = append(out, v.Text)
		}
	}
	return out
}

func appendNew(xs, more []string) []string {
	for _, m := range more {
		if !contains(xs, m) {
			xs = append(xs, m)
		}
	}
	return xs
}

// reason says why a tool or target may not be used: the GGS directive blocked it, or a
// memory verdict of Avoid (then verdict is set).
type reason struct {
	why     string
	verdict *Verdict
	rule    string // the memory_* rule that refused the pair, when the rules ruled on it
}

// blocked reports whether there is a reason at all.
func (r reason) blocked() bool { return r.why != "" }

// which is the reason as a clause after the thing refused: "which is blocked by the GGS
// directive", "which memory says to avoid (tool:x × path:y, M_dec −2.55)".
func (r reason) which() string {
	if r.verdict != nil && r.rule != "" {
		return "which " + r.why + ", refused by rule " + r.rule
	}
	if r.verdict != nil {
		return "which " + r.why
	}
	return "which is " + r.why
}

// line is the reason as the MUST NOT line of the prompt shows it.
func (r reason) line(thing string) string {
	if r.verdict != nil {
		return r.verdict.Text
	}
	return thing + " (" + r.why + ")"
}

var byDirective = reason{why: "blocked by the GGS directive"}

func byMemory(v Verdict) reason {
	return reason{why: "memory says to avoid " + v.cite(), verdict: &v}
}

// mustNot is the merged MUST NOT set of one round: memory's Avoid verdicts, the
// directive's blocked tools and its blocked targets. Tools and targets are held apart
// so that the validator and the executor can enforce them.
type mustNot struct {
	tools   map[string]reason   // tool → why
	targets map[string][]target // tool → blocked targets of it, in order
	text    []string            // memory's Avoid entries on no tool: prompt only
}

type target struct {
	value string
	reason
}

// buildMustNot merges the sources; known names the tools R3 has. A blocked tool or
// target keeps the directive's reason when memory also avoids it.
func buildMustNot(cal Calibration, blockedTools, blockedTargets []string, known []string) mustNot {
	mn := mustNot{tools: map[string]reason{}, targets: map[string][]target{}}
	for _, t := range blockedTools {
		mn.tools[t] = byDirective
	}
	for _, key := range blockedTargets {
		tool, tgt, _ := strings.Cut(key, ":")
		mn.targets[tool] = append(mn.targets[tool], target{value: tgt, reason: byDirective})
	}
	for _, v := range cal.Verdicts {
		if v.Action != contract.ActionAvoid || !contains(known, v.Tool) {
			continue
		}
		switch {
		case strings.TrimSpace(v.Target) == "":
			if !mn.tools[v.Tool].blocked() {
				mn.tools[v.Tool] = byMemory(v)
			}
		case !mn.targetBlocked(v.Tool, v.Target).blocked():
			mn.targets[v.Tool] = append(mn.targets[v.Tool], target{value: strings.TrimSpace(v.Target), reason: byMemory(v)})
		}
	}
	mn.text = append(mn.text, cal.Avoid...)
	return mn
}

// applyRulings holds memory's Avoid verdicts to the rules' rulings on their pairs (see
// ggs.PairSource): a pair the rules refused stays blocked and names the rule; one they
// allowed is no longer blocked. A verdict on a pair the rules did not see (memory was
// asked about it only once the plan named it) stays as memory's action table says.
func (mn *mustNot) applyRulings(rulings map[string]ggs.Ruling) {
	if len(rulings) == 0 {
		return
	}
	rule := func(r reason) (reason, bool) {
		if r.verdict == nil {
			return r, true
		}
		ru, ok := rulings[r.verdict.Pair]
		if !ok {
			return r, true
		}
		if ru.Ruling != ggs.RulingRefuse {
			return reason{}, false
		}
		r.rule = ru.Rule
		return r, true
	}
	for tool, r := range mn.tools {
		if r, keep := rule(r); keep {
			mn.tools[tool] = r
		} else {
			delete(mn.tools, tool)
		}
	}
	for tool, ts := range mn.targets {
		kept := make([]target, 0, len(ts))
		for _, t := range ts {
			if r, keep := rule(t.reason); keep {
				t.reason = r
				kept = append(kept, t)
			}
		}
		mn.targets[tool] = kept
	}
}

// rulingMap indexes rulings by their pair as Verdict.Pair names it.
func rulingMap(rs []ggs.Ruling) map[string]ggs.Ruling {
	if len(rs) == 0 {
		return nil
	}
	m := make(map[string]ggs.Ruling, len(rs))
	for _, r := range rs {
		m[r.Pair()] = r
	}
	return m
}

// toolBlocked says why a tool may not be used; the zero reason when it may.
func (mn mustNot) toolBlocked(tool string) reason { return mn.tools[tool] }

// targetBlocked says why tool may not be pointed at tgt. Targets compare after trimming
// and, for paths, lexical cleaning, so "./a/b" and "a/b" are the same target.
func (mn mustNot) targetBlocked(tool, tgt string) reason {
	for _, b := range mn.targets[tool] {
		if sameTarget(tool, b.value, tgt) {
			return b.reason
		}
	}
	return reason{}
}

// cautionFor is memory's Caution verdict on a tool call, if any: one on the tool as a
// whole, else one on its target.
func (c Calibration) cautionFor(tool, tgt string) *Verdict {
	for i, v := range c.Verdicts {
		if v.Action == contract.ActionCaution && v.Tool == tool && (v.Target == "" || sameTarget(tool, v.Target, tgt)) {
			return &c.Verdicts[i]
		}
	}
	return nil
}
