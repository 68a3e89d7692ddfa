package replay

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// recordHeader records a session's header with rs and reads it back as a recording.
func recordHeader(t *testing.T, rs *ruleset.RuleSet) *Recording {
	t.Helper()
	sink := &tr.MemorySink{}
	engine.NewSession(rs, engine.WithTrace(sink), engine.WithRunID("embed"))
	return readRecording(t, "embed.jsonl", sink.Bytes())
}

func readRecording(t *testing.T, name string, b []byte) *Recording {
	t.Helper()
	tf, err := tr.Read(name, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording(name, tf)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestEmbeddedRules: a header carries its rule file, which compiles to the recorded
// hash under the recorded path; a source that was edited, or is too big, is refused
// with the trace's line and what is wrong; a header with no source asks for a lookup.
func TestEmbeddedRules(t *testing.T) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rec := recordHeader(t, rs)
	got, err := rec.EmbeddedRules()
	if err != nil || got == nil || got.Hash() != rs.Hash() || got.Path() != "../engine/testdata/engine/climb.yaml" {
		t.Fatalf("embedded rules: %v, %v", got, err)
	}

	edited := *rec
	edited.Header.Rules.Source = strings.Replace(rec.Header.Rules.Source, "good: 0.8", "good: 0.5", 1)
	big := *rec
	big.Header.Rules.Source = strings.Repeat("#", MaxRecordedRuleFile+1)
	bad := *rec
	bad.Header.Rules.Source = "rules: [\n"
	bad.Header.Rules.Hash = ruleset.HashOf([]byte(bad.Header.Rules.Source))
	for _, tc := range []struct {
		name string
		rec  *Recording
		want string
	}{
		{"edited", &edited, "embed.jsonl:1: header: rules.source hashes to " + ruleset.HashOf([]byte(edited.Header.Rules.Source)) + ", not the recorded rules.hash " + rs.Hash() + ": the header was edited"},
		{"big", &big, "embed.jsonl:1: header: rules.source is 1048577 bytes, more than the 1048576 a rule file taken from a trace may have"},
		{"bad", &bad, "embed.jsonl:1: header: rules.source: ../engine/testdata/engine/climb.yaml:"},
	} {
		_, err := tc.rec.EmbeddedRules()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}

	old := readRecording(t, "old.jsonl", []byte(mustRead(t, "../engine/testdata/oldheader/no_rule.jsonl")))
	if got, err := old.EmbeddedRules(); got != nil || err != nil {
		t.Fatalf("a header without a source: %v, %v; want neither", got, err)
	}
}

// FuzzEmbeddedRules: a trace's header is outside input; whatever its rules.source holds,
// taking the rules from it never panics, and rules it returns have the recorded hash.
func FuzzEmbeddedRules(f *testing.F) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		f.Fatal(err)
	}
	sink := &tr.MemorySink{}
	engine.NewSession(rs, engine.WithTrace(sink), engine.WithRunID("fuzz"))
	f.Add(sink.Bytes())
	f.Add([]byte(mustReadF(f, "../engine/testdata/oldheader/no_rule.jsonl")))
	f.Add([]byte(`{"seq":1,"t":"2000-01-01T00:00:00Z","kind":"header","format":"spine-trace/2","rules":{"hash":"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","source":""}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tf, err := tr.Read("fuzz.jsonl", bytes.NewReader(b))
		if err != nil {
			return
		}
		rec, err := NewRecording("fuzz.jsonl", tf)
		if err != nil {
			return
		}
		got, err := rec.EmbeddedRules()
		if got != nil && (err != nil || got.Hash() != rec.Header.Rules.Hash) {
			t.Fatalf("rules with hash %s for a header recording %s (%v)", got.Hash(), rec.Header.Rules.Hash, err)
		}
	})
}

func mustReadF(f *testing.F, path string) string {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}
