package memory

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

// dumpKV returns every key and value of the store in key order.
func dumpKV(t *testing.T, s *Service) [][2][]byte {
	t.Helper()
	switch be := s.be.(type) {
	case *memBackend:
		kvs, err := be.dump()
		if err != nil {
			t.Fatal(err)
		}
		return kvs
	case *levelBackend:
		var kvs [][2][]byte
		it := be.db.NewIterator(nil, nil)
		defer it.Release()
		for it.Next() {
			kvs = append(kvs, [2][]byte{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
		}
		if err := it.Error(); err != nil {
			t.Fatal(err)
		}
		return kvs
	}
	t.Fatalf("no dump for %T", s.be)
	return nil
}

func sameKV(t *testing.T, got, want [][2][]byte) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			t.Fatalf("restored store lacks key %q", want[i][0])
		case i >= len(want):
			t.Fatalf("restored store has extra key %q", got[i][0])
		case !bytes.Equal(got[i][0], want[i][0]) || !bytes.Equal(got[i][1], want[i][1]):
			t.Fatalf("entry %d: restored %q = %q, exported %q = %q", i, got[i][0], got[i][1], want[i][0], want[i][1])
		}
	}
}

// richStore holds every kind of record: GGS M entries, an imported one, a consolidated
// C entry that was recalled, and a K entry superseding a bankrupt C entry.
func richStore(t *testing.T, bc backendCase) *env {
	e := newEnv(t, bc, nil)
	for i := 0; i < 7; i++ {
		e.write(megram("intent:ship_it", EntityLocal, "accept", 0.9, 1, 0.05))
		e.write(megram("tool:read_file", "path:config/<a>&\"b\".yaml", "change_approach", 0.8, -1, 0.1))
	}
	e.dream() // two consolidations
	if _, err := e.s.QueryC(context.Background(), "intent:ship_it", EntityLocal); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(Day)
	for i := 0; i < 12; i++ {
		e.write(megram("intent:ship_it", EntityLocal, "abandon", 0.9, -1, 0.05))
	}
	e.dream() // the best practice goes bankrupt
	imp := megram("tool:grep", "path:src", "refine", 0.1, 0.5, 0.5)
	imp.ID, imp.CreatedAt = "imp-1", t0
	if _, err := e.s.Import(context.Background(), []contract.Megram{imp}); err != nil {
		t.Fatal(err)
	}
	e.flush()
	e.noErrors()
	levels := map[string]int{}
	recs := 0
	for _, kv := range dumpKV(t, e.s) {
		k := string(kv[0])
		if strings.HasPrefix(k, prefixLvl) {
			levels[k[len(prefixLvl):len(prefixLvl)+1]]++
		}
		if strings.HasPrefix(k, prefixRecall) {
			recs++
		}
	}
	if levels["C"] < 2 || levels["K"] < 1 || recs < 1 {
		t.Fatalf("the fixture store lacks C, K or recall entries: levels %v, recalls %d", levels, recs)
	}
	return e
}

func exportLines(t *testing.T, s *Service) []string {
	t.Helper()
	var b bytes.Buffer
	n, err := s.Export(context.Background(), &b)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("Export said %d records and wrote %d lines", n, len(lines))
	}
	return lines
}

