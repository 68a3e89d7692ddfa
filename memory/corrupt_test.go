package memory

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// storeWith writes n Megrams to a new store in batches of batch and closes it; with
// keepJournal the last batches stay in the journal (the store is not reopened).
func storeWith(t testing.TB, dir string, n, batch int) []string {
	t.Helper()
	rec := newRecorder()
	o := Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "c"}, Timer: newManualTimer(), MaxBatch: batch}
	rec.hook(&o)
	s, err := OpenLevelDB(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.WriterFor(RoleGGS)
	for i := 0; i < n; i++ {
		w.Write(burstMegram(i))
		if i%batch == batch-1 {
			if err := s.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()
	if errs := rec.errors(); len(errs) > 0 {
		t.Fatal(errs[0])
	}
	return rec.durableIDs()
}

// filesOf lists the store's files of one kind, by name.
func filesOf(t testing.TB, dir, kind string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if (kind == KindJournal && journalName.MatchString(n)) || (kind == KindTable && strings.HasSuffix(n, ".ldb")) ||
			(kind == KindManifest && manifestName.MatchString(n)) || (kind == KindCurrent && n == "CURRENT") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// flip inverts n bytes of file at its middle (or at off when off >= 0).
func flip(t testing.TB, file string, off, n int) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off = len(b)/2 - n/2
	}
	off = max(0, min(off, len(b)-n))
	for i := off; i < off+n && i < len(b); i++ {
		b[i] ^= 0xff
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return off
}

// dirHash is a digest of every file's name and bytes in dir, aside from LOCK and
// LevelDB's diagnostic LOG, which a refused writable open may append to.
func dirHash(t testing.TB, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, e := range ents {
		if e.Name() == "LOCK" || e.Name() == "LOG" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestCorruptStoreIsRefusedAndVerifyLeavesItAsItWas(t *testing.T) {
	for _, tc := range []struct {
		kind string
		// setup writes the store: journal damage needs records still in the journal,
		// table damage records in a table (a reopen moves the journal into one).
		reopen bool
		want   string // in the damage's text
	}{
		// Where the flip lands in the journal depends on how the batches fell: in a
		// payload (checksum mismatch) or a chunk header.
		{KindJournal, false, "(journal) at offset "},
		{KindTable, true, "checksum mismatch"},
		{KindManifest, true, "(manifest)"},
		{KindCurrent, true, "(current)"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			ids := storeWith(t, dir, 5000, 100)
			if tc.reopen {
				s, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer()})
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
			files := filesOf(t, dir, tc.kind)
			if len(files) == 0 {
				t.Fatalf("no %s file in the store", tc.kind)
			}
			n := 16
			if tc.kind == KindCurrent {
				n = 3
			}
			flip(t, filepath.Join(dir, files[len(files)-1]), -1, n)
			before := dirHash(t, dir)

			rep, err := VerifyLevelDB(context.Background(), dir)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if len(rep.Damage) == 0 || !strings.Contains(rep.Damage[0].String(), tc.want) {
				t.Fatalf("verify of %d acknowledged found damage %v, want one with %q (records %d)", len(ids), rep.Damage, tc.want, rep.Records)
			}
			if rep.Damage[0].File != files[len(files)-1] || rep.Damage[0].Kind != tc.kind {
				t.Errorf("damage %+v, want it in %s (%s)", rep.Damage[0], files[len(files)-1], tc.kind)
			}
			if got := dirHash(t, dir); got != before {
				t.Fatal("verify changed the store's files")
			}
			_, err = OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer(), Storage: StorageOptions{CheckTables: true}})
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("open: %v, want a *CorruptError", err)
			}
			if got := dirHash(t, dir); got != before {
				t.Fatal("the refused open changed the store's files")
			}
			t.Logf("%v", err)
		})
	}
}

