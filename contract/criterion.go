package contract

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentspine/spine/internal/strictjson"
)

// Criterion is one success criterion as R2 states it: the falsifiable statement and its
// mode (seed 000, D).
//
//   - verifiable: tool output alone decides it (a file exists, a value equals, a command
//     exits 0); a failure weighs 1 in D.
//   - plausible: a judgement the evidence can support but not settle (a summary is
//     faithful, a name fits); a failure weighs k/N in D, the share of the subtask's
//     attempts on which it failed.
//
// Mode "" is a criterion whose mode was not stated; it counts as verifiable. In JSON such
// a criterion is the plain string, as the seeds' ["string"] lists have it, and one with
// a mode is {"criterion": ..., "mode": ...}; both forms decode.
type Criterion struct {
	Criterion string `json:"criterion"`
	Mode      string `json:"mode,omitempty"`
}

// Plausible reports whether the criterion is judged on the trajectory.
func (c Criterion) Plausible() bool { return c.Mode == ModePlausible }

// MarshalJSON writes the plain string when no mode was stated.
func (c Criterion) MarshalJSON() ([]byte, error) {
	if c.Mode == "" {
		return json.Marshal(c.Criterion)
	}
	type plain Criterion
	return json.Marshal(plain(c))
}

// UnmarshalJSON reads a string or a {"criterion", "mode"} object. The mode, when given,
// must be verifiable or plausible.
func (c *Criterion) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*c = Criterion{}
		return json.Unmarshal(b, &c.Criterion)
	}
	const want = `a criterion is a string or {"criterion": "...", "mode": "verifiable"|"plausible"}`
	if len(b) == 0 || b[0] != '{' {
		if string(b) == "null" {
			*c = Criterion{}
			return nil
		}
		return fmt.Errorf("%s, got %.20s", want, b)
	}
	type plain Criterion
	var p plain
	if err := strictjson.Decode(b, &p); err != nil {
		return fmt.Errorf("%s: %w", want, err)
	}
	switch p.Mode {
	case "", ModeVerifiable, ModePlausible:
	default:
		return fmt.Errorf("criterion %q: mode %q, want \"verifiable\" or \"plausible\"", p.Criterion, p.Mode)
	}
	*c = Criterion(p)
	return nil
}

// Criteria is a list of criteria.
type Criteria []Criterion

// Texts is the criteria's statements, in order.
func (cs Criteria) Texts() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Criterion
	}
	return out
}

// ModeOf is the mode stated for the criterion with the given text, "" when none is.
func (cs Criteria) ModeOf(text string) string {
	for _, c := range cs {
		if c.Criterion == text {
			return c.Mode
		}
	}
	return ""
}

// Verifiable makes criteria of plain statements, none with a stated mode.
func Verifiable(texts ...string) Criteria {
	out := make(Criteria, len(texts))
	for i, t := range texts {
		out[i] = Criterion{Criterion: t}
	}
	return out
}
