package memory

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// The contract suite: every case runs against the LevelDB store and the in-memory twin.
var contractCases = []struct {
	name string
	run  func(t *testing.T, bc backendCase)
}{
	{"potentials follow the formula", testPotentialsFormula},
	{"write fills defaults", testWriteDefaults},
	{"invalid writes are rejected", testWriteRejects},
	{"tags with colons stay apart", testTagIsolation},
	{"QueryC serves live C entries and refreshes recall", testQueryC},
	{"negative feedback appends a negative-sigma megram", testNegativeFeedback},
	{"close drains the queue and refuses later writes", testCloseDrains},
	{"only GGS gets a writer", testWriterGate},
	{"reader view cannot write", testReaderView},
	{"list uses every index", testList},
	{"store verifies clean", testVerifyClean},
	{"import refuses duplicates and C entries", testImport},
	{"queries after close fail", testQueriesAfterClose},
}

func TestContract(t *testing.T) {
	for _, bc := range backendCases {
		for _, c := range contractCases {
			t.Run(bc.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				c.run(t, bc)
			})
		}
	}
}

func testPotentialsFormula(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	sp, en := ToolSpace("go"), PathEntity("./x")
	e.write(megram(sp, en, "abandon", 0.95, -1, 0.05)) // written at t0
	e.clock.Advance(2 * Day)
	e.write(megram(sp, en, "refine", 0.1, 0.5, 0.5)) // written at t0+2d
	e.write(megram(sp, en, "change_path", 0.3, 0, 0.2))
	// A C entry and a pair next door must not count.
	e.write(megram(sp, PathEntity("./y"), "abandon", 0.95, -1, 0.05))
	e.clock.Advance(3 * Day) // now t0+5d

	a1 := 0.95 * math.Exp(-0.05*5)
	a2 := 0.1 * math.Exp(-0.5*3)
	a3 := 0.3 * math.Exp(-0.2*3)
	wantAtt := a1 + a2 + a3
	wantDec := -a1 + 0.5*a2
	p := e.mk(sp, en)
	if !near(p.Attention, wantAtt) || !near(p.Decision, wantDec) {
		t.Fatalf("potentials = %+v, want attention %v decision %v", p, wantAtt, wantDec)
	}
	if p.Action != contract.ActionAvoid {
		t.Errorf("action %s, want Avoid", p.Action)
	}
	if p := e.mk(sp, PathEntity("nothing")); p.Attention != 0 || p.Decision != 0 || p.Action != contract.ActionIgnore {
		t.Errorf("empty pair: %+v, want zero and Ignore", p)
	}
	e.noErrors()
}

