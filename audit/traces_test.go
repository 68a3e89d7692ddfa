package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/golden"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/spine/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/")

// tracePair is a trace to audit: its name and its bytes.
type tracePair struct {
	name string
	raw  []byte
}

func designedTraces(t testing.TB) []tracePair {
	t.Helper()
	paths, err := filepath.Glob("testdata/designed/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no designed traces in testdata/designed (%v)", err)
	}
	var out []tracePair
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if *rewrite {
			raw = resealDesigned(t, p, raw)
		}
		if _, err := trace.VerifyChain(bytes.NewReader(raw)); err != nil {
			t.Fatalf("%s: %v (after editing a designed trace by hand, go test ./audit -rewrite seals it again)", p, err)
		}
		out = append(out, tracePair{filepath.Base(p), raw})
	}
	return out
}

// resealDesigned gives a hand-edited designed trace its hash chain again: the traces in
// testdata/designed are written by hand, not recorded, so their links are computed here.
func resealDesigned(t testing.TB, path string, raw []byte) []byte {
	t.Helper()
	// UnchainedTrace drops every h and names the header's format spine-trace/1; the
	// header is then named spine-trace/2 again and every line sealed.
	lines := bytes.SplitN(trace.UnchainedTrace(raw), []byte("\n"), 2)
	lines[0] = bytes.Replace(lines[0], []byte(`"format":"`+trace.FormatUnchained+`"`), []byte(`"format":"`+trace.Format+`"`), 1)
	sealed, err := trace.SealTrace(bytes.Join(lines, []byte("\n")))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !bytes.Equal(sealed, raw) {
		if err := os.WriteFile(path, sealed, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return sealed
}

func fixtureTraces(t testing.TB) []tracePair {
	t.Helper()
	var out []tracePair
	err := fs.WalkDir(fixtures.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".trace.jsonl") {
			return err
		}
		raw, err := fixtures.FS.ReadFile(p)
		out = append(out, tracePair{p, raw})
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no fixture traces (%v)", err)
	}
	return out
}

func auditPair(t testing.TB, tp tracePair) (TraceResult, []trace.Message) {
	t.Helper()
	tf, err := trace.Read(tp.name, bytes.NewReader(tp.raw))
	if err != nil {
		t.Fatal(err)
	}
	if tf.Torn != nil {
		t.Fatalf("%s: %s", tp.name, tf.Torn)
	}
	res, err := AuditTrace(DefaultConfig(), tp.name, tf)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := bus.FromTrace(tp.name, tf)
	if err != nil {
		t.Fatal(err)
	}
	return res, msgs
}

// render is the golden form of an audit: a line naming the trace, then one AuditReport
// per line.
func render(name string, r TraceResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %d message(s), %d finding(s)\n", name, r.Messages, len(r.Findings))
	for _, f := range r.Findings {
		line, err := json.Marshal(f)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got), *rewrite)
}

// checkEvidence fails unless every finding's evidence is sorted, non-empty and names
// messages that are in the stream.
func checkEvidence(t *testing.T, name string, findings []contract.AuditReport, msgs []trace.Message) {
	t.Helper()
	seqs := map[int64]bool{}
	for _, m := range msgs {
		seqs[m.Seq] = true
	}
	for _, f := range findings {
		if len(f.Evidence) == 0 || !slices.IsSorted(f.Evidence) {
			t.Errorf("%s: %s finding has evidence %v; want seqs in ascending order", name, f.Kind, f.Evidence)
		}
		for _, s := range f.Evidence {
			if !seqs[s] {
				t.Errorf("%s: %s finding names seq %d, which is not a message", name, f.Kind, s)
			}
		}
	}
}

// Each designed trace triggers exactly the kind it is named after; clean triggers none;
// every kind has its trace.
func TestDesignedTraces(t *testing.T) {
	var golden strings.Builder
	covered := map[string]bool{}
	for _, tp := range designedTraces(t) {
		res, msgs := auditPair(t, tp)
		golden.WriteString(render(tp.name, res))
		checkEvidence(t, tp.name, res.Findings, msgs)
		kind := strings.TrimSuffix(tp.name, ".jsonl")
		var kinds []string
		for _, f := range res.Findings {
			if !slices.Contains(kinds, f.Kind) {
				kinds = append(kinds, f.Kind)
			}
		}
		switch {
		case kind == "clean":
			if len(res.Findings) != 0 || res.Messages < 20 {
				t.Errorf("clean.jsonl: %d messages, findings %v; want a full task and no findings", res.Messages, res.Findings)
			}
		case !slices.Equal(kinds, []string{kind}):
			t.Errorf("%s: finding kinds %v, want exactly [%s]", tp.name, kinds, kind)
		default:
			covered[kind] = true
		}
	}
	for _, k := range Kinds() {
		if !covered[k] {
			t.Errorf("no designed trace triggers %s", k)
		}
	}
	checkGolden(t, "testdata/designed.golden", golden.String())
}

// strictConfig tightens the thresholds so that the shipped fixtures, which keep within
// the defaults, exercise the detectors too.
func strictConfig() Config {
	c := DefaultConfig()
	c.StallRun, c.ReplanCap, c.TimeBudgetMS, c.MaxCorrections = 2, 1, 100_000, 1
	return c
}

