package memory

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// TestDreamGeneratedGolden runs the Dreamer over a seeded generated store on both
// backends and compares everything it decides with testdata/dream_generated.golden: each
// event with its potentials written exactly, each Distiller request with its evidence,
// each report, and the store after each pass. The file was written by the Dreamer before
// its scan was optimised; any change in what a pass decides shows here. Regenerate with
// -rewrite.
func TestDreamGeneratedGolden(t *testing.T) {
	var logs []string
	for _, bc := range backendCases {
		logs = append(logs, runGeneratedDream(t, bc))
	}
	if logs[0] != logs[1] {
		t.Fatalf("backends disagree:\n--- leveldb\n%s\n--- inmemory\n%s", logs[0], logs[1])
	}
	checkGolden(t, "testdata/dream_generated.golden", logs[0])
}

// loggingDistiller logs every request, then answers as the template does.
type loggingDistiller struct {
	mu  sync.Mutex
	log *strings.Builder
}

func (d *loggingDistiller) Distil(ctx context.Context, req DistilRequest) (DistilResponse, error) {
	d.mu.Lock()
	fmt.Fprintf(d.log, "distil %s (%s, %s) att=%v dec=%v\n", req.Kind, req.Space, req.Entity, req.Attention, req.Decision)
	for _, e := range req.Evidence {
		fmt.Fprintf(d.log, "  evidence %s state=%q content=%q f=%v sigma=%v weight=%v\n", e.ID, e.State, e.Content, e.F, e.Sigma, e.Weight)
	}
	d.mu.Unlock()
	return TemplateDistillerForTests{}.Distil(ctx, req)
}

func runGeneratedDream(t *testing.T, bc backendCase) string {
	var b strings.Builder
	e := newEnv(t, bc, func(o *Options) {
		o.Distiller = &loggingDistiller{log: &b}
		o.IDs = &SequentialIDs{Prefix: "dream"}
	})
	rng := rand.New(rand.NewPCG(30, 4))
	generate := func() {
		recs, recalls := generateDreamStore(rng, e.clock.Now(), 48)
		for start := 0; start < len(recs); start += 500 {
			c := change{puts: recs[start:min(start+500, len(recs))]}
			if err := e.s.be.apply(&c); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.s.be.apply(&change{recalls: recalls}); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "generated %d records, %d recalls at %s\n", len(recs), len(recalls), e.clock.Now().Format(time.RFC3339))
	}
	generate()
	ctx := context.Background()
	for i, step := range []struct {
		advance  time.Duration
		generate bool
		o        DreamOptions
	}{
		{0, false, DreamOptions{DryRun: true}},
		{0, false, DreamOptions{}},
		{0, false, DreamOptions{}}, // a second pass at once decides nothing new
		{45 * Day, false, DreamOptions{SkipConsolidation: true}},
		{90 * Day, true, DreamOptions{}},
		{30 * Day, false, DreamOptions{SkipBankruptcy: true}},
		{0, false, DreamOptions{}},
	} {
		e.clock.Advance(step.advance)
		if step.generate {
			generate()
		}
		fmt.Fprintf(&b, "== pass %d at %s %+v\n", i, e.clock.Now().Format(time.RFC3339), step.o)
		rep, err := e.s.Dream(ctx, step.o)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range e.rec.takeEvents() {
			fmt.Fprintf(&b, "event %s (%s, %s) id=%s new=%s level=%s att=%v dec=%v applied=%v rule=%q err=%q\n",
				ev.Kind, ev.Space, ev.Entity, ev.ID, ev.NewID, ev.Level, ev.Attention, ev.Decision, ev.Applied, ev.Rule, ev.Error)
		}
		fmt.Fprintf(&b, "report pairs=%d entries=%d consolidated=%d deferred=%d failed=%d bankrupt=%d forgotten=%d\n",
			rep.Pairs, rep.Entries, rep.Consolidated, rep.Deferred, rep.Failed, rep.Bankrupt, rep.Forgotten)
		var listing strings.Builder
		n := 0
		err = e.s.List(ctx, ListFilter{}, func(r Record) error {
			n++
			listing.Write(encodeRecord(r))
			listing.WriteByte('\n')
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "store %d records sha256 %x\n", n, sha256.Sum256([]byte(listing.String())))
		if n < 100 {
			b.WriteString(listing.String())
		}
	}
	if rep, err := e.s.Verify(ctx); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("store inconsistent after the passes: %+v %v", rep, err)
	}
	e.noErrors()
	return b.String()
}