func testWriteDefaults(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	e.write(megram("intent:fix_the_bug", EntityLocal, "success", 0.8, 1, 0.05))
	ids := e.rec.durableIDs()
	if len(ids) != 1 || ids[0] != "m000000000001" {
		t.Fatalf("durable IDs %v, want [m000000000001]", ids)
	}
	r, err := e.s.Get(context.Background(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	want := Record{Megram: contract.Megram{ID: ids[0], Level: contract.LevelM, CreatedAt: t0, LastRecalledAt: t0,
		Space: "intent:fix_the_bug", Entity: EntityLocal, State: "success", F: 0.8, Sigma: 1, K: 0.05}, Origin: OriginGGS}
	if !recordsEqual(r, want) {
		t.Errorf("stored\n%+v\nwant\n%+v", r, want)
	}
	// A writer's own ID and times are kept.
	m := megram("tool:sh", "path:/tmp", "refine", 0.1, 0.5, 0.5)
	m.ID, m.CreatedAt = "ggs-7", t0.Add(-time.Hour)
	e.write(m)
	r, err = e.s.Get(context.Background(), "ggs-7")
	if err != nil {
		t.Fatal(err)
	}
	if !r.CreatedAt.Equal(t0.Add(-time.Hour)) || !r.LastRecalledAt.Equal(r.CreatedAt) {
		t.Errorf("times %v / %v, want the writer's created_at for both", r.CreatedAt, r.LastRecalledAt)
	}
	if st := e.s.Stats(); st.Written != 2 || st.Rejected != 0 {
		t.Errorf("stats %+v, want 2 written", st)
	}
	e.noErrors()
}

func recordsEqual(a, b Record) bool {
	return a.ID == b.ID && a.Level == b.Level && a.CreatedAt.Equal(b.CreatedAt) &&
		a.LastRecalledAt.Equal(b.LastRecalledAt) && a.Space == b.Space && a.Entity == b.Entity &&
		a.Content == b.Content && a.State == b.State && a.F == b.F && a.Sigma == b.Sigma && a.K == b.K &&
		a.Origin == b.Origin && a.Supersedes == b.Supersedes
}

func testWriteRejects(t *testing.T, bc backendCase) {
	base := megram("tool:go", "path:x", "refine", 0.1, 0.5, 0.5)
	with := func(f func(*contract.Megram)) contract.Megram { m := base; f(&m); return m }
	for _, tc := range []struct {
		name string
		m    contract.Megram
		want string
	}{
		{"C level", with(func(m *contract.Megram) { m.Level = contract.LevelC }), "level C is not writable"},
		{"T level", with(func(m *contract.Megram) { m.Level = contract.LevelT }), "level T is not writable"},
		{"bad level", with(func(m *contract.Megram) { m.Level = "X" }), `level "X"`},
		{"empty space", with(func(m *contract.Megram) { m.Space = "" }), "space is empty"},
		{"empty entity", with(func(m *contract.Megram) { m.Entity = "" }), "entity is empty"},
		{"f above 1", with(func(m *contract.Megram) { m.F = 1.5 }), "f = 1.5"},
		{"NaN sigma", with(func(m *contract.Megram) { m.Sigma = math.NaN() }), "sigma = NaN"},
		{"negative k", with(func(m *contract.Megram) { m.K = -1 }), "k = -1"},
		{"colon in ID", with(func(m *contract.Megram) { m.ID = "a:b" }), "id \"a:b\" has byte ':'"},
		{"ancient time", with(func(m *contract.Megram) { m.CreatedAt = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) }), "outside [1970, 2200)"},
		{"bad UTF-8", with(func(m *contract.Megram) { m.Content = "\xff" }), "content is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, bc, nil)
			e.write(tc.m)
			errs := e.rec.errors()
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("errors %v, want one containing %q", errs, tc.want)
			}
			if st := e.s.Stats(); st.Rejected != 1 || st.Written != 0 {
				t.Errorf("stats %+v, want 1 rejected, 0 written", st)
			}
		})
	}
	t.Run("duplicate ID", func(t *testing.T) {
		e := newEnv(t, bc, nil)
		m := base
		m.ID = "same"
		e.write(m)
		m.Content = "overwrite attempt"
		e.write(m, m)
		errs := e.rec.errors()
		if len(errs) != 2 || !strings.Contains(errs[0].Error(), "never overwrites") {
			t.Fatalf("errors %v, want two duplicate refusals", errs)
		}
		r, err := e.s.Get(context.Background(), "same")
		if err != nil || r.Content != "" {
			t.Fatalf("record %+v, %v: want the first version untouched", r, err)
		}
	})
}

func testTagIsolation(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	// Without escaping both pairs would share the prefix idx:a:b:c:.
	e.write(megram("a:b", "c", "x", 1, 1, 0), megram("a", "b:c", "x", 1, -1, 0), megram("a%3Ab", "c", "x", 0.5, 1, 0))
	for _, tc := range []struct {
		space, entity string
		dec           float64
	}{{"a:b", "c", 1}, {"a", "b:c", -1}, {"a%3Ab", "c", 0.5}} {
		if p := e.mk(tc.space, tc.entity); p.Decision != tc.dec || p.Attention != math.Abs(tc.dec) {
			t.Errorf("(%s, %s): %+v, want decision %v from its own entry only", tc.space, tc.entity, p, tc.dec)
		}
	}
	e.noErrors()
}

// consolidated writes enough evidence for a best practice and dreams it into a C entry.
func consolidated(e *env, space, entity string) contract.SOPRecord {
	e.t.Helper()
	for i := 0; i < 7; i++ {
		e.write(megram(space, entity, "success", 0.8, 1, 0.05)) // 7 × 0.8 = 5.6 attention and decision
	}
	if rep := e.dream(); rep.Consolidated != 1 {
		e.t.Fatalf("dream report %+v, want one consolidation", rep)
	}
	sops, err := e.s.QueryC(context.Background(), space, entity)
	if err != nil || len(sops) != 1 {
		e.t.Fatalf("QueryC = %v, %v; want one SOP", sops, err)
	}
	return sops[0]
}

