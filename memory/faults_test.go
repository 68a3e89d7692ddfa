//go:build faults && linux

package memory

// The fault-injection suite of the store: go test -tags faults -run Fault ./memory/
// (.ci/run runs it). Each scenario logs one line of the table in the README's
// reliability section: trials, acknowledged, lost, misreported.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/storage"
)

const faultSeedEnv = "SPINE_FAULT_SEED" // set to replay a failing run

func faultSeed(t *testing.T) uint64 {
	if v := os.Getenv(faultSeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", faultSeedEnv, v, err)
		}
		return s
	}
	return uint64(time.Now().UnixNano())
}

type faultRow struct{ trials, acked, lost, misreported int }

func (r faultRow) log(t *testing.T, scenario string, seed uint64) {
	t.Logf("| %s | %d | %d | %d | %d |", scenario, r.trials, r.acked, r.lost, r.misreported)
	if r.lost > 0 || r.misreported > 0 {
		t.Errorf("%s: %d lost, %d misreported; replay with %s=%d", scenario, r.lost, r.misreported, faultSeedEnv, seed)
	}
}

// storedIDs reads the IDs of every megram: record read-only, without changing the store.
func storedIDs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	stor, err := storage.OpenFile(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer stor.Close()
	db, err := leveldb.Open(stor, levelOptions(StorageOptions{}, true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := map[string]bool{}
	err = (&levelBackend{db: db}).scanRecords(func(r Record) error { ids[r.ID] = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestFaultKillWriter: SIGKILL of a writing process at seeded moments. Lost: an
// acknowledged Megram missing after reopen; misreported: a store that no longer opens.
func TestFaultKillWriter(t *testing.T) {
	seed := faultSeed(t)
	var row faultRow
	for i := 0; i < 20; i++ {
		row.trials++
		s := seed + uint64(i)
		rng := rand.New(rand.NewPCG(s, s>>1))
		acked, stored, err := killAndCount(t, time.Duration(20+rng.IntN(300))*time.Millisecond)
		if err != nil {
			row.misreported++
			t.Logf("seed %d: %v", s, err)
			continue
		}
		row.acked += len(acked)
		for _, id := range acked {
			if !stored[id] {
				row.lost++
			}
		}
	}
	row.log(t, "SIGKILL of a writer", seed)
}

func killAndCount(t *testing.T, delay time.Duration) ([]string, map[string]bool, error) {
	dir := t.TempDir()
	ids := runKilledWriter(t, dir, delay)
	if rep, err := VerifyLevelDB(context.Background(), dir); err != nil || len(rep.Damage) > 0 {
		return ids, nil, fmt.Errorf("after the kill: %v %v", err, rep.Damage)
	}
	s, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer(), Storage: StorageOptions{MustExist: true, CheckTables: true}})
	if err != nil {
		return ids, nil, err
	}
	s.Close()
	return ids, storedIDs(t, dir), nil
}

// TestFaultFullDisk: a 2 MiB tmpfs fills during a burst. Lost: an acknowledged Megram
// missing; misreported: a Megram neither acknowledged nor reported failed, or a Flush
// that returned nil after a loss.
func TestFaultFullDisk(t *testing.T) {
	seed := faultSeed(t)
	var row faultRow
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
			t.Skipf("cannot mount a tmpfs (needs root; CI runs as root): %v", err)
		}
		t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
		row.trials++
		rec := newRecorder()
		o := Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: fmt.Sprintf("f%d-", i)}, Timer: newManualTimer(), MaxBatch: 64}
		rec.hook(&o)
		s, err := OpenLevelDB(filepath.Join(dir, "mem"), o)
		if err != nil {
			t.Fatal(err)
		}
		tally, _ := s.TallyWriterFor(RoleGGS)
		var flushErr error
		for n := 0; n < 200_000 && flushErr == nil; n++ {
			m := burstMegram(n)
			m.Content = fmt.Sprintf("burst %d %0200d", n, n) // fill faster
			tally.Write(m)
			if n%256 == 255 {
				flushErr = s.Flush(context.Background())
			}
		}
		rep := tally.Report(context.Background())
		s.Close()
		var we *WriteError
		if !errors.As(flushErr, &we) {
			row.misreported++
			t.Logf("trial %d: flush returned %v after the disk filled", i, flushErr)
		}
		if rep.Sent != rep.Durable+len(rep.Failed) || rep.Pending != 0 {
			row.misreported += rep.Sent - rep.Durable - len(rep.Failed)
		}
		acked := rec.durableIDs()
		row.acked += len(acked)
		stored := storedIDs(t, filepath.Join(dir, "mem"))
		for _, id := range acked {
			if !stored[id] {
				row.lost++
			}
		}
	}
	row.log(t, "memory dir on a tmpfs that fills", seed)
}

// TestFaultFlippedBytes flips 16 bytes (CURRENT: 3) at a seeded offset of each kind of
// file. Lost: an acknowledged Megram missing from a store that opened; misreported: a
// store that opened, or verified clean, with fewer Megrams than were acknowledged.
func TestFaultFlippedBytes(t *testing.T) {
	seed := faultSeed(t)
	for _, kind := range []string{KindJournal, KindTable, KindManifest, KindCurrent} {
		var row faultRow
		for i := 0; i < 5; i++ {
			row.trials++
			s := seed + uint64(i)
			rng := rand.New(rand.NewPCG(s, s>>3))
			dir := t.TempDir()
			ids := storeWith(t, dir, 2000, 100)
			row.acked += len(ids)
			if kind != KindJournal { // move the journal into a table
				st, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer()})
				if err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			files := filesOf(t, dir, kind)
			file := filepath.Join(dir, files[len(files)-1])
			info, _ := os.Stat(file)
			n := 16
			if kind == KindCurrent {
				n = 3
			}
			flip(t, file, rng.IntN(int(info.Size())), n)

			rep, err := VerifyLevelDB(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Damage) == 0 && rep.Records < len(ids) {
				row.misreported++
				t.Logf("seed %d, %s: verify clean with %d of %d", s, kind, rep.Records, len(ids))
			}
			st, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer(), Storage: StorageOptions{CheckTables: true}})
			if err != nil {
				continue // refused: reported, nothing lost silently
			}
			st.Close()
			stored := storedIDs(t, dir)
			for _, id := range ids {
				if !stored[id] {
					row.lost++
				}
			}
		}
		row.log(t, "16 bytes flipped in the "+kind, seed)
	}
}
