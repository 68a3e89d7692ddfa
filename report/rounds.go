package report

import (
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine"
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

// Rounds reads GGS's rounds out of a trace read whole; name is used in errors. Round 0,
// the seed GGS asserts before any report, carries no loss and is left out, as is a fact
// of another rule set that happens to be named signals but has no round. A line of one
// of the kinds read that does not decode is an error naming it.
func Rounds(name string, tf *spine.TraceFile) (*Loss, error) {
	lt := &Loss{Trace: name, Rounds: []Round{}}
	var cur *Round
	for _, l := range tf.Lines {
		switch l.Kind {
		case spine.EvHeader:
			var h struct {
				Params struct {
					Epsilon float64 `json:"epsilon"`
				} `json:"params"`
			}
			if err := l.Decode(&h); err != nil {
				return nil, fmt.Errorf("%s:%d: header: %v", name, l.Line, err)
			}
			lt.Epsilon = h.Params.Epsilon
		case spine.EvFactAsserted, spine.EvFactUpdated:
			var e struct {
				Fact struct {
					Kind    string `json:"kind"`
					Payload struct {
						Round *int    `json:"round"`
						D     float64 `json:"D"`
						P     float64 `json:"P"`
						Omega float64 `json:"omega"`
						L     float64 `json:"L"`
						Grad  float64 `json:"grad"`
					} `json:"payload"`
				} `json:"fact"`
			}
			if err := l.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s:%d: %s event: %v", name, l.Line, l.Kind, err)
			}
			s := e.Fact.Payload
			if e.Fact.Kind != "signals" || s.Round == nil || *s.Round < 1 {
				continue
			}
			if cur == nil || cur.Round != *s.Round {
				lt.Rounds = append(lt.Rounds, Round{Round: *s.Round, Seq: l.Seq})
				cur = &lt.Rounds[len(lt.Rounds)-1]
			}
			cur.D, cur.P, cur.Omega, cur.L, cur.GradL = s.D, s.P, s.Omega, s.L, s.Grad
		case spine.EvRuleFired:
			var e struct {
				Rule string `json:"rule"`
			}
			if err := l.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s:%d: rule_fired event: %v", name, l.Line, err)
			}
			// The first rule to fire on a round's signals decides it.
			if cur != nil && cur.Rule == "" {
				cur.Rule = e.Rule
			}
		case spine.EvMessage:
			var e struct {
				Type    string `json:"type"`
				Payload struct {
					Directive      string   `json:"directive"`
					BlockedTools   []string `json:"blocked_tools"`
					BlockedTargets []string `json:"blocked_targets"`
				} `json:"payload"`
			}
			if err := l.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s:%d: message event: %v", name, l.Line, err)
			}
			if cur == nil || cur.Directive != "" {
				continue
			}
			if e.Type == contract.TypePlanDirective || e.Type == contract.TypeFinalResult {
				cur.Directive = e.Payload.Directive
				cur.BlockedTools = e.Payload.BlockedTools
				cur.BlockedTargets = e.Payload.BlockedTargets
			}
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