func parseLines(t *testing.T, lines []string) []ExportedRecord {
	t.Helper()
	var recs []ExportedRecord
	for i, l := range lines {
		r, err := ParseExportLine([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestExportRestoreRoundTrip(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			src := richStore(t, bc)
			lines := exportLines(t, src.s)
			recs := parseLines(t, lines)
			dst := newEnv(t, bc, nil)
			rep, err := dst.s.Restore(context.Background(), recs, ImportOptions{})
			if err != nil || len(rep.Imported) != len(recs) {
				t.Fatalf("Restore = %+v, %v", rep, err)
			}
			sameKV(t, dumpKV(t, dst.s), dumpKV(t, src.s))
			if again := exportLines(t, dst.s); strings.Join(again, "\n") != strings.Join(lines, "\n") {
				t.Fatal("the restored store exports differently")
			}
		})
	}
}

// TestRestoreRerun is an import killed after its first batches: the same file run again
// with SkipExisting completes it, and the store is the one a single run makes.
func TestRestoreRerun(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			src := richStore(t, bc)
			recs := parseLines(t, exportLines(t, src.s))
			dst := newEnv(t, bc, nil)
			ctx := context.Background()
			if _, err := dst.s.Restore(ctx, recs[:len(recs)/2], ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			var ie *ImportError
			if _, err := dst.s.Restore(ctx, recs, ImportOptions{}); !errors.As(err, &ie) || ie.Index != 0 {
				t.Fatalf("re-run without skipping: %v, want a refusal of entry 0", err)
			}
			rep, err := dst.s.Restore(ctx, recs, ImportOptions{SkipExisting: true})
			if err != nil || rep.Skipped != len(recs)/2 || len(rep.Imported) != len(recs)-len(recs)/2 {
				t.Fatalf("re-run = %+v, %v; want %d skipped, the rest imported", rep, err, len(recs)/2)
			}
			sameKV(t, dumpKV(t, dst.s), dumpKV(t, src.s))
		})
	}
}

func TestImportSkipExisting(t *testing.T) {
	base := megram("tool:a", "path:b", "refine", 0.5, 0.5, 0.01)
	base.ID, base.CreatedAt = "imp-1", t0
	changed := func(f func(*contract.Megram)) contract.Megram { m := base; f(&m); return m }
	cases := []struct {
		name string
		m    contract.Megram
		want string // "" for skipped
	}{
		{"identical", base, ""},
		{"f", changed(func(m *contract.Megram) { m.F = 0.9 }),
			"memory: megram imp-1 is already stored with different values: f is 0.5 in the store, 0.9 in the file; only identical records are skipped"},
		{"content", changed(func(m *contract.Megram) { m.Content = "other" }),
			`memory: megram imp-1 is already stored with different values: content is "" in the store, "other" in the file; only identical records are skipped`},
		{"created_at", changed(func(m *contract.Megram) { m.CreatedAt = t0.Add(1) }),
			`memory: megram imp-1 is already stored with different values: created_at is "2025-03-01T12:00:00Z" in the store, "2025-03-01T12:00:00.000000001Z" in the file; only identical records are skipped`},
		{"no id", changed(func(m *contract.Megram) { m.ID = "" }),
			"memory: megram (tool:a, path:b) has no id or no created_at; skipping existing records needs both, or a second run would append it again"},
	}
	for _, bc := range backendCases {
		for _, tc := range cases {
			t.Run(bc.name+"/"+tc.name, func(t *testing.T) {
				e := newEnv(t, bc, nil)
				ctx := context.Background()
				if _, err := e.s.Import(ctx, []contract.Megram{base}); err != nil {
					t.Fatal(err)
				}
				other := megram("tool:c", "path:d", "refine", 0.5, 0.5, 0.01)
				other.ID, other.CreatedAt = "imp-2", t0
				rep, err := e.s.ImportWith(ctx, []contract.Megram{other, tc.m}, ImportOptions{SkipExisting: true})
				if tc.want == "" {
					if err != nil || rep.Skipped != 1 || len(rep.Imported) != 1 || rep.Imported[0] != "imp-2" {
						t.Fatalf("ImportWith = %+v, %v; want imp-1 skipped, imp-2 imported", rep, err)
					}
					return
				}
				var ie *ImportError
				if !errors.As(err, &ie) || ie.Index != 1 || err.Error() != tc.want {
					t.Fatalf("ImportWith error\n got %v\nwant %s (entry 1)", err, tc.want)
				}
				if ok, _ := e.s.be.has("imp-2"); ok {
					t.Fatal("a refused import wrote the entry before the refused one")
				}
			})
		}
	}
}

