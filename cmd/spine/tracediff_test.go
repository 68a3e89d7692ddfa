package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/golden"
)

// TestTraceDiffGolden compares every fixture with itself (identical, exit 0), with the
// next fixture in the list, and, for a designed GGS scenario, with the run the same
// scenario makes under an edited rule set (max_replans 3 → 1: the replan share of Ω grows
// and Ω reaches θ sooner).
func TestTraceDiffGolden(t *testing.T) {
	fixtures := traceFixtures(t)
	dir := t.TempDir()
	src, err := os.ReadFile("../../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "\n  max_replans: 3 ", "\n  max_replans: 1 ", 1)
	if edited == string(src) {
		t.Fatal("rules/ggs.yaml has no line `  max_replans: 3 ` to edit")
	}
	rules := writeTemp(t, dir, "ggs.yaml", edited)
	for i, f := range fixtures {
		var report strings.Builder
		diff := func(a, b string, want int) {
			code, out, errs := runSpine(t, "trace", "diff", a, b)
			if code != want || errs != "" {
				t.Errorf("spine trace diff %s %s: exit %d (want %d), stderr %q", a, b, code, want, errs)
			}
			fmt.Fprintf(&report, "$ spine trace diff %s %s\n(exit %d)\n%s\n", a, b, code, out)
		}
		diff(f, f, exitOK)
		diff(f, fixtures[(i+1)%len(fixtures)], exitFail)
		if scenario := strings.TrimSuffix(f, ".trace.jsonl") + ".yaml"; fileExists(scenario) {
			out := filepath.Join(dir, fixtureName(f)+".edited.trace.jsonl")
			// The scenario expects the outcome the shipped rules reach; under the edit it
			// may end otherwise (exit 1) but the trace is written either way.
			if code, _, errs := runSpine(t, "play", "--rules", rules, "--trace", out, scenario); code > exitFail || !fileExists(out) {
				t.Fatalf("spine play --rules %s %s: exit %d, stderr %q", rules, scenario, code, errs)
			}
			diff(f, out, exitFail)
		}
		got := strings.ReplaceAll(report.String(), dir, "$TMP")
		golden.Check(t, filepath.Join("testdata", "tracediff", fixtureName(f)+".txt"), []byte(got), *updateScripts)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestTraceDiffErrors(t *testing.T) {
	dir := t.TempDir()
	a := writeTemp(t, dir, "a.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\",\"run\":\"a\"}\n{\"seq\":2,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"rule_fired\",\"cycle\":1,\"rule\":\"r1\",\"then\":{\"objective\":\"plan\"}}\n")
	b := writeTemp(t, dir, "b.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:01Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\",\"run\":\"a\"}\n{\"seq\":2,\"t\":\"2026-01-01T00:00:01Z\",\"kind\":\"rule_fired\",\"cycle\":1,\"rule\":\"r1\",\"then\":{\"objective\":\"plan\"}}\n")
	c := writeTemp(t, dir, "c.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\",\"run\":\"a\"}\n{\"seq\":2,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"rule_fired\",\"cycle\":1,\"rule\":\"r2\",\"then\":{\"objective\":\"stop\"}}\n{\"seq\":3,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"message\",\"from\":\"R7\",\"to\":\"User\",\"type\":\"FinalResult\"}\n")
	long := writeTemp(t, dir, "long.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\",\"run\":\""+strings.Repeat("é", 300)+"\"}\n")
	bad := writeTemp(t, dir, "bad.trace.jsonl", "{\"seq\":1,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"header\",\"format\":\"spine-trace/2\"}\n{\"seq\":2,\"t\":\"2026-01-01T00:00:00Z\",\"kind\":\"message\",\"from\":7}\n")
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"trace", "diff", a}, exitUsage, "", "spine trace diff: expected two trace files, A and B\nRun 'spine trace diff --help' for its flags.\n"},
		{[]string{"trace", "diff", a, b, c}, exitUsage, "", "spine trace diff: expected two trace files, A and B\nRun 'spine trace diff --help' for its flags.\n"},
		{[]string{"trace", "diff", "--all", a, b}, exitUsage, "", "spine trace diff: unknown flag --all\nRun 'spine trace diff --help' for its flags.\n"},
		{[]string{"trace", "diff", a, bad}, exitFail, "", "spine trace diff: " + bad + ":2: message event: json: cannot unmarshal number into Go struct field Message.from of type string\n"},
		{[]string{"trace", "diff", a, a}, exitOK, "A " + a + ": 1 events\nB " + a + ": 1 events\nidentical\n", ""},
		{[]string{"trace", "diff", a, b}, exitFail, "A " + a + ": 1 events\nB " + b + ": 1 events\n" +
			"the same apart from their timestamps; first at A line 1 (seq 1, header), B line 1 (seq 1, header)\n  field t\n  A: \"2026-01-01T00:00:00Z\"\n  B: \"2026-01-01T00:00:01Z\"\n" +
			"decisions: A 1, B 1; the same sequence\nmessages: A 0, B 0; the same sequence\nexchanges: A 0, B 0; the same sequence\n", ""},
		{[]string{"trace", "diff", a, c}, exitFail, "A " + a + ": 1 events\nB " + c + ": 2 events\n" +
			"first differing event: A line 2 (seq 2, rule_fired), B line 2 (seq 2, rule_fired)\n  field rule\n  A: \"r1\"\n  B: \"r2\"\n" +
			"decisions: A 1, B 1\n  first difference at #1:\n    A: cycle 1: r1 → plan\n    B: cycle 1: r2 → stop\n" +
			"messages: A 0, B 1\n  FinalResult                  A 0, B 1\n  first difference at #1:\n    A: (none)\n    B: R7 → User FinalResult\n" +
			"exchanges: A 0, B 0; the same sequence\n", ""},
		{[]string{"trace", "diff", a, long}, exitFail, "A " + a + ": 1 events\nB " + long + ": 0 events\n" +
			"header: A line 1 (seq 1, header), B line 1 (seq 1, header)\n  field run\n  A: \"a\"\n  B: \"" + strings.Repeat("é", 159) + "… (602 bytes)\n" +
			"first differing event: A line 2 (seq 2, rule_fired), B (end of trace)\n  A: {\"cycle\":1,\"kind\":\"rule_fired\",\"rule\":\"r1\",\"seq\":2,\"then\":{\"objective\":\"plan\"}}\n  B: (end of trace)\n" +
			"decisions: A 1, B 0\n  first difference at #1:\n    A: cycle 1: r1 → plan\n    B: (none)\n" +
			"messages: A 0, B 0; the same sequence\nexchanges: A 0, B 0; the same sequence\n", ""},
	} {
		code, out, errs := runSpine(t, tc.args...)
		if code != tc.code || out != tc.out || errs != tc.err {
			t.Errorf("spine %s:\ngot  exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", strings.Join(tc.args, " "), code, out, errs, tc.code, tc.out, tc.err)
		}
	}
}
