package ggs_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/standin/scripted"
)

// TestScenarioMegrams plays every GGS fixture with a real memory store attached and
// compares the Megrams GGS wrote with testdata/megrams/<scenario>.golden: one per blocked
// target on action states, one per terminal state, quantized by the seed's matrix.
// Regenerate with -rewrite.
func TestScenarioMegrams(t *testing.T) {
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := fs.Glob(fixtures.FS, "ggs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no GGS fixtures: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			sc := parseFixture(t, p)
			store, withMemory := memoryForGGS(t)
			if _, err := store.WriterFor("R2"); err == nil {
				t.Fatal("the store gave a writer to R2")
			}
			loop, err := ggs.NewLoop(rs, scripted.NewPlant(sc), sc.Task, withMemory)
			if err != nil {
				t.Fatal(err)
			}
			eng := engine.NewEngine(rs, loop)
			if err := loop.Seed(eng.Session()); err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := store.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			err = store.List(ctx, memory.ListFilter{Level: "M"}, func(r memory.Record) error {
				fmt.Fprintf(&b, "%s %s (%s, %s) f=%g σ=%g k=%g origin=%s\n  %s\n",
					r.ID, r.State, r.Space, r.Entity, r.F, r.Sigma, r.K, r.Origin, r.Content)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "megrams", strings.TrimSuffix(filepath.Base(p), ".yaml")+".golden")
			if f := flag.Lookup("rewrite"); f != nil && f.Value.String() == "true" {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -rewrite)", err)
			}
			if b.String() != string(want) {
				t.Errorf("megrams differ from %s:\n got:\n%s\nwant:\n%s", golden, b.String(), want)
			}
		})
	}
}

// parseFixture reads a shipped GGS scenario.
func parseFixture(t *testing.T, path string) *scripted.Scenario {
	t.Helper()
	src, err := fs.ReadFile(fixtures.FS, path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scripted.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// memoryForGGS opens an in-memory store on a step clock and returns it with the option
// that gives GGS its writer. The store is closed when the test ends.
func memoryForGGS(t *testing.T) (*memory.Service, ggs.Option) {
	t.Helper()
	clock := clock.NewStep(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Second)
	store, err := memory.NewInMemory(memory.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	w, err := store.WriterFor(memory.RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	return store, ggs.WithMemory(w, clock, &engine.SeqIDs{Prefix: "m"})
}