// TestImportIntoDamagedStore flips a byte inside a table file: the import must fail
// before writing, as every reading command does.
func TestImportIntoDamagedStore(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenLevelDB(dir, Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.WriterFor(RoleGGS)
	for i := 0; i < 2000; i++ {
		w.Write(megram("tool:a", "path:b"+strings.Repeat("x", i%50), "refine", 0.5, 0.5, 0.01))
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if len(tables) == 0 {
		t.Fatal("compaction wrote no table file")
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0xff
	if err := os.WriteFile(tables[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = OpenLevelDB(dir, Options{Clock: newClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := megram("tool:z", "path:z", "refine", 0.5, 0.5, 0.01)
	m.ID = "imp-1"
	_, err = s.Import(context.Background(), []contract.Megram{m})
	if err == nil || !strings.HasPrefix(err.Error(), "memory: import: the store fails its checks, nothing was imported: ") ||
		!strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("import into a damaged store: %v", err)
	}
	if ok, _ := s.be.has("imp-1"); ok {
		t.Fatal("the import wrote into the damaged store")
	}
}

func TestParseExportLineErrors(t *testing.T) {
	good := `{"id":"a","level":"M","created_at":"2025-03-01T12:00:00Z","last_recalled_at":"2025-03-01T12:00:00Z","space":"s","entity":"e","content":"","state":"","f":0.5,"sigma":0,"k":0}`
	cases := []struct{ line, want string }{
		{`{"type":"MemoryRecord","record":` + good + `,"attention":1}`, `exported record: json: unknown field "attention"`},
		{`{"type":"Megram","record":` + good + `}`, `exported record: type must be "MemoryRecord"`},
		{`{"type":"MemoryRecord"}`, `exported record: no record`},
		{`{"type":"MemoryRecord","record":` + good + `,"recalled_at":"yesterday"}`, `exported record a: recall value "yesterday": want an RFC 3339 time`},
		{`{"type":"MemoryRecord","record":` + strings.Replace(good, `"f":0.5`, `"f":2`, 1) + `}`, `megram record: f`},
		{`{"type":"MemoryRecord","record":` + good + `} {}`, `exported record: trailing data after the JSON object`},
	}
	for _, tc := range cases {
		_, err := ParseExportLine([]byte(tc.line))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseExportLine(%s)\n got %v\nwant prefix %s", tc.line, err, tc.want)
		}
	}
	if _, err := ParseExportLine([]byte(`{"type":"MemoryRecord","record":` + good + `}`)); err != nil {
		t.Errorf("good line: %v", err)
	}
}

func FuzzParseExportLine(f *testing.F) {
	f.Add([]byte(`{"type":"MemoryRecord","record":{"id":"a","level":"C","created_at":"2025-03-01T12:00:00Z","last_recalled_at":"2025-03-01T12:00:00Z","space":"s","entity":"e","content":"x","state":"","f":1,"sigma":1,"k":0,"origin":"R5:dreamer"},"recalled_at":"2025-03-02T00:00:00Z"}`))
	f.Add([]byte(`{"type":"MemoryRecord","record":{}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseExportLine(line)
		if err != nil {
			return
		}
		// What parses writes back to the same line.
		out := appendExportLine(nil, encodeRecord(r.Record), map[bool][]byte{true: nil, false: encodeRecall(r.RecalledAt)}[r.RecalledAt.IsZero()])
		r2, err := ParseExportLine(bytes.TrimSuffix(out, []byte("\n")))
		if err != nil {
			t.Fatalf("re-encoded line %s does not parse: %v", out, err)
		}
		if !bytes.Equal(encodeRecord(r2.Record), encodeRecord(r.Record)) || !r2.RecalledAt.Equal(r.RecalledAt) {
			t.Fatalf("round trip changed the record: %s", out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		if sc.Scan(); sc.Scan() {
			t.Fatalf("an exported line spans two lines: %q", out)
		}
	})
}
