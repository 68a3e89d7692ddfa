package scenario

import (
	"context"
	"testing"

	"github.com/agentspine/spine/spine/engine"
)

// Observe serves the seed's verdict before the first construct, then the verdict the
// gate gave the current construct, without its retractions.
func TestObserve(t *testing.T) {
	sc, err := Parse("x.yaml", []byte("name: n\ntopic: t7\nseed: {s: {a: 0}}\nrounds:\n  - {s: {a: 1}, u: null}\n  - {s: {a: 2}}"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Topic != "t7" || sc.Seed == nil || len(sc.Seed.Changes) != 1 {
		t.Fatalf("parsed %+v", sc)
	}
	e := NewEffector(sc)
	ctx := context.Background()
	seed, err := e.Observe(ctx, engine.ObserveRequest{Iteration: 1})
	if err != nil || len(seed.Changes) != 1 || seed.Changes[0].Fields["a"] != 0 {
		t.Fatalf("seed: %+v %v", seed, err)
	}
	if _, ok := e.Last(); ok {
		t.Error("a construct before any gate")
	}
	c1 := engine.Construct{ID: "construct-1"}
	if _, err := e.Gate(ctx, engine.GateRequest{Iteration: 1, Construct: c1}); err != nil {
		t.Fatal(err)
	}
	got, err := e.Observe(ctx, engine.ObserveRequest{Iteration: 2, Construct: &c1})
	if err != nil || len(got.Changes) != 1 || got.Changes[0].Op != engine.ChangePut || got.Changes[0].Fields["a"] != 1 {
		t.Errorf("construct-1 again: %+v %v", got, err)
	}
	if last, ok := e.Last(); !ok || last.ID != "construct-1" {
		t.Errorf("last construct %+v %v", last, ok)
	}
	_, err = e.Observe(ctx, engine.ObserveRequest{Iteration: 2, Construct: &engine.Construct{ID: "forged"}})
	if err == nil || err.Error() != `scenario "n": construct "forged" was never gated, so it has no verdict to observe` {
		t.Errorf("an ungated construct: %v", err)
	}
	// Without a seed, observe changes nothing before the first construct; the topic is
	// the scenario's name.
	plain, err := Parse("x.yaml", []byte("name: n\nrounds:\n  - {s: {a: 1}}"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Topic != "n" {
		t.Errorf("topic %q, want the name", plain.Topic)
	}
	if sig, err := NewEffector(plain).Observe(ctx, engine.ObserveRequest{Iteration: 1}); err != nil || len(sig.Changes) != 0 || sig.Changes == nil {
		t.Errorf("no seed: %+v %v", sig, err)
	}
}
