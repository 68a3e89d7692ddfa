package runlog

import (
	"encoding/json"

	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// Params are the params a trace's header recorded, the values its run used (overrides
// included), as ggs reads them by name; nil when the header records none. A value that
// is not a JSON object is an error.
func Params(h trace.Header) (ggs.ParamMap, error) {
	if len(h.Params) == 0 || string(h.Params) == "null" {
		return nil, nil
	}
	var m ggs.ParamMap
	if err := json.Unmarshal(h.Params, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Epsilon is GGS's ε as the header's params recorded it, nil when they name none (or
// cannot be read): it sets the direction arrow of ∇L.
func Epsilon(h trace.Header) *float64 {
	pm, err := Params(h)
	if err != nil {
		return nil
	}
	v, ok, err := ggs.Lookup(pm, "epsilon")
	if !ok || err != nil {
		return nil
	}
	return &v
}

// epsilon is the header's ε, 0 when it names none; params that do not read, or an ε
// that is not a number, are an error.
func epsilon(h trace.Header) (float64, error) {
	pm, err := Params(h)
	if err != nil || pm == nil {
		return 0, err
	}
	v, _, err := ggs.Lookup(pm, "epsilon")
	return v, err
}

// Thresholds are GGS's params a loss plot draws: δ on D, ρ on P, θ on Ω, and ε, which
// sets ∇L's arrow. Source says where they were read: the header's params, or the rule
// file the header embeds; "" when neither has them.
type Thresholds struct {
	Delta, Rho, Theta, Epsilon *float64
	Source                     string
}

// ThresholdsOf reads δ, ρ, θ and ε from the header's params (the values the run used,
// overrides included) or, for a header whose params name none of δ, ρ and θ, from the
// rule file it embeds.
func ThresholdsOf(h trace.Header) Thresholds {
	var t Thresholds
	if pm, err := Params(h); err == nil {
		t = thresholdsFrom(pm)
	}
	if t.Delta != nil || t.Rho != nil || t.Theta != nil {
		t.Source = "header params"
		return t
	}
	if h.Rules.Source == "" {
		return t
	}
	rs, err := engine.LoadRules(h.Rules.Path, []byte(h.Rules.Source))
	if err != nil {
		return t
	}
	r := thresholdsFrom(rs)
	for _, p := range []struct{ dst, src **float64 }{{&t.Delta, &r.Delta}, {&t.Rho, &r.Rho}, {&t.Theta, &r.Theta}, {&t.Epsilon, &r.Epsilon}} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	if t.Delta != nil || t.Rho != nil || t.Theta != nil {
		t.Source = "the header's rule file"
	}
	return t
}

func thresholdsFrom(src ggs.ParamSource) Thresholds {
	var t Thresholds
	for _, p := range []struct {
		name string
		dst  **float64
	}{{"delta", &t.Delta}, {"rho", &t.Rho}, {"theta", &t.Theta}, {"epsilon", &t.Epsilon}} {
		if v, ok, err := ggs.Lookup(src, p.name); ok && err == nil {
			*p.dst = &v
		}
	}
	return t
}
