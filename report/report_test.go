package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/internal/golden"
	"github.com/agentspine/spine/spine/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden HTML pages in testdata")

// fixtures are the recorded runs every trace reader is checked on.
func fixtures(t testing.TB) []string {
	t.Helper()
	var all []string
	for _, pattern := range []string{"../fixtures/ggs/*.trace.jsonl", "../fixtures/pipeline/*.trace.jsonl", "../fixtures/harness/*.trace.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m...)
	}
	if len(all) < 10 {
		t.Fatalf("found %d trace fixtures, want at least 10", len(all))
	}
	return all
}

// fixtureName names a fixture's golden after its directory and file: ggs_accept.
func fixtureName(path string) string {
	return filepath.Base(filepath.Dir(path)) + "_" + strings.TrimSuffix(filepath.Base(path), ".trace.jsonl")
}

func readFixture(t testing.TB, path string) *trace.File {
	t.Helper()
	tf, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

func render(t testing.TB, name string, tf *trace.File) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, name, tf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.Bytes()
}

func TestRenderGolden(t *testing.T) {
	for _, f := range fixtures(t) {
		tf := readFixture(t, f)
		name := "fixtures/" + filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		got := render(t, name, tf)
		// The same trace renders to the same bytes.
		if again := render(t, name, tf); !bytes.Equal(got, again) {
			t.Errorf("%s: two renderings differ", f)
		}
		golden.Check(t, filepath.Join("testdata", "golden", fixtureName(f)+".html"), got, *rewrite)
	}
}

// hostile is a trace whose every string a model, a tool or a rule file could have
// written tries to become markup: a closing script tag, a new script, an image whose
// error handler runs code.
const hostile = "testdata/hostile.trace.jsonl"

