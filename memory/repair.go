package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// VerifyLevelDB checks the store in dir without changing it: it opens it read-only
// (a shared lock; no journal is replayed into a table, no file is written or removed),
// reads CURRENT, the MANIFEST and every journal chunk by chunk, then every key and
// value. Damage to the files is in the report's Damage, disagreement between records
// and indexes in its Problems; the error is for a store that cannot be read at all
// (missing, locked).
func VerifyLevelDB(ctx context.Context, dir string) (VerifyReport, error) {
	var rep VerifyReport
	stor, damage, err := lockFiles(dir, true, true)
	if err != nil || damage != nil {
		rep.Damage = damage // files without CURRENT
		return rep, err
	}
	defer stor.Close()
	if rep.Damage, err = checkFiles(dir); err != nil {
		return rep, err
	}
	// Journal damage is reported above; read-only, LevelDB skips the damaged blocks, so
	// the rest can still be counted and checked.
	db, err := leveldb.Open(stor, levelOptions(StorageOptions{}, true))
	if err != nil {
		if len(rep.Damage) > 0 {
			return rep, nil // the damage found explains the refusal
		}
		if d, ok := damageOf(err); ok {
			rep.Damage = append(rep.Damage, d)
			return rep, nil
		}
		return rep, fmt.Errorf("memory: open %s: %w", dir, err)
	}
	defer db.Close()
	r, err := (&levelBackend{db: db}).verify()
	r.Damage = rep.Damage
	if err != nil {
		d, ok := damageOf(err)
		if !ok {
			return r, err
		}
		r.Damage = append(r.Damage, d)
	}
	return r, ctx.Err()
}

// RepairReport is what RepairLevelDB did.
type RepairReport struct {
	Backup string   `json:"backup"` // the copy of the store as it was found
	Damage []Damage `json:"damage"` // what was corrupt
	// Before counts the Megrams the damaged store held: those still readable plus those
	// the damage is known to take. After counts those the repaired store holds.
	Before int `json:"megrams_before"`
	After  int `json:"megrams_after"`
	// Problems are the repaired store's disagreements between records and indexes (a
	// dropped table can take a record and leave its index entries, or the reverse).
	Problems []string `json:"problems"`
}

// RepairLevelDB copies the store in dir, whole, to backup (which must not exist), then
// rebuilds it with LevelDB's recovery: the MANIFEST is written again from the tables, a
// table that fails its checksums is dropped whole, a journal's damaged blocks are
// dropped. Whatever it drops is still in the backup.
func RepairLevelDB(ctx context.Context, dir, backup string) (RepairReport, error) {
	rep := RepairReport{Backup: backup}
	before, err := VerifyLevelDB(ctx, dir)
	if err != nil {
		return rep, err
	}
	rep.Damage = before.Damage
	rep.Before = before.Records
	for _, d := range before.Damage {
		rep.Before += max(d.Megrams, 0)
	}
	stor, err := storage.OpenFile(dir, false)
	if err != nil {
		if lockBusy(err) {
			return rep, lockedError(dir, err)
		}
		return rep, fmt.Errorf("memory: open %s: %w", dir, err)
	}
	defer stor.Close()
	if err := copyStore(dir, backup); err != nil {
		return rep, fmt.Errorf("memory: back up %s to %s: %w (the store is unchanged)", dir, backup, err)
	}
	o := levelOptions(StorageOptions{}, false)
	o.Strict = strictness | opt.StrictRecovery
	db, err := leveldb.Recover(stor, o)
	if err != nil {
		return rep, fmt.Errorf("memory: repair %s: %w (the store as it was is in %s)", dir, err, backup)
	}
	defer db.Close()
	n := 0
	it := db.NewIterator(util.BytesPrefix([]byte(prefixMegram)), nil)
	for it.Next() {
		n++
	}
	it.Release()
	if err := it.Error(); err != nil {
		return rep, fmt.Errorf("memory: repair %s: %w (the store as it was is in %s)", dir, err, backup)
	}
	rep.After = n
	after, err := (&levelBackend{db: db}).verify()
	if err != nil {
		return rep, fmt.Errorf("memory: repair %s: %w (the store as it was is in %s)", dir, err, backup)
	}
	rep.Problems = after.Problems
	return rep, nil
}

// copyStore copies every file of the store but its lock into a new directory, synced.
func copyStore(dir, backup string) error {
	if _, err := os.Lstat(backup); err == nil {
		return fmt.Errorf("%s already exists", backup)
	}
	if err := os.Mkdir(backup, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || e.Name() == "LOCK" || e.Name() == holderFile {
			continue
		}
		if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(backup, e.Name())); err != nil {
			return err
		}
	}
	d, err := os.Open(backup)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Sync()
}

// IsCorrupt tells a store refused for damage.
func IsCorrupt(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce)
}

// BackupName is the deterministic name of a repair's backup of dir at the given time
// stamp: a sibling directory, dir.backup-<stamp>.
func BackupName(dir, stamp string) string {
	return strings.TrimRight(filepath.Clean(dir), "/") + ".backup-" + stamp
}
