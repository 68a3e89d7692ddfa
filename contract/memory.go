package contract

import "time"

// Megram levels of the MKCT pyramid.
const (
	LevelM = "M" // raw episodic fact
	LevelK = "K" // task-scoped knowledge
	LevelC = "C" // common sense: promoted SOP or constraint, timeless
	LevelT = "T" // thinking: persona and values, timeless
)

// Megram is the atomic record of shared memory:
// ⟨ID, Level, created_at, last_recalled_at, space, entity, content, state, f, sigma, k⟩.
type Megram struct {
	ID             string    `json:"id"`
	Level          string    `json:"level"`
	CreatedAt      time.Time `json:"created_at"`
	LastRecalledAt time.Time `json:"last_recalled_at"`
	Space          string    `json:"space"`
	Entity         string    `json:"entity"`
	Content        string    `json:"content"`
	State          string    `json:"state"`
	F              float64   `json:"f"`
	Sigma          float64   `json:"sigma"`
	K              float64   `json:"k"`
}

// SOPRecord is a C-level Megram as served to the planner.
type SOPRecord struct {
	ID      string  `json:"id"`
	Space   string  `json:"space"`
	Entity  string  `json:"entity"`
	Content string  `json:"content"`
	State   string  `json:"state"`
	Sigma   float64 `json:"sigma"`
}

// Memory actions derived from potentials.
const (
	ActionExploit = "Exploit"
	ActionAvoid   = "Avoid"
	ActionCaution = "Caution"
	ActionIgnore  = "Ignore"
)

// Potentials is the live dual-channel convolution for one (space, entity) tag pair.
type Potentials struct {
	Attention float64 `json:"attention"`
	Decision  float64 `json:"decision"`
	Action    string  `json:"action"`
}

// MemoryQuery is R2's read of shared memory before a plan, a replan or a tool call on a
// target the plan did not name (seed 003's calibration protocol, step 1: the intent and
// the key terms; here the tools and the tool × target pairs the plan may touch). It
// travels R2 → R5 on the bus.
type MemoryQuery struct {
	Intent  string       `json:"intent,omitempty"`
	Tools   []string     `json:"tools"`
	Targets []ToolTarget `json:"targets"`
}

// ToolTarget is one tool pointed at one target.
type ToolTarget struct {
	Tool   string `json:"tool"`
	Target string `json:"target"`
}

// MemoryAnswer is R5's reply to a MemoryQuery, R5 → R2 on the bus: what the live
// Potentials (Attention, Decision, Action) and the C-level SOPRecords of the asked pairs
// say, sorted into the planner's MUST NOT (Avoid), SHOULD PREFER (Exploit) and Caution
// sets, with a verdict per tool or tool × target that the plan validator enforces.
// Error is set, and nothing else, when memory could not be read; the plan then goes
// on without memory.
type MemoryAnswer struct {
	Avoid    []string        `json:"avoid"`
	Exploit  []string        `json:"exploit"`
	Caution  []string        `json:"caution"`
	Verdicts []MemoryVerdict `json:"verdicts,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// MemoryVerdict is memory's verdict on a tool (Target "") or a tool on a target.
type MemoryVerdict struct {
	Action   string  `json:"action"` // ActionAvoid, ActionExploit or ActionCaution
	Tool     string  `json:"tool"`
	Target   string  `json:"target,omitempty"`
	Pair     string  `json:"pair"`     // the Megram pair, e.g. "tool:read_file × path:config/service.yaml"
	Decision float64 `json:"decision"` // the pair's M_decision
	// Attention is the pair's M_attention, which OBSERVE hands to the rules with the
	// decision; 0 when the calibrator does not say.
	Attention float64 `json:"attention,omitempty"`
	Text      string  `json:"text"` // how the pair fared, for the prompt
}
