package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

// A dream scenario is a JSON file of steps run against a fresh store; its log must equal
// the golden file next to it, for both backends. Regenerate with -rewrite.
type dreamScenario struct {
	Description string          `json:"description"`
	Config      json.RawMessage `json:"config"` // merged over DefaultDreamConfig
	NoDistiller bool            `json:"no_distiller"`
	Steps       []scenarioStep  `json:"steps"`
}

type scenarioStep struct {
	Do      string            `json:"do"` // write, advance, feedback, dream, query, list
	Megrams []contract.Megram `json:"megrams"`
	Repeat  int               `json:"repeat"`
	Days    float64           `json:"days"`
	Rule    string            `json:"rule"`
	Content string            `json:"content"`
	DryRun  bool              `json:"dry_run"`
	Space   string            `json:"space"`
	Entity  string            `json:"entity"`
}

func TestDreamScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "dream", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var sc dreamScenario
			dec := json.NewDecoder(strings.NewReader(string(data)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&sc); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var logs []string
			for _, bc := range backendCases {
				logs = append(logs, runScenario(t, bc, sc))
			}
			if logs[0] != logs[1] {
				t.Fatalf("backends disagree:\n--- leveldb\n%s\n--- inmemory\n%s", logs[0], logs[1])
			}
			checkGolden(t, strings.TrimSuffix(file, ".json")+".golden", logs[0])
		})
	}
}

func runScenario(t *testing.T, bc backendCase, sc dreamScenario) string {
	t.Helper()
	cfg := DefaultDreamConfig()
	if len(sc.Config) > 0 {
		if err := json.Unmarshal(sc.Config, &cfg); err != nil {
			t.Fatalf("config: %v", err)
		}
	}
	e := newEnv(t, bc, func(o *Options) {
		o.Dream = cfg
		if sc.NoDistiller {
			o.Distiller = nil
		}
	})
	ctx := context.Background()
	var b strings.Builder
	logf := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	for i, st := range sc.Steps {
		n := max(st.Repeat, 1)
		switch st.Do {
		case "write":
			logf("== %d write %d×%d at %s", i, n, len(st.Megrams), e.clock.Now().Format("2006-01-02"))
			for range n {
				e.write(st.Megrams...)
			}
		case "advance":
			e.clock.Advance(dayDuration(st.Days))
			logf("== %d advance %g days to %s", i, st.Days, e.clock.Now().Format("2006-01-02 15:04"))
		case "feedback":
			logf("== %d feedback %d× on %s", i, n, st.Rule)
			for range n {
				e.s.RecordNegativeFeedback(ctx, st.Rule, st.Content)
			}
			e.flush()
		case "dream":
			logf("== %d dream dry_run=%v", i, st.DryRun)
			rep, err := e.s.Dream(ctx, DreamOptions{DryRun: st.DryRun})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range e.rec.takeEvents() {
				logf("event %s (%s, %s) id=%s new=%s level=%s att=%.6f dec=%.6f applied=%v rule=%q err=%q",
					ev.Kind, ev.Space, ev.Entity, ev.ID, ev.NewID, ev.Level, ev.Attention, ev.Decision, ev.Applied, ev.Rule, ev.Error)
			}
			logf("report pairs=%d entries=%d consolidated=%d deferred=%d failed=%d bankrupt=%d forgotten=%d",
				rep.Pairs, rep.Entries, rep.Consolidated, rep.Deferred, rep.Failed, rep.Bankrupt, rep.Forgotten)
		case "query":
			logf("== %d query (%s, %s)", i, st.Space, st.Entity)
			p := e.mk(st.Space, st.Entity)
			logf("potentials att=%.6f dec=%.6f action=%s", p.Attention, p.Decision, p.Action)
			sops, err := e.s.QueryC(ctx, st.Space, st.Entity)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sops {
				logf("sop %s state=%s sigma=%g content=%q", s.ID, s.State, s.Sigma, s.Content)
			}
			e.flush()
		case "list":
			logf("== %d list", i)
			err := e.s.List(ctx, ListFilter{}, func(r Record) error {
				logf("%s %s %-17s f=%g sigma=%g k=%g (%s, %s) origin=%s supersedes=%s recalled=%s",
					r.ID, r.Level, r.State, r.F, r.Sigma, r.K, r.Space, r.Entity, r.Origin, r.Supersedes,
					r.LastRecalledAt.Format("2006-01-02"))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("step %d: unknown action %q", i, st.Do)
		}
	}
	if rep, err := e.s.Verify(ctx); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("store inconsistent after the scenario: %+v %v", rep, err)
	}
	e.noErrors()
	return b.String()
}
