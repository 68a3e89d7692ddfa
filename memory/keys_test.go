package memory

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/golden"
)

// schemaScenario writes a small store touching every key family: M and K entries with
// colons and percent signs in their tags, a consolidated C entry with a recall, a trust
// bankruptcy (a superseding K entry).
func schemaScenario(t *testing.T, e *env) {
	t.Helper()
	e.write(
		BlockedTargetMegram("go", "./cmd:main", Quantum{State: "change_path", F: 0.3, Sigma: 0, K: 0.2}, "go build ./cmd:main failed"),
		contract.Megram{Level: contract.LevelK, Space: "tool:sh", Entity: "path:/tmp/100%", State: "refine", F: 0.5, Sigma: 0.5, K: 0.5},
	)
	sop := consolidated(e, IntentSpace("Migrate the DB schema"), EntityLocal) // IDs 3..9, C = 10
	e.clock.Advance(Day)
	e.flush() // the recall of consolidated's QueryC is stored at t0
	w, _ := e.s.WriterFor(RoleGGS)
	for i := 0; i < 7; i++ {
		w.RecordNegativeFeedback(context.Background(), sop.ID, "schema tool changed")
	}
	e.flush()
	if rep := e.dream(); rep.Bankrupt != 1 {
		t.Fatalf("dream %+v, want one bankruptcy", rep)
	}
	e.noErrors()
}

func renderKV(k, v []byte) string {
	key := string(k)
	switch {
	case strings.HasPrefix(key, prefixIdx):
		s, err := decodeSummary(v)
		if err != nil {
			return fmt.Sprintf("%s = <bad: %v>", key, err)
		}
		return fmt.Sprintf("%s = %s (level=%s f=%g sigma=%g k=%g ref=%s supersedes=%q)",
			key, hex.EncodeToString(v), s.Level, s.F, s.Sigma, s.K, s.Ref.Format(time.RFC3339Nano), s.Supersedes)
	default:
		return fmt.Sprintf("%s = %q", key, v)
	}
}

func TestKeySchema(t *testing.T) {
	dir := t.TempDir()
	clock := newClock()
	s, err := OpenLevelDB(dir, Options{Clock: clock, IDs: &SequentialIDs{Prefix: "m"}, Timer: newManualTimer(), Distiller: TemplateDistillerForTests{}})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, s: s, clock: clock, rec: newRecorder()}
	schemaScenario(t, e)
	s.Close()

	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []string
	var raw [][2][]byte
	it := db.NewIterator(nil, nil)
	for it.Next() {
		k, v := append([]byte(nil), it.Key()...), append([]byte(nil), it.Value()...)
		raw = append(raw, [2][]byte{k, v})
		lines = append(lines, renderKV(k, v))
	}
	it.Release()
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "keys.golden"), strings.Join(lines, "\n")+"\n")

	// Families and their invariants, independent of the golden file.
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "megram:"), strings.HasPrefix(line, "idx:"), strings.HasPrefix(line, "recall:"):
		case strings.HasPrefix(line, "lvl:"):
			if !strings.HasSuffix(line, ` = ""`) {
				t.Errorf("level key with a value: %s", line)
			}
		default:
			t.Errorf("key outside the schema: %s", line)
		}
	}
	for _, want := range []string{
		"idx:tool%3Ago:path%3A./cmd%3Amain:m000000000001 = ",
		"idx:tool%3Ash:path%3A/tmp/100%25:m000000000002 = ",
		"idx:intent%3Amigrate_the_db:env%3Alocal:m000000000010 = ",
		"lvl:C:m000000000010 = ",
		"recall:m000000000010 = \"2025-03-01T12:00:00Z\"",
	} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("no key line starting %q", want)
		}
	}

	// The in-memory twin holds the same bytes under the same keys.
	mem, err := NewInMemory(Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "m"}, Timer: newManualTimer(), Distiller: TemplateDistillerForTests{}})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	me := &env{t: t, s: mem, clock: mem.clock.(*stepClock), rec: newRecorder()}
	schemaScenario(t, me)
	kvs, err := mem.be.(*memBackend).dump()
	if err != nil {
		t.Fatal(err)
	}
	if len(kvs) != len(raw) {
		t.Fatalf("in-memory holds %d keys, LevelDB %d", len(kvs), len(raw))
	}
	for i := range kvs {
		if !bytes.Equal(kvs[i][0], raw[i][0]) || !bytes.Equal(kvs[i][1], raw[i][1]) {
			t.Fatalf("key %d differs:\n leveldb  %s\n inmemory %s", i, renderKV(raw[i][0], raw[i][1]), renderKV(kvs[i][0], kvs[i][1]))
		}
	}
}

// golden compares got with the file, or rewrites it under -rewrite.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got), *rewrite)
}

func TestTagEscaping(t *testing.T) {
	for _, tc := range []struct{ in, esc string }{
		{"tool:go", "tool%3Ago"},
		{"plain", "plain"},
		{"100%", "100%25"},
		{"%3A", "%253A"},
		{"a:b%c:", "a%3Ab%25c%3A"},
	} {
		if got := escapeTag(tc.in); got != tc.esc {
			t.Errorf("escapeTag(%q) = %q, want %q", tc.in, got, tc.esc)
		}
		if back, err := unescapeTag(tc.esc); err != nil || back != tc.in {
			t.Errorf("unescapeTag(%q) = %q, %v", tc.esc, back, err)
		}
	}
	for _, bad := range []string{"%", "%3", "%41", "a%zz"} {
		if _, err := unescapeTag(bad); err == nil {
			t.Errorf("unescapeTag(%q) accepted", bad)
		}
	}
}

func TestParseIdxKey(t *testing.T) {
	space, entity, id, n, err := parseIdxKey("idx:tool%3Ago:path%3A/a%3Ab:m1")
	if err != nil || space != "tool:go" || entity != "path:/a:b" || id != "m1" || n != len("idx:tool%3Ago:path%3A/a%3Ab:") {
		t.Errorf("parse = %q %q %q %d %v", space, entity, id, n, err)
	}
	for _, bad := range []string{"", "idx:", "idx:a:b", "idx:a::id", "idx::b:id", "lvl:M:x", "idx:a:b:", "idx:%:b:id"} {
		if _, _, _, _, err := parseIdxKey(bad); err == nil {
			t.Errorf("parseIdxKey(%q) accepted", bad)
		}
	}
}

func TestSummaryLayout(t *testing.T) {
	s := summary{Level: "K", F: 1, Sigma: -1, K: 0.5, Ref: time.Unix(0, 1).UTC(), Supersedes: "c1"}
	got := hex.EncodeToString(encodeSummary(s))
	want := "01" + "4b" + "3ff0000000000000" + "bff0000000000000" + "3fe0000000000000" + "0000000000000001" + hex.EncodeToString([]byte("c1"))
	if got != want {
		t.Fatalf("encodeSummary = %s, want %s", got, want)
	}
	back, err := decodeSummary(encodeSummary(s))
	if err != nil || !back.equal(s) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}