func testQueryC(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	sp := IntentSpace("Deploy the service now")
	sop := consolidated(e, sp, EntityLocal)
	if sop.Space != "intent:deploy_the_service" || sop.State != KindBestPractice || sop.Sigma != 1 ||
		!strings.HasPrefix(sop.Content, "[template best_practice]") {
		t.Errorf("SOP %+v", sop)
	}
	// C entries do not count in potentials.
	if p := e.mk(sp, EntityLocal); !near(p.Attention, 5.6) {
		t.Errorf("attention %v, want 5.6 from the M entries only", p.Attention)
	}
	e.clock.Advance(10 * Day)
	if _, err := e.s.QueryC(context.Background(), sp, EntityLocal); err != nil {
		t.Fatal(err)
	}
	e.flush()
	r, err := e.s.Get(context.Background(), sop.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !r.LastRecalledAt.Equal(t0.Add(10*Day)) || !r.CreatedAt.Equal(t0) {
		t.Errorf("after recall: created %v, recalled %v; want %v, %v", r.CreatedAt, r.LastRecalledAt, t0, t0.Add(10*Day))
	}
	// Pair reads recall-free.
	e.clock.Advance(Day)
	if _, err := e.s.Pair(context.Background(), sp, EntityLocal); err != nil {
		t.Fatal(err)
	}
	e.flush()
	if r, _ := e.s.Get(context.Background(), sop.ID); !r.LastRecalledAt.Equal(t0.Add(10 * Day)) {
		t.Errorf("Pair changed the recall time to %v", r.LastRecalledAt)
	}
	e.noErrors()
}

func testNegativeFeedback(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	sop := consolidated(e, "tool:make", "path:build")
	w, _ := e.s.WriterFor("GGS")
	w.RecordNegativeFeedback(context.Background(), sop.ID, "build target moved")
	w.RecordNegativeFeedback(context.Background(), "no-such-rule", "x")
	e.flush()
	errs := e.rec.errors()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "negative feedback on rule no-such-rule") {
		t.Fatalf("errors %v, want one naming the unknown rule", errs)
	}
	var fb []Record
	err := e.s.List(context.Background(), ListFilter{Space: "tool:make", Entity: "path:build", Level: contract.LevelM}, func(r Record) error {
		if r.State == StateNegativeFeedback {
			fb = append(fb, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fb) != 1 || fb[0].Sigma != -1 || fb[0].F != DefaultFeedback.F || fb[0].Content != "build target moved" || fb[0].Origin != OriginGGS {
		t.Fatalf("feedback records %+v", fb)
	}
	// The rule itself is untouched.
	if r, _ := e.s.Get(context.Background(), sop.ID); r.Level != contract.LevelC || r.Sigma != 1 {
		t.Errorf("rule changed: %+v", r)
	}
}

func testCloseDrains(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	const n = 5000
	for i := 0; i < n; i++ {
		e.s.Write(megram("tool:go", "path:x", "refine", 0.1, 0.5, 0.5))
	}
	e.s.Close()
	if got := len(e.rec.durableIDs()); got != n {
		t.Fatalf("%d of %d writes acknowledged by Close", got, n)
	}
	e.s.Write(megram("tool:go", "path:x", "refine", 0.1, 0.5, 0.5))
	errs := e.rec.errors()
	if len(errs) != 1 || !errors.Is(errs[0], ErrClosed) {
		t.Fatalf("write after close: errors %v, want ErrClosed", errs)
	}
	e.s.Close() // twice is fine
}

func testWriterGate(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	for _, role := range []string{"R7", "ggs", " GGS "} {
		if w, err := e.s.WriterFor(role); err != nil || w == nil {
			t.Errorf("WriterFor(%q) = %v, %v; want a writer", role, w, err)
		}
	}
	for _, role := range []string{"R2", "R4b", "", "R7x"} {
		w, err := e.s.WriterFor(role)
		if w != nil || !errors.Is(err, ErrWriterRefused) || !strings.Contains(err.Error(), "GGS (R7) is the only writer") {
			t.Errorf("WriterFor(%q) = %v, %v; want a refusal", role, w, err)
		}
	}
	refs := e.s.Refusals()
	if len(refs) != 4 || refs[0].Role != "R2" || refs[3].Role != "R7x" || !refs[0].At.Equal(t0) {
		t.Errorf("refusals %+v", refs)
	}
	if len(e.rec.refusals) != 4 || e.s.Stats().Refused != 4 {
		t.Errorf("OnRefusal saw %d, stats %+v; want 4", len(e.rec.refusals), e.s.Stats())
	}
}

func testReaderView(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	r := e.s.Reader()
	if _, ok := r.(Writer); ok {
		t.Fatal("the reader view has write methods")
	}
	if _, ok := r.(*Service); ok {
		t.Fatal("the reader view is the service itself")
	}
	e.write(megram("tool:a", "path:b", "abandon", 0.95, -1, 0.05))
	if p, err := r.QueryMK(context.Background(), "tool:a", "path:b"); err != nil || !near(p.Attention, 0.95) {
		t.Errorf("reader QueryMK = %+v, %v", p, err)
	}
}

func testList(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	e.write(
		megram("tool:a", "path:1", "s", 0.5, 1, 0.05),
		megram("tool:a", "path:2", "s", 0.5, 1, 0.05),
		megram("tool:b", "path:1", "s", 0.5, 1, 0.05),
		contract.Megram{Level: contract.LevelK, Space: "tool:a", Entity: "path:1", F: 0.1, K: 0.5},
	)
	list := func(f ListFilter) string {
		var ids []string
		if err := e.s.List(context.Background(), f, func(r Record) error { ids = append(ids, r.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		return strings.Join(ids, ",")
	}
	for _, tc := range []struct {
		f    ListFilter
		want string
	}{
		{ListFilter{}, "m000000000001,m000000000002,m000000000003,m000000000004"},
		{ListFilter{Space: "tool:a"}, "m000000000001,m000000000004,m000000000002"},
		{ListFilter{Space: "tool:a", Entity: "path:1"}, "m000000000001,m000000000004"},
		{ListFilter{Space: "tool:a", Level: "K"}, "m000000000004"},
		{ListFilter{Level: "M"}, "m000000000001,m000000000002,m000000000003"},
		{ListFilter{Level: "C"}, ""},
	} {
		if got := list(tc.f); got != tc.want {
			t.Errorf("List(%+v) = %s, want %s", tc.f, got, tc.want)
		}
	}
	if err := e.s.List(context.Background(), ListFilter{Entity: "path:1"}, nil); err == nil {
		t.Error("an entity without a space was accepted")
	}
}

func testVerifyClean(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	consolidated(e, "intent:a_b_c", EntityLocal)
	e.write(megram("tool:x", "path:y:z", "refine", 0.1, 0.5, 0.5))
	rep, err := e.s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 || rep.Records != 9 || rep.Index != 9 || rep.Levels != 9 || rep.Recalls != 1 {
		t.Fatalf("verify: %+v", rep)
	}
}

func testImport(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	m := megram("tool:a", "path:b", "refine", 0.1, 0.5, 0.5)
	m.ID = "imp-1"
	ids, err := e.s.Import(context.Background(), []contract.Megram{m})
	if err != nil || len(ids) != 1 {
		t.Fatalf("Import = %v, %v", ids, err)
	}
	r, _ := e.s.Get(context.Background(), "imp-1")
	if r.Origin != OriginImport {
		t.Errorf("origin %q, want %q", r.Origin, OriginImport)
	}
	var ie *ImportError
	if _, err := e.s.Import(context.Background(), []contract.Megram{megram("s", "e", "", 0, 0, 0), m}); !errors.As(err, &ie) || ie.Index != 1 {
		t.Errorf("re-import: %v, want an ImportError at 1", err)
	}
	c := m
	c.ID, c.Level = "imp-2", contract.LevelC
	if _, err := e.s.Import(context.Background(), []contract.Megram{c}); !errors.As(err, &ie) || ie.Index != 0 {
		t.Errorf("C import: %v, want an ImportError at 0", err)
	}
	if rep, _ := e.s.Verify(context.Background()); rep.Records != 1 {
		t.Errorf("refused imports wrote something: %+v", rep)
	}
}

func testQueriesAfterClose(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, nil)
	e.s.Close()
	ctx := context.Background()
	if _, err := e.s.QueryMK(ctx, "a", "b"); !errors.Is(err, ErrClosed) {
		t.Errorf("QueryMK after close: %v", err)
	}
	if _, err := e.s.QueryC(ctx, "a", "b"); !errors.Is(err, ErrClosed) {
		t.Errorf("QueryC after close: %v", err)
	}
	if _, err := e.s.DreamOnce(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("DreamOnce after close: %v", err)
	}
}
