package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	tr "github.com/agentspine/spine/spine/trace"
)

// TestFindRulesByHash: a trace written before headers carried their rules finds them by
// hash, under any name, and replays into the same bytes (its header still without a
// source); when no file has the hash, the error names the hash and every file looked at.
func TestFindRulesByHash(t *testing.T) {
	const path = "../engine/testdata/oldheader/no_rule.jsonl"
	recorded, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := tr.Read(path, bytes.NewReader(recorded))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording(path, tf)
	if err != nil {
		t.Fatal(err)
	}
	renamed := []RuleFile{
		{Name: "a.yaml", Read: func() ([]byte, error) { return []byte("not the recorded rules"), nil }},
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