// payload is the string hostile.trace.jsonl plants everywhere.
const payload = `</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

func TestRenderEscapesHostileTrace(t *testing.T) {
	got := string(render(t, hostile, readFixture(t, hostile)))
	if n := strings.Count(strings.ToLower(got), "<script"); n != 1 {
		t.Errorf("the page has %d script elements, want only its own", n)
	}
	for _, bad := range []string{"<img", "window.__pwned=1</script>", "onerror=\"window", "<svg onload"} {
		if strings.Contains(got, bad) {
			t.Errorf("the page contains %q unescaped", bad)
		}
	}
	// The payload is on the page as text, escaped, in every place it was planted.
	escaped := "&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=&#34;window.__pwned=2&#34;&gt;"
	if n := strings.Count(got, escaped); n < 20 {
		t.Errorf("the payload appears escaped %d times, want it everywhere it was planted (20 or more)", n)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "hostile.html"), []byte(got), *rewrite)
}

// FuzzRender builds and renders the page of whatever trace.Read accepts: an error or a
// page, never a panic, and a page renders to the same bytes twice.
func FuzzRender(f *testing.F) {
	for _, path := range []string{"../fixtures/ggs/refine_then_accept.trace.jsonl", hostile} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"fact_updated","fact":{"kind":"signals","payload":{"round":1,"D":2e308}}}` + "\n" +
		`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","type":"PlanDirective","payload":{"blocked_tools":null}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := trace.Read("f.jsonl", bytes.NewReader(data))
		if err != nil {
			return
		}
		r, err := Build("f.jsonl", tf)
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		if err := Render(&a, r); err != nil {
			t.Fatal(err)
		}
		if err := Render(&b, r); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("two renderings differ (err %v)", err)
		}
	})
}

// TestFindings renders traces the Auditor finds fault with: every finding is on the
// page, its evidence linked to the events it cites.
func TestFindings(t *testing.T) {
	for _, c := range []struct {
		trace string
		kinds []string
	}{
		{"../audit/testdata/designed/ggs_thrashing.jsonl", []string{"ggs_thrashing"}},
		{"../audit/testdata/designed/verdict_without_evidence.jsonl", []string{"verdict_without_evidence", "verdict_without_evidence"}},
	} {
		r, err := Build(c.trace, readFixture(t, c.trace))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, f := range r.Findings {
			kinds = append(kinds, f.Kind)
			if len(f.Links) != len(f.Evidence) || len(f.Links) == 0 {
				t.Errorf("%s: %s has links %v for evidence %v", c.trace, f.Kind, f.Links, f.Evidence)
			}
			for _, l := range f.Links {
				if l.Anchor == "" {
					t.Errorf("%s: %s cites seq %d, which the page does not show", c.trace, f.Kind, l.Seq)
				}
			}
		}
		if strings.Join(kinds, " ") != strings.Join(c.kinds, " ") {
			t.Errorf("%s: findings %v, want %v", c.trace, kinds, c.kinds)
		}
		var b bytes.Buffer
		if err := Render(&b, r); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), `<tr class="finding">`); n != len(c.kinds) {
			t.Errorf("%s: %d finding rows on the page, want %d", c.trace, n, len(c.kinds))
		}
		golden.Check(t, filepath.Join("testdata", "golden", "audit_"+strings.TrimSuffix(filepath.Base(c.trace), ".jsonl")+".html"), b.Bytes(), *rewrite)
	}
}

// failedModel is a run that ends on a model call the endpoint refused, after another
// that answered on its second attempt.
const failedModel = "testdata/failed_model.trace.jsonl"

func TestFailedRunTellsWhy(t *testing.T) {
	r, err := Build(failedModel, readFixture(t, failedModel))
	if err != nil {
		t.Fatal(err)
	}
	e := r.Ending
	if !e.Failed || e.Directive != "abandon" || e.Reason != "model_unavailable" || e.Failure == nil || len(e.Failure.NextMoves) != 1 {
		t.Errorf("ending %+v, want the FinalResult's abandon, its reason and graceful failure", e)
	}
	var outcomes []string
	for _, c := range r.Calls {
		outcomes = append(outcomes, c.Name+":"+c.Outcome)
	}
	if got, want := strings.Join(outcomes, " "), "llm:R1:retried llm:R2:failed"; got != want {
		t.Errorf("calls %s, want %s", got, want)
	}
	// A call journalled at its end began its duration before.
	if c := r.Calls[1]; c.End-c.Start != 2300*time.Millisecond || c.End != 3602*time.Millisecond {
		t.Errorf("llm:R2 from %v to %v, want 2.3 s ending at +3.602 s", c.Start, c.End)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "failed_model.html"), render(t, failedModel, readFixture(t, failedModel)), *rewrite)
}

// TestRoundAttribution holds R7's messages to the round they conclude: round 1's
// directive is in round 1's R7 lane, not in the next iteration's.
func TestRoundAttribution(t *testing.T) {
	const f = "../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	r, err := Build(f, readFixture(t, f))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	for _, rd := range r.Rounds {
		for _, l := range rd.Lanes {
			if l.Role == "R7" {
				for _, it := range l.Items {
					got[rd.Iteration] = append(got[rd.Iteration], it.Text)
				}
			}
		}
	}
	if len(got[1]) != 1 || !strings.Contains(got[1][0], "PlanDirective: change_path") {
		t.Errorf("round 1's R7 lane: %q, want its change_path directive", got[1])
	}
	if len(got[2]) != 1 || !strings.Contains(got[2][0], "FinalResult: accept") {
		t.Errorf("round 2's R7 lane: %q, want the FinalResult", got[2])
	}
}

// TestSubtaskIDsShortened: a lane's text shows an id's first 8 hex digits; its title the
// whole.
func TestSubtaskIDsShortened(t *testing.T) {
	const f = "../cmd/spine/testdata/traceshow/retries.trace.jsonl"
	r, err := Build(f, readFixture(t, f))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rd := range r.Rounds {
		for _, l := range rd.Lanes {
			for _, it := range l.Items {
				if strings.Contains(it.Text, "2ae3a1f3…") {
					n++
					if !strings.Contains(it.Full, "2ae3a1f3be085a99d07ffde8474183e8") {
						t.Errorf("lane item %q has title %q, want the whole id", it.Text, it.Full)
					}
				}
				if longID.MatchString(it.Text) {
					t.Errorf("lane item %q shows a whole id", it.Text)
				}
			}
		}
	}
	if n == 0 {
		t.Errorf("no lane item of %s shows a shortened id", f)
	}
}

// TestStepThrough: one step per conflict set, each with the working memory after it;
// the rule's own changes marked.
func TestStepThrough(t *testing.T) {
	const f = "../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	r, err := Build(f, readFixture(t, f))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cycles) != len(r.Decisions) || len(r.Cycles) != 4 {
		t.Fatalf("%d steps for %d conflict sets, want 4 of each", len(r.Cycles), len(r.Decisions))
	}
	st := r.Cycles[2] // cycle 3: change_path_stuck_environmental sets the objective
	if st.Cycle != 3 || st.Fired != "change_path_stuck_environmental" || st.State != "select_objective" {
		t.Errorf("step 3: cycle %d state %s fired %s", st.Cycle, st.State, st.Fired)
	}
	var changed []string
	for _, m := range st.Memory {
		if m.Changed {
			changed = append(changed, m.Kind)
		}
	}
	if strings.Join(changed, " ") != "objective" {
		t.Errorf("step 3 marks %v changed, want the objective alone", changed)
	}
}
