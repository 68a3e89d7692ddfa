// Package tracerefs finds the work-dir snapshots that traces record: the root hash of
// every `snapshot:workdir` exchange, so that a store's GC keeps what a trace may still
// resume or fork from, and a fleet worker knows which roots a line it streams needs.
//
// It reads trace lines as JSON only as far as those exchanges: it verifies no chain
// (a line it cannot read is no reference) and must not import the engine or run anything.
package tracerefs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/trace"
)

// ExchangeName is the exchange that records a snapshot of the work dir (roles.SnapshotName).
const ExchangeName = trace.ExchangeSnapshot + "workdir"

// RootOf is the root hash a trace line records, ok false when the line is not a
// `snapshot:workdir` exchange with a root (a failed snapshot records none).
func RootOf(line []byte) (root string, ok bool) {
	if !bytes.Contains(line, []byte(`"`+ExchangeName+`"`)) {
		return "", false
	}
	var e struct {
		Kind     string          `json:"kind"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
		Error    string          `json:"error"`
	}
	if json.Unmarshal(line, &e) != nil || e.Kind != trace.KindExchange || e.Name != ExchangeName || e.Error != "" {
		return "", false
	}
	if json.Unmarshal(e.Response, &root) != nil || !isHash(root) {
		return "", false
	}
	return root, true
}

// LastRoot is the root of the last snapshot lines record and its line (1-based); ""
// and 0 for none.
func LastRoot(lines [][]byte) (root string, line int) {
	for i, l := range slices.Backward(lines) {
		if root, ok := RootOf(l); ok {
			return root, i + 1
		}
	}
	return "", 0
}

// ToolCallAfter is the line (1-based) of the first tool call lines record after line n
// whose tool changes reports may change the files, 0 for none: a call whose effect a
// snapshot at line n does not hold, though a replay serves its recorded answer. (The
// spine's table is roles.ToolChangesWorkdir; this package imports no role.)
func ToolCallAfter(lines [][]byte, n int, changes func(tool string) bool) int {
	pfx := []byte(`"name":"` + trace.ExchangeTool)
	for i := min(n, len(lines)); i < len(lines); i++ {
		if !bytes.Contains(lines[i], pfx) {
			continue
		}
		var e struct{ Kind, Name string }
		if json.Unmarshal(lines[i], &e) != nil || e.Kind != trace.KindExchange {
			continue
		}
		if tool, ok := strings.CutPrefix(e.Name, trace.ExchangeTool); ok && changes(tool) {
			return i + 1
		}
	}
	return 0
}

// Found is what Scan read: the roots the traces record (sorted, each once) and how many
// trace files it read.
type Found struct {
	Roots  []string
	Traces int
}

// Scan reads every *.jsonl file under dirs (recursively, following no symlink) for the
// roots they record. A dir that does not exist is an error wrapping fs.ErrNotExist.
func Scan(dirs ...string) (Found, error) {
	roots := map[string]bool{}
	var f Found
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".jsonl") {
				return nil
			}
			f.Traces++
			return scanFile(p, roots)
		})
		if err != nil {
			return f, err
		}
	}
	for r := range roots {
		f.Roots = append(f.Roots, r)
	}
	slices.Sort(f.Roots)
	return f, nil
}

// scanFile adds the roots one file records.
func scanFile(path string, roots map[string]bool) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	r := bufio.NewReaderSize(fh, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if root, ok := RootOf(line); ok {
			roots[root] = true
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func isHash(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// GCRequest says what GC keeps besides the roots traces record.
type GCRequest struct {
	Keep          []string // roots kept whatever the traces say; one the store lacks is an error
	Traces        []string // dirs of traces to scan; each must exist
	DefaultTraces string   // a dir scanned when it exists (spine run's default trace dir)
	DryRun        bool
}

// GC collects s: it keeps r.Keep and every root the traces under r.Traces and
// r.DefaultTraces record, with everything they reference, and removes the rest (with
// DryRun: says what it would remove). It returns what the scan found beside.
func GC(s *snapshot.Store, r GCRequest) (snapshot.GCResult, Found, error) {
	dirs := r.Traces
	if r.DefaultTraces != "" {
		if _, err := os.Stat(r.DefaultTraces); err == nil {
			dirs = append(slices.Clip(dirs), r.DefaultTraces)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return snapshot.GCResult{}, Found{}, err
		}
	}
	found, err := Scan(dirs...)
	if err != nil {
		return snapshot.GCResult{}, found, fmt.Errorf("reading the traces for the snapshots they record: %w", err)
	}
	res, err := s.GC(r.Keep, snapshot.GCOptions{Referenced: found.Roots, DryRun: r.DryRun})
	return res, found, err
}
