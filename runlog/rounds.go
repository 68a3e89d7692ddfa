package runlog

import (
	"encoding/json"
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// Round is one GGS round as the trace recorded it: the signals GGS's gate wrote, the
// first rule that fired on them and the directive R7 then sent.
type Round struct {
	Round          int      `json:"round"`
	D              float64  `json:"D"`
	P              float64  `json:"P"`
	Omega          float64  `json:"Omega"`
	L              float64  `json:"L"`
	GradL          float64  `json:"grad_l"`
	Directive      string   `json:"directive"`
	Rule           string   `json:"rule"`
	BlockedTools   []string `json:"blocked_tools"`
	BlockedTargets []string `json:"blocked_targets"`
	// Seq is the trace seq of the signals fact that opened the round, for links.
	Seq int64 `json:"-"`
}

// Loss is one trace's rounds. Epsilon is GGS's ε from the header's params (0 when the
// header names none): it sets the direction arrow of ∇L.
type Loss struct {
	Trace   string  `json:"trace"`
	Epsilon float64 `json:"-"`
	Rounds  []Round `json:"rounds"`
}

// Rounds reads GGS's rounds out of a trace read whole (what `spine trace loss` lists and
// the report's loss plot draws); name is used in errors. Round 0,
// the seed GGS asserts before any report, carries no loss and is left out, as is a fact
// of another rule set that happens to be named signals but has no round. A body read
// here that does not hold what GGS writes is an error naming its line.
func Rounds(name string, f *trace.File) (*Loss, error) {
	lt := &Loss{Trace: name, Rounds: []Round{}}
	var cur *Round
	for i := range f.Events {
		e := &f.Events[i]
		switch body := e.Body.(type) {
		case trace.Header:
			eps, err := epsilon(body)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: header: params: %v", name, e.Line, err)
			}
			lt.Epsilon = eps
		case trace.FactChange:
			if e.Kind == trace.KindFactRetracted || body.Fact.Kind != "signals" {
				continue
			}
			var s struct {
				Round *int    `json:"round"`
				D     float64 `json:"D"`
				P     float64 `json:"P"`
				Omega float64 `json:"omega"`
				L     float64 `json:"L"`
				Grad  float64 `json:"grad"`
			}
			if err := decodeRaw(body.Fact.Payload, &s); err != nil {
				return nil, fmt.Errorf("%s:%d: %s event: signals payload: %v", name, e.Line, e.Kind, err)
			}
			if s.Round == nil || *s.Round < 1 {
				continue
			}
			if cur == nil || cur.Round != *s.Round {
				lt.Rounds = append(lt.Rounds, Round{Round: *s.Round, Seq: e.Seq})
				cur = &lt.Rounds[len(lt.Rounds)-1]
			}
			cur.D, cur.P, cur.Omega, cur.L, cur.GradL = s.D, s.P, s.Omega, s.L, s.Grad
		case trace.RuleFired:
			// The first rule to fire on a round's signals decides it.
			if cur != nil && cur.Rule == "" {
				cur.Rule = body.Rule
			}
		case trace.Message:
			if cur == nil || cur.Directive != "" {
				continue
			}
			if body.Type != contract.TypePlanDirective && body.Type != contract.TypeFinalResult {
				continue
			}
			var p struct {
				Directive      string   `json:"directive"`
				BlockedTools   []string `json:"blocked_tools"`
				BlockedTargets []string `json:"blocked_targets"`
			}
			if err := decodeRaw(body.Payload, &p); err != nil {
				return nil, fmt.Errorf("%s:%d: %s message: %v", name, e.Line, body.Type, err)
			}
			cur.Directive, cur.BlockedTools, cur.BlockedTargets = p.Directive, p.BlockedTools, p.BlockedTargets
		}
	}
	for i := range lt.Rounds {
		lt.Rounds[i].BlockedTools = nonNil(lt.Rounds[i].BlockedTools)
		lt.Rounds[i].BlockedTargets = nonNil(lt.Rounds[i].BlockedTargets)
	}
	return lt, nil
}

// GradArrow is the direction the pipeline display draws for ∇L against ε: down, up, or
// flat within ε.
func GradArrow(grad, epsilon float64) string {
	switch {
	case grad < -epsilon:
		return "↓"
	case grad > epsilon:
		return "↑"
	}
	return "→"
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// decodeRaw decodes a recorded value into v; an absent value (or null) leaves v as it is.
func decodeRaw(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}
