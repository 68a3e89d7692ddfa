package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/standin/scripted"
)

// ggsStore builds a LevelDB store the way runs do: every GGS fixture is played, three
// times over, with GGS writing to the store; then a Dreamer pass consolidates and the
// consolidated entries are recalled.
func ggsStore(t *testing.T, dir string) {
	t.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := fs.Glob(fixtures.FS, "ggs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no GGS fixtures: %v", err)
	}
	clock := clock.NewStep(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Second)
	store, err := memory.OpenLevelDB(dir, memory.Options{Clock: clock, Distiller: memory.TemplateDistillerForTests{},
		IDs: &memory.SequentialIDs{Prefix: "d"}, Storage: memory.StorageOptions{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	w, err := store.WriterFor(memory.RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for round := 0; round < 3; round++ {
		for i, p := range paths {
			src, err := fs.ReadFile(fixtures.FS, p)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scripted.Parse(p, src)
			if err != nil {
				t.Fatal(err)
			}
			ids := &engine.SeqIDs{Prefix: fmt.Sprintf("r%df%d-", round, i)}
			loop, err := ggs.NewLoop(rs, scripted.NewPlant(sc), sc.Task, ggs.WithMemory(w, clock, ids))
			if err != nil {
				t.Fatal(err)
			}
			eng := engine.NewEngine(rs, loop)
			if err := loop.Seed(eng.Session()); err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Run(ctx); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
	}
	if err := store.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DreamOnce(ctx); err != nil {
		t.Fatal(err)
	}
	recalled := 0
	err = store.List(ctx, memory.ListFilter{Level: "C"}, func(r memory.Record) error {
		recalled++
		_, err := store.QueryC(ctx, r.Space, r.Entity)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := store.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("store of %d fixtures × 3 runs; %d C entries recalled", len(paths), recalled)
}

// leveldbKV reads every key and value of a LevelDB directory.
func leveldbKV(t *testing.T, dir string) [][2]string {
	t.Helper()
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var kvs [][2]string
	it := db.NewIterator(nil, nil)
	for it.Next() {
		kvs = append(kvs, [2]string{string(it.Key()), string(it.Value())})
	}
	it.Release()
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return kvs
}

func TestMemoryExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	ggsStore(t, src)
	out, errOut, code := runCLI(t, "memory", "export", "--db", src)
	if code != exitOK {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	file := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	n := strings.Count(out, "\n")
	if errOut != fmt.Sprintf("exported %d records\n", n) {
		t.Errorf("export stderr %q, want the count of %d records", errOut, n)
	}
	if o, e, code := runCLI(t, "memory", "import", "--db", dst, file); code != exitOK || o != fmt.Sprintf("imported %d megrams\n", n) {
		t.Fatalf("import: exit %d: %s%s", code, o, e)
	}
	want, got := leveldbKV(t, src), leveldbKV(t, dst)
	kinds := map[string]int{}
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(got):
			t.Fatalf("restored store lacks %q", want[i][0])
		case i >= len(want):
			t.Fatalf("restored store has extra %q", got[i][0])
		case got[i] != want[i]:
			t.Fatalf("key %d: restored %q = %q, original %q = %q", i, got[i][0], got[i][1], want[i][0], want[i][1])
		}
		kinds[strings.SplitN(want[i][0], ":", 2)[0]]++
	}
	if kinds["megram"] == 0 || kinds["megram"] != n {
		t.Fatalf("key kinds %v for %d exported records", kinds, n)
	}
	t.Logf("%d keys compared byte for byte: %v", len(want), kinds)
	if again, _, _ := runCLI(t, "memory", "export", "--db", dst); again != out {
		t.Fatal("the restored store exports differently")
	}
}

// TestMemoryImportRerun: an import killed part-way (a prefix of the file imported) is
// finished by the same import with --skip-existing; a differing record is refused with
// its line; a store that fails its checksums is refused with exit 1.
func TestMemoryImportRerun(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	ggsStore(t, src)
	out, _, _ := runCLI(t, "memory", "export", "--db", src)
	lines := strings.SplitAfter(out, "\n")
	lines = lines[:len(lines)-1]
	if len(lines) < 4 {
		t.Fatalf("export of %d lines is too small for the test", len(lines))
	}
	whole, prefix := filepath.Join(dir, "whole.jsonl"), filepath.Join(dir, "prefix.jsonl")
	half := len(lines) / 2
	if err := os.WriteFile(whole, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefix, []byte(strings.Join(lines[:half], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := runCLI(t, "memory", "import", "--db", dst, prefix); code != exitOK {
		t.Fatalf("prefix import: %s", e)
	}
	firstID := strings.SplitN(strings.SplitN(lines[0], `"id":"`, 2)[1], `"`, 2)[0]
	if _, e, code := runCLI(t, "memory", "import", "--db", dst, whole); code != exitFail ||
		e != fmt.Sprintf("spine memory import: line 1: memory: megram %s: ID already stored; the store never overwrites\n", firstID) {
		t.Fatalf("re-run without --skip-existing: exit %d: %s", code, e)
	}
	o, e, code := runCLI(t, "memory", "import", "--db", dst, "--skip-existing", whole)
	if code != exitOK || o != fmt.Sprintf("imported %d megrams, skipped %d already stored\n", len(lines)-half, half) {
		t.Fatalf("re-run with --skip-existing: exit %d: %s%s", code, o, e)
	}
	if !equalKV(leveldbKV(t, src), leveldbKV(t, dst)) {
		t.Fatal("the completed import differs from the original store")
	}

	// A line whose record is stored with other values is refused, naming record and line.
	third := lines[2]
	changed := strings.Replace(third, `"state":"`, `"state":"x`, 1)
	if changed == third {
		t.Fatalf("line 3 has no state: %s", third)
	}
	differ := filepath.Join(dir, "differ.jsonl")
	if err := os.WriteFile(differ, []byte(lines[0]+lines[1]+changed), 0o644); err != nil {
		t.Fatal(err)
	}
	id := strings.SplitN(strings.SplitN(third, `"id":"`, 2)[1], `"`, 2)[0]
	state := strings.SplitN(strings.SplitN(third, `"state":"`, 2)[1], `"`, 2)[0]
	want := fmt.Sprintf("spine memory import: line 3: memory: megram %s is already stored with different values: state is %q in the store, %q in the file; only identical records are skipped\n", id, state, "x"+state)
	if _, e, code := runCLI(t, "memory", "import", "--db", dst, "--skip-existing", differ); code != exitFail || e != want {
		t.Fatalf("differing record: exit %d\n got %q\nwant %q", code, e, want)
	}

	// Damage a table file: verify, ls and import all exit 1.
	if _, e, code := runCLI(t, "memory", "gc", "--db", dst); code != exitOK {
		t.Fatalf("gc: %s", e)
	}
	tables, _ := filepath.Glob(filepath.Join(dst, "*.ldb"))
	if len(tables) == 0 {
		t.Fatal("no table file after compaction")
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0xff
	if err := os.WriteFile(tables[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one.jsonl")
	if err := os.WriteFile(one, []byte(`{"id":"new-1","space":"tool:go","entity":"path:x","f":0.3,"k":0.2,"created_at":"2025-03-01T00:00:00Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"verify"}, {"ls"}, {"import", one}, {"import", "--skip-existing", whole}} {
		o, e, code := runCLI(t, append([]string{"memory", args[0], "--db", dst}, args[1:]...)...)
		if code != exitFail || !strings.Contains(o+e, "checksum mismatch") {
			t.Errorf("memory %v on a damaged store: exit %d: %s", args, code, e)
		}
	}
	if args := []string{"memory", "import", "--db", dst, one}; !strings.HasPrefix(mustStderr(t, args...), "spine memory import: memory: import: the store fails its checks, nothing was imported: ") {
		t.Error("import's refusal does not say that nothing was imported")
	}
}

func mustStderr(t *testing.T, args ...string) string {
	t.Helper()
	_, e, _ := runCLI(t, args...)
	return e
}

func equalKV(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
