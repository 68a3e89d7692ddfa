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
