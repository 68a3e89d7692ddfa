package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// recordHeader records a session's header with rs and reads it back as a recording.
func recordHeader(t *testing.T, rs *engine.RuleSet) *Recording {
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

// TestFindRulesByHash: a trace written before headers carried their rules finds them by
// hash, under any name, and replays into the same bytes (its header still without a
// source); when no file has the hash, the error names the hash and every file looked at.
func TestFindRulesByHash(t *testing.T) {
	const path = "../engine/testdata/oldheader/no_rule.jsonl"
	recorded := []byte(mustRead(t, path))
	rec := readRecording(t, path, recorded)
	renamed := []RuleFile{
		{Name: "a.yaml", Read: func() ([]byte, error) { return []byte(finishRules), nil }},
		{Name: "gone.yaml", Read: func() ([]byte, error) { return nil, errors.New("gone.yaml: no such file") }},
		{Name: "my-copy.yaml", Read: func() ([]byte, error) { return os.ReadFile("../engine/testdata/engine/climb.yaml") }},
	}
	rs, err := FindRulesByHash(rec.Header.Rules.Path, rec.Header.Rules.Hash, renamed)
	if err != nil || rs.Hash() != rec.Header.Rules.Hash || rs.Path() != "my-copy.yaml" {
		t.Fatalf("by hash: %v, %v", rs, err)
	}
	sink := &tr.MemorySink{}
	if _, err := Run(context.Background(), rec, rs, sink); err != nil {
		t.Fatal(err)
	}
	if d := CompareTraces(recorded, sink.Bytes(), 0); d != nil {
		t.Fatalf("the replay of an old-layout trace differs: %s", d)
	}

	want := "recorded with rules testdata/engine/climb.yaml (" + rec.Header.Rules.Hash + "), and the header carries no rule source (a trace written before headers did); no rule file has that hash"
	many := make([]RuleFile, 14)
	for i := range many {
		many[i] = RuleFile{Name: string(rune('a'+i)) + ".yaml", Read: func() ([]byte, error) { return []byte("x"), nil }}
	}
	for _, tc := range []struct {
		name  string
		files []RuleFile
		want  string
	}{
		{"nothing", nil, want + " (none found to look at); pass --rules FILE to replay with other rules"},
		{"others", renamed[:2], want + " (looked at a.yaml) (not read: gone.yaml: no such file); pass --rules FILE to replay with other rules"},
		{"beside", RuleFilesBeside("../ruleset/testdata/load"), want + " (looked at "},
		{"many", many, want + " (looked at a.yaml, b.yaml, c.yaml, d.yaml, e.yaml, f.yaml, g.yaml, h.yaml, i.yaml, j.yaml, k.yaml, l.yaml and 2 more); pass --rules FILE to replay with other rules"},
	} {
		_, err := FindRulesByHash(rec.Header.Rules.Path, rec.Header.Rules.Hash, tc.files)
		var nf *RulesNotFoundError
		if !errors.As(err, &nf) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
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