// generateDreamStore makes the records of a store whose pairs cover every decision of a
// pass: pairs that mostly succeed, mostly fail or are mixed, old pairs and single refine
// entries to forget, live and superseded C entries of both polarities, recalled C
// entries, T entries, tags that need escaping, entries stamped in the future, weight ties.
func generateDreamStore(rng *rand.Rand, now time.Time, pairs int) ([]Record, []recallSet) {
	var recs []Record
	var recalls []recallSet
	spaces := []string{"tool:go", "tool:sh", "intent:fix:a%b", "env"}
	newID := func() string { return fmt.Sprintf("%012x", rng.Uint64()>>16) }
	add := func(space, entity, level string, q Quantum, at time.Time, content string) Record {
		r := Record{Megram: contract.Megram{ID: newID(), Level: level, CreatedAt: at, LastRecalledAt: at,
			Space: space, Entity: entity, Content: content, State: q.State, F: q.F, Sigma: q.Sigma, K: q.K}, Origin: OriginGGS}
		r.normalise()
		recs = append(recs, r)
		return r
	}
	for p := 0; p < pairs; p++ {
		space := spaces[p%len(spaces)]
		entity := fmt.Sprintf("path:/srv/%03d", p)
		if p%11 == 0 {
			entity += ":x%y"
		}
		profile := p % 5
		n := 1 + rng.IntN(16)
		switch profile {
		case 0, 1:
			n = 16 + rng.IntN(24)
		case 4:
			n = 1 + rng.IntN(3)
		}
		for i := 0; i < n; i++ {
			q := benchStates[rng.IntN(len(benchStates))]
			switch {
			case profile == 0 && rng.IntN(4) > 0:
				q = benchStates[3]
			case profile == 1 && rng.IntN(4) > 0:
				q = benchStates[0]
			case profile == 4:
				q = benchStates[6]
			}
			var age time.Duration
			switch {
			case profile == 3:
				age = 150*Day + time.Duration(rng.Int64N(int64(250*Day)))
			case rng.IntN(3) == 0:
				age = time.Duration(rng.IntN(20)) * Day // whole days: equal weights
			default:
				age = time.Duration(rng.Int64N(int64(60 * Day)))
			}
			if rng.IntN(50) == 0 {
				age = -time.Duration(rng.IntN(48)) * time.Hour // a writer's clock ahead
			}
			level := contract.LevelM
			if rng.IntN(10) == 0 {
				level = contract.LevelK
			}
			add(space, entity, level, q, now.Add(-age), fmt.Sprintf("step %d of pair %d", i, p))
		}
		cAt := now.Add(-time.Duration(rng.IntN(200)) * Day)
		switch rng.IntN(6) {
		case 0, 1:
			c := add(space, entity, contract.LevelC, Quantum{KindBestPractice, 1, 1, 0}, cAt, "prefer this")
			if rng.IntN(2) == 0 {
				recalls = append(recalls, recallSet{ID: c.ID, At: cAt.Add(time.Duration(rng.IntN(100)) * Day)})
			}
		case 2:
			add(space, entity, contract.LevelC, Quantum{KindConstraint, 1, -1, 0}, cAt, "never this")
		case 3:
			// A C entry an earlier pass demoted: the K entry supersedes it.
			c := add(space, entity, contract.LevelC, Quantum{KindBestPractice, 1, 1, 0}, cAt, "demoted rule")
			add(space, entity, contract.LevelK, Quantum{KindBestPractice, 1, 1, 0.05}, cAt, "demoted rule")
			recs[len(recs)-1].Supersedes, recs[len(recs)-1].Origin = c.ID, OriginDreamer
		case 4:
			add(space, entity, contract.LevelT, Quantum{"tool", 1, 1, 0}, cAt, "a tool note")
		}
	}
	return recs, recalls
}