// The Auditor's findings on every shipped fixture, with the default thresholds and with
// strict ones, are part of the determinism story.
func TestFixturesGolden(t *testing.T) {
	var golden strings.Builder
	for _, cfg := range []struct {
		name string
		cfg  Config
	}{{"default thresholds", DefaultConfig()}, {"strict thresholds", strictConfig()}} {
		fmt.Fprintf(&golden, "## %s: %+v\n", cfg.name, cfg.cfg)
		for _, tp := range fixtureTraces(t) {
			_, msgs := auditPair(t, tp)
			tf, err := trace.Read(tp.name, bytes.NewReader(tp.raw))
			if err != nil {
				t.Fatal(err)
			}
			res, err := AuditTrace(cfg.cfg, tp.name, tf)
			if err != nil {
				t.Fatal(err)
			}
			checkEvidence(t, tp.name, res.Findings, msgs)
			golden.WriteString(render(tp.name, res))
		}
	}
	checkGolden(t, "testdata/fixtures.golden", golden.String())
}

// A live bus, with the trace's seqs published through PublishAt, gives the Auditor
// exactly the findings the offline audit of that trace gives, in the same order.
func TestLiveBusMatchesOfflineAudit(t *testing.T) {
	for _, tp := range append(designedTraces(t), fixtureTraces(t)...) {
		offline, msgs := auditPair(t, tp)
		b := bus.New()
		a, err := New(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		var reported []contract.AuditReport
		if err := Tap(b, a, func(f contract.AuditReport) { reported = append(reported, f) }); err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if _, err := b.PublishAt(m.Seq, m); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		reported = append(reported, a.End()...)
		sortFindings(reported)
		if live := a.Findings(); !reflect.DeepEqual(live, offline.Findings) || !reflect.DeepEqual(reported, offline.Findings) {
			t.Errorf("%s: live findings %v, reported %v; offline %v", tp.name, live, reported, offline.Findings)
		}
		if a.Messages() != offline.Messages {
			t.Errorf("%s: live saw %d messages, offline %d", tp.name, a.Messages(), offline.Messages)
		}
	}
}

func TestAuditTraceReportsBrokenMessageEvents(t *testing.T) {
	src := `{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header"}
{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R4b","to":"R2","type":"ReplanRequest","task_id":"t","payload":{"task_id":"t"}}
{"seq":3,"t":"2026-01-01T00:00:00Z","kind":"message","to":"R7","type":"ReplanRequest"}
`
	tf, err := trace.Read("broken.jsonl", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := AuditTrace(DefaultConfig(), "broken.jsonl", tf)
	if err == nil || !strings.Contains(err.Error(), "broken.jsonl:3: message event (seq 3) has no from") {
		t.Errorf("err = %v, want the broken line named", err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Kind != KindBoundaryViolation {
		t.Errorf("findings before the broken line = %v, want the boundary violation at seq 2", res.Findings)
	}
	if _, err := AuditTrace(Config{}, "x", tf); err == nil {
		t.Error("AuditTrace accepted an invalid config")
	}
}

// A torn trace ends where it tears, so an open manifest is incomplete; a trace with a
// malformed line in the middle is not ended, since the lines after it are unknown. A
// trace whose chain is broken is audited as it reads, and the break is the error.
func TestAuditFileEndsOnlyWholeTraces(t *testing.T) {
	head, err := trace.SealTrace([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header","format":"spine-trace/2"}
{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R2","to":"R4b","type":"DispatchManifest","task_id":"t","payload":{"task_id":"t","subtask_ids":["a"]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, tail string
		edit       func(string) string
		findings   int
		torn       bool
		err        string
		broken     int
	}{
		{name: "whole.jsonl", findings: 1},
		{name: "torn.jsonl", tail: `{"seq":3,"t":"2026-01-01T00:00:00Z","ki`, findings: 1, torn: true},
		{name: "bad.jsonl", tail: "{oops\n" + `{"seq":4,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R4a","to":"R4b","type":"SubTaskOutcome","task_id":"t","payload":{"subtask_id":"a"}}` + "\n",
			err: "bad.jsonl:3: invalid JSON", broken: 3},
		{name: "tampered.jsonl", edit: func(s string) string { return strings.Replace(s, `"subtask_ids":["a"]`, `"subtask_ids":["b"]`, 1) }, findings: 1,
			err: "tampered.jsonl: hash chain broken at line 2 (seq 2): hash does not chain to line 1 (line 2 was edited, or the h of line 1 was rewritten)", broken: 2},
	} {
		path := filepath.Join(dir, tc.name)
		src := string(head) + tc.tail
		if tc.edit != nil {
			src = tc.edit(src)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := AuditFile(DefaultConfig(), path, nil)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
		broken := 0
		if res.Broken != nil {
			broken = res.Broken.Line
		}
		if broken != tc.broken || !res.Chain.Chained {
			t.Errorf("%s: chain %+v, broken %v; want the break at line %d", tc.name, res.Chain, res.Broken, tc.broken)
		}
		if len(res.Findings) != tc.findings || (res.Torn != nil) != tc.torn || res.Messages != 1 {
			t.Errorf("%s: %d message(s), findings %v, torn %v; want 1 message, %d finding(s), torn %v", tc.name, res.Messages, res.Findings, res.Torn, tc.findings, tc.torn)
		}
	}
	if _, err := AuditFile(DefaultConfig(), filepath.Join(dir, "missing.jsonl"), nil); err == nil {
		t.Error("AuditFile of a missing file succeeded")
	}
	// With trusted keys, a trace they do not vouch for is refused and not audited.
	key := filepath.Join(dir, "k.key")
	if _, err := trace.WriteKeyPair(key); err != nil {
		t.Fatal(err)
	}
	ring, err := trace.LoadKeyRing(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	var se *trace.SignatureError
	res, err := AuditFile(DefaultConfig(), filepath.Join(dir, "whole.jsonl"), ring)
	if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), filepath.Join(dir, "whole.jsonl")+": ") || res.Messages != 0 {
		t.Errorf("an unsigned trace with keys: %+v, %v; want it refused, naming the file", res, err)
	}
}
