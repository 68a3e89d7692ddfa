package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	lverrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/table"
)

// The kinds of LevelDB file a Damage names.
const (
	KindJournal  = "journal"  // NNNNNN.log: the batches written since the last table
	KindTable    = "table"    // NNNNNN.ldb: sorted keys and values
	KindManifest = "manifest" // MANIFEST-NNNNNN: which tables make up the store
	KindCurrent  = "current"  // CURRENT: which MANIFEST is live
)

// Damage is one corrupt spot of a LevelDB store.
type Damage struct {
	File   string `json:"file"`   // base name, e.g. 000005.log
	Kind   string `json:"kind"`   // KindJournal, KindTable, KindManifest or KindCurrent
	Offset int64  `json:"offset"` // byte offset in File; -1 when not known
	Reason string `json:"reason"`
	// Megrams is how many Megram records the damage takes with it, counted from what of
	// them is still readable; -1 when it cannot be told (a table block, a manifest).
	Megrams int `json:"megrams"`
}

func (d Damage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", d.File, d.Kind)
	if d.Offset >= 0 {
		fmt.Fprintf(&b, " at offset %d", d.Offset)
	}
	b.WriteString(": " + d.Reason)
	switch {
	case d.Megrams >= 0:
		fmt.Fprintf(&b, "; %d megram(s) affected", d.Megrams)
	case d.Kind == KindTable:
		b.WriteString("; the records of that block are unreadable")
	case d.Kind == KindManifest || d.Kind == KindCurrent:
		b.WriteString("; the tables it lists cannot be found")
	}
	return b.String()
}

// CorruptError is OpenLevelDB's refusal of a damaged store. Nothing was changed: the
// store is as it was found, for inspection or an explicit repair.
type CorruptError struct {
	Dir    string
	Damage []Damage
}

func (e *CorruptError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory: the store in %s is corrupt: %s", e.Dir, e.Damage[0])
	if len(e.Damage) > 1 {
		fmt.Fprintf(&b, " (and %d more)", len(e.Damage)-1)
	}
	return b.String()
}

var (
	journalName  = regexp.MustCompile(`^[0-9]+\.log$`)
	manifestName = regexp.MustCompile(`^MANIFEST-[0-9]+$`)
)

// checkFiles reads the store's CURRENT, the MANIFEST it names and every journal, and
// returns their damage, in file order. It opens nothing for writing.
func checkFiles(dir string) ([]Damage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var journals []string
	stored := false // the directory holds LevelDB files besides CURRENT
	for _, e := range entries {
		n := e.Name()
		switch {
		case journalName.MatchString(n):
			journals = append(journals, n)
			stored = true
		case manifestName.MatchString(n), strings.HasSuffix(n, ".ldb"):
			stored = true
		}
	}
	sort.Strings(journals)
	var damage []Damage
	cur, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if stored {
			damage = append(damage, Damage{File: "CURRENT", Kind: KindCurrent, Offset: -1, Megrams: -1,
				Reason: "missing, while the directory holds a store's files"})
		}
	case err != nil:
		return nil, err
	default:
		name, ok := strings.CutSuffix(string(cur), "\n")
		if !ok || !manifestName.MatchString(name) {
			damage = append(damage, Damage{File: "CURRENT", Kind: KindCurrent, Offset: -1, Megrams: -1,
				Reason: fmt.Sprintf("holds %s, want the name of a MANIFEST file and a newline", strconv.QuoteToASCII(string(cur)))})
			break
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			damage = append(damage, Damage{File: "CURRENT", Kind: KindCurrent, Offset: -1, Megrams: -1,
				Reason: "names " + name + ", which does not exist"})
			break
		}
		if err != nil {
			return nil, err
		}
		damage = append(damage, scanJournal(data, name, KindManifest).damage...)
	}
	for _, name := range journals {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		damage = append(damage, scanJournal(data, name, KindJournal).damage...)
	}
	return damage, nil
}

// damageOf turns a LevelDB corruption error into a Damage; ok is false for any other
// error.
func damageOf(err error) (d Damage, ok bool) {
	var ce *lverrors.ErrCorrupted
	var se *storage.ErrCorrupted
	var fd storage.FileDesc
	var inner error
	switch {
	case errors.As(err, &ce):
		fd, inner = ce.Fd, ce.Err
	case errors.As(err, &se):
		fd, inner = se.Fd, se.Err
	default:
		return Damage{}, false
	}
	d = Damage{File: "?", Kind: "?", Offset: -1, Megrams: -1, Reason: inner.Error()}
	if !fd.Zero() {
		d.File = fd.String()
		switch fd.Type {
		case storage.TypeJournal:
			d.Kind = KindJournal
		case storage.TypeTable:
			d.Kind = KindTable
		case storage.TypeManifest:
			d.Kind = KindManifest
		}
	}
	var te *table.ErrCorrupted
	var me *lverrors.ErrMissingFiles
	switch {
	case errors.As(inner, &te):
		d.Kind = KindTable
		d.Offset = te.Pos
		d.Reason = fmt.Sprintf("%s of %d bytes: %s", te.Kind, te.Size, te.Reason)
	case errors.As(inner, &me):
		names := make([]string, len(me.Fds))
		for i, f := range me.Fds {
			names[i] = f.String()
		}
		d.File, d.Kind = "MANIFEST", KindManifest
		d.Reason = "lists table(s) that do not exist: " + strings.Join(names, ", ")
	}
	return d, true
}

// holderFile, beside LevelDB's LOCK, names the process that holds the store open for
// writing, so that a second one can be told who it is waiting for.
const holderFile = "LOCK.holder"

func writeHolder(dir string) {
	// Best effort: the lock is what excludes; this file only names its holder.
	_ = os.WriteFile(filepath.Join(dir, holderFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
}

func removeHolder(dir string) { _ = os.Remove(filepath.Join(dir, holderFile)) }

// lockedError explains a store whose lock another process holds.
func lockedError(dir string, err error) error {
	who := "another process (it did not record its pid: a reader such as `memory verify`, or an older spine)"
	if b, rerr := os.ReadFile(filepath.Join(dir, holderFile)); rerr == nil {
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
			who = fmt.Sprintf("another process, pid %d", pid)
			if cmd, cerr := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); cerr == nil {
				if c := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")); c != "" {
					who += fmt.Sprintf(" (%s)", c)
				}
			} else if _, serr := os.Stat("/proc/self"); serr == nil {
				who = fmt.Sprintf("another process; pid %d recorded it but no longer runs, so a reader may hold it now", pid)
			}
		}
	}
	return &LockedError{Dir: dir, Holder: who, Err: err}
}

// LockedError is the refusal of a store another process has open.
type LockedError struct {
	Dir    string
	Holder string // who holds it, as well as can be told
	Err    error
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("memory: the store in %s is in use by %s; wait for it to finish, or stop it, then try again", e.Dir, e.Holder)
}

func (e *LockedError) Unwrap() error { return e.Err }
