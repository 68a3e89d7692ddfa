package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/golden"
)

// traceFixtures are the recorded GGS runs every trace reader is checked on.
func traceFixtures(t *testing.T) []string {
	t.Helper()
	var all []string
	for _, pattern := range []string{"../../fixtures/ggs/*.trace.jsonl", "../../fixtures/pipeline/*.trace.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m...)
	}
	if len(all) < 8 {
		t.Fatalf("found %d trace fixtures, want at least 8", len(all))
	}
	return all
}

// fixtureName names a fixture's goldens after its directory and file: ggs_accept.
func fixtureName(path string) string {
	return filepath.Base(filepath.Dir(path)) + "_" + strings.TrimSuffix(filepath.Base(path), ".trace.jsonl")
}

func runSpine(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestTraceLossGolden(t *testing.T) {
	fixtures := traceFixtures(t)
	for _, f := range fixtures {
		for _, form := range []struct{ ext, flag string }{{"txt", ""}, {"json", "--json"}} {
			args := []string{"trace", "loss", f}
			if form.flag != "" {
				args = append(args, form.flag)
			}
			code, out, errs := runSpine(t, args...)
			if code != exitOK || errs != "" {
				t.Fatalf("spine %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
			}
			if !strings.Contains(out, "round") {
				t.Errorf("spine %s printed no rounds:\n%s", strings.Join(args, " "), out)
			}
			golden.Check(t, filepath.Join("testdata", "traceloss", fixtureName(f)+"."+form.ext), []byte(out), *updateScripts)
		}
	}
	// Several traces: one table each, in the order given, headed by its path.
	code, out, errs := runSpine(t, append([]string{"trace", "loss"}, fixtures...)...)
	if code != exitOK || errs != "" {
		t.Fatalf("spine trace loss on every fixture: exit %d, stderr %q", code, errs)
	}
	golden.Check(t, filepath.Join("testdata", "traceloss", "all.txt"), []byte(out), *updateScripts)
}

func TestTraceLossErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeTemp(t, dir, "bad.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\"}\nnot json\n")
	torn := writeTemp(t, dir, "torn.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\"}\n{\"seq\":2,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"fact_asserted\",\"fact\":{\"kind\":\"signals\",\"payload\":{\"round\":1,\"D\":0.5}}}\n{\"seq\":3,")
	empty := writeTemp(t, dir, "empty.trace.jsonl", "")
	foreign := writeTemp(t, dir, "foreign.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"log\"}\n")
	badFact := writeTemp(t, dir, "badfact.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\"}\n{\"seq\":2,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"fact_asserted\",\"fact\":{\"kind\":\"signals\",\"payload\":{\"round\":\"one\"}}}\n")
	for _, c := range []struct {
		args     []string
		code     int
		out, err string
		// prefix: err is the start of stderr, the rest being the trace reader's own
		// wording, which its tests check.
		prefix bool
	}{
		{[]string{"trace", "loss"}, exitUsage, "", "spine trace loss: expected one or more trace files\nRun 'spine trace loss --help' for its flags.\n", false},
		{[]string{"trace", "loss", "--jsn", bad}, exitUsage, "", "spine trace loss: unknown flag --jsn\nRun 'spine trace loss --help' for its flags.\n", false},
		{[]string{"trace", "loss", bad}, exitFail, "", "spine trace loss: " + bad + ":2: ", true},
		{[]string{"trace", "loss", badFact}, exitFail, "", "spine trace loss: " + badFact + ":2: fact_asserted event: signals payload: json: cannot unmarshal string into Go struct field .round of type int\n", false},
		{[]string{"trace", "loss", empty}, exitFail, "", "spine trace loss: " + empty + ": ", true},
		{[]string{"trace", "loss", foreign}, exitFail, "", "spine trace loss: " + foreign + ":1: ", true},
		{[]string{"trace", "loss", filepath.Join(dir, "absent")}, exitFail, "", "spine trace loss: ", true},
		{[]string{"trace", "loss", torn}, exitOK,
			torn + "\n  round  D      P      Ω      L      ∇L        directive  rule  blocked tools  blocked targets\n  1      0.500  0.000  0.000  0.000  +0.000 →  -          -     -              -\n",
			"spine trace loss: " + torn + ": ", true},
	} {
		code, out, errs := runSpine(t, c.args...)
		errOK := errs == c.err || c.prefix && strings.HasPrefix(errs, c.err) && strings.Count(errs, "\n") == 1
		if code != c.code || out != c.out || !errOK {
			t.Errorf("spine %s:\ngot  exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", strings.Join(c.args, " "), code, out, errs, c.code, c.out, c.err)
		}
	}
}

func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	writeFile(t, path, content)
	return path
}

// FuzzTraceReaders feeds arbitrary files to trace loss, trace diff and trace html: an
// error, a table or a page, never a panic, and never an exit status outside the
// documented three.
func FuzzTraceReaders(f *testing.F) {
	for _, path := range []string{"../../fixtures/ggs/refine_then_accept.trace.jsonl", "../../fixtures/pipeline/change_path_then_accept.trace.jsonl"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\"seq\":1,\"t\":\"x\",\"kind\":\"fact_updated\",\"fact\":{\"kind\":\"signals\",\"payload\":{\"round\":1}}}\n{\"seq\":2,\"t\":\"x\",\"kind\":\"message\",\"type\":\"PlanDirective\",\"payload\":{\"blocked_tools\":null}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.trace.jsonl")
		writeFile(t, path, string(data))
		page := filepath.Join(filepath.Dir(path), "f.html")
		for _, args := range [][]string{{"trace", "loss", path}, {"trace", "loss", "--json", path}, {"trace", "diff", path, path}, {"trace", "diff", path, "../../fixtures/ggs/accept.trace.jsonl"}, {"trace", "html", "-o", page, path}} {
			if code, _, _ := runSpine(t, args...); code != exitOK && code != exitFail {
				t.Fatalf("spine %s: exit %d", strings.Join(args, " "), code)
			}
		}
	})
}