func TestJournalDamageCountsTheMegramsItTakes(t *testing.T) {
	dir := t.TempDir()
	ids := storeWith(t, dir, 5000, 100)
	logs := filesOf(t, dir, KindJournal)
	path := filepath.Join(dir, logs[len(logs)-1])
	data, _ := os.ReadFile(path)
	clean := scanJournal(data, logs[0], KindJournal)
	if clean.megrams != len(ids) || len(clean.damage) != 0 || clean.tornTail {
		t.Fatalf("clean journal: %d megrams, damage %v, torn %v; want %d, none", clean.megrams, clean.damage, clean.tornTail, len(ids))
	}
	flip(t, path, -1, 16)
	data, _ = os.ReadFile(path)
	sc := scanJournal(data, logs[0], KindJournal)
	lost := 0
	for _, d := range sc.damage {
		lost += d.Megrams
	}
	if len(sc.damage) == 0 || sc.megrams+lost != len(ids) {
		t.Fatalf("flipped journal: %d megrams readable, damage %v: want readable + affected = %d", sc.megrams, sc.damage, len(ids))
	}
}

func TestTornJournalTailIsNotDamage(t *testing.T) {
	dir := t.TempDir()
	ids := storeWith(t, dir, 3000, 1000)
	logs := filesOf(t, dir, KindJournal)
	path := filepath.Join(dir, logs[len(logs)-1])
	data, _ := os.ReadFile(path)
	for _, cut := range []int{1, 7, 100, 40000} {
		sc := scanJournal(data[:len(data)-cut], logs[0], KindJournal)
		if len(sc.damage) != 0 || !sc.tornTail {
			t.Errorf("cut %d bytes: damage %v, torn %v; want a torn tail only", cut, sc.damage, sc.tornTail)
		}
	}
	zeros := append(append([]byte(nil), data[:len(data)-50]...), make([]byte, 4096)...)
	if sc := scanJournal(zeros, logs[0], KindJournal); len(sc.damage) != 0 || !sc.tornTail {
		t.Errorf("zeros at the end: damage %v, torn %v; want a torn tail only", sc.damage, sc.tornTail)
	}
	// The store opens, and holds every batch before the cut.
	cut := data[:len(data)-100]
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := scanJournal(cut, logs[0], KindJournal).megrams
	s, stored := reopenAndVerify(t, dir)
	defer s.Close()
	if len(stored) != whole || whole >= len(ids) {
		t.Errorf("%d stored after cutting the last batch of %d, want the %d of the whole batches", len(stored), len(ids), whole)
	}
}

func TestRepairKeepsABackupAndCountsWhatItDropped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	ids := storeWith(t, dir, 5000, 100)
	logs := filesOf(t, dir, KindJournal)
	flip(t, filepath.Join(dir, logs[len(logs)-1]), -1, 16)
	damaged := dirHash(t, dir)
	backup := BackupName(dir, "20250301T120000Z")
	rep, err := RepairLevelDB(context.Background(), dir, backup)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Before != len(ids) || rep.After >= rep.Before || rep.After == 0 || len(rep.Damage) == 0 {
		t.Fatalf("repair %+v: want %d before, fewer but some after, and the damage", rep, len(ids))
	}
	if got := dirHash(t, backup); got != damaged {
		t.Error("the backup is not the store as it was found")
	}
	v, err := VerifyLevelDB(context.Background(), dir)
	if err != nil || len(v.Damage) > 0 || len(v.Problems) > 0 || v.Records != rep.After {
		t.Fatalf("verify after repair: %+v, %v; want clean with %d records", v, err, rep.After)
	}
	if _, err := RepairLevelDB(context.Background(), dir, backup); err == nil {
		t.Fatal("a second repair into the same backup was not refused")
	}
}

func TestLockedStoreNamesItsHolder(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, open := range map[string]func() error{
		"open": func() error {
			_, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer()})
			return err
		},
		"verify": func() error { _, err := VerifyLevelDB(context.Background(), dir); return err },
	} {
		err := open()
		var le *LockedError
		want := fmt.Sprintf("memory: the store in %s is in use by another process, pid %d (", dir, os.Getpid())
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "wait for it to finish") {
			t.Errorf("%s of a locked store: %v, want %q…", name, err, want)
		}
	}
}
