package telemetry

import (
	"fmt"
	"strconv"

	"github.com/agentspine/spine/spine/trace"
)

// Read reads and checks a trace file for export with package trace's decoder: a spine
// trace with its header, every line decoded, the hash chain verified into the File. A
// broken chain or a missing halt is not an error here; Convert marks the run span.
func Read(path string) (*trace.File, error) {
	return trace.ReadFile(path)
}

// Warnings are what a reader of f should be told before its spans are trusted: a
// broken hash chain, an incomplete recording.
func Warnings(f *trace.File) []string {
	var w []string
	if ce := f.Broken(); ce != nil {
		w = append(w, fmt.Sprintf("%s: hash chain broken at %v; the spans from line %d on are exported as read, not verified", f.Name, ce, ce.Line))
	}
	if why := f.Incomplete(); why != "" {
		w = append(w, f.Name+": "+why)
	}
	return w
}

// chainNote is the run span's spine.trace.chain: where the hash chain breaks, "" when
// it holds.
func chainNote(f *trace.File) string {
	if ce := f.Broken(); ce != nil {
		return "broken at line " + strconv.Itoa(ce.Line)
	}
	return ""
}
