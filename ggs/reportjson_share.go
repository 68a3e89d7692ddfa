package ggs

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/agentspine/spine/contract"
)

// lineShare is the shared mode of reportScan, for a stream whose reports live for one
// round each (Filter.Run). The line is made a string once (start), and the report's
// strings without escapes are slices of it; the text of those with escapes is written,
// unescaped, one after another into pool, and made one string when the scan ends
// (finish), which then sets each of them (fixups). An output is kept as its JSON text in
// the line (rawOutput), checked by the scan, and decoded only if a FinalResult writes it.
// The report's structs and lists are reused line after line. A line's report then costs
// a handful of allocations instead of one per string and value, in one pass over it.
//
// So a report, and what the Solver makes of it in the round, is valid until the next
// line. What the Solver keeps between rounds must not hold a line: the task_id and the
// intent (kept) are interned in a bounded table, since they repeat every round of a task;
// the task state copies the tool calls' tools and targets it keeps (taskState.remember).
type lineShare struct {
	on bool
	// unread: the report's readers (Filter.Run's Solver) read no criterion verdict's
	// evidence, the longest text of a report: the scan checks it and leaves it empty.
	unread bool
	line   string  // the line
	pool   []byte  // the text of the line's strings with escapes, unescaped
	fixups []fixup // the strings whose text is in pool
	moved  bool    // a list of the share moved while the scan wrote into it (array)

	ptrs []string
	raws []rawOutput
	kept map[string]string

	// The report's structs and lists, reused by the next line.
	replan   contract.ReplanRequest
	outcome  contract.OutcomeSummary
	faults   []contract.Fault
	subtasks []contract.SubTaskOutcome
	verdicts []contract.CriterionVerdict
	gaps     []contract.GapAttempt
	failed   []contract.FailedCriterion
	strings  []string
}

// fixup is a string of the report whose text is pool[lo:hi], set when the scan ends.
type fixup struct {
	dst    *string
	lo, hi int
}

// maxKept bounds the table of kept strings: a few megabytes of ids; when full it starts
// again empty.
const maxKept = 1 << 15

// start readies the share for line.
func (sh *lineShare) start(line []byte) {
	sh.ptrs, sh.raws, sh.faults = sh.ptrs[:0], sh.raws[:0], sh.faults[:0]
	sh.subtasks, sh.verdicts, sh.gaps = sh.subtasks[:0], sh.verdicts[:0], sh.gaps[:0]
	sh.failed, sh.strings = sh.failed[:0], sh.strings[:0]
	sh.pool, sh.fixups, sh.moved = sh.pool[:0], sh.fixups[:0], false
}

// settled reports whether the fixups point where the report is: not so when a list moved
// while the scan was writing one (array), for a fixup may point into its old copy. A
// second scan of the same line does not move: the lists have grown to it.
func (sh *lineShare) settled() bool { return !sh.moved || len(sh.fixups) == 0 }

// finish sets the strings whose text is in pool.
func (sh *lineShare) finish() {
	if len(sh.fixups) == 0 {
		return
	}
	text := string(sh.pool)
	for _, f := range sh.fixups {
		*f.dst = text[f.lo:f.hi]
	}
}

// done lets go of the line.
func (sh *lineShare) done() {
	clear(sh.fixups) // hold no pointer into the report
}

// own returns the text b in memory of its own.
func (sh *lineShare) own(b []byte) string {
	if k, ok := sh.kept[string(b)]; ok {
		return k
	}
	if sh.kept == nil || len(sh.kept) >= maxKept {
		sh.kept = make(map[string]string, 1024)
	}
	k := string(b)
	sh.kept[k] = k
	return k
}

// replanRequest is the line's ReplanRequest: the share's in shared mode.
func (sh *lineShare) replanRequest() *contract.ReplanRequest {
	if !sh.on {
		return new(contract.ReplanRequest)
	}
	sh.replan = contract.ReplanRequest{}
	return &sh.replan
}

// outcomeSummary is the line's OutcomeSummary: the share's in shared mode.
func (sh *lineShare) outcomeSummary() *contract.OutcomeSummary {
	if !sh.on {
		return new(contract.OutcomeSummary)
	}
	sh.outcome = contract.OutcomeSummary{}
	return &sh.outcome
}

// fault is a Fault for the line, from the share in shared mode.
func (sh *lineShare) fault() *contract.Fault {
	if !sh.on {
		return new(contract.Fault)
	}
	sh.faults = append(sh.faults, contract.Fault{})
	return &sh.faults[len(sh.faults)-1]
}

// ptr is a pointer to v, valid until the next line.
func (sh *lineShare) ptr(v string) *string {
	sh.ptrs = append(sh.ptrs, v)
	return &sh.ptrs[len(sh.ptrs)-1]
}

// raw is the output whose JSON text is text, valid until the next line.
func (sh *lineShare) raw(text []byte) *rawOutput {
	sh.raws = append(sh.raws, rawOutput{text: text})
	return &sh.raws[len(sh.raws)-1]
}

// rawOutput is an output of a report kept as its JSON text, which reportScan has checked
// it reads: in shared mode, in the line, so valid until the next line. It is written as
// the value encoding/json decodes from that text would be.
type rawOutput struct{ text []byte }

// value decodes the output as encoding/json does into an interface.
func (r *rawOutput) value() (any, bool) {
	s := reportScan{b: r.text}
	return s.anyValue(0, true)
}

// write writes the output as encoding/json writes the value it decodes to.
func (r *rawOutput) write(w *jsonWriter, depth int) {
	s := reportScan{b: r.text, buf: w.scratch}
	w.scanned(&s, depth)
	w.scratch = s.buf
}

// MarshalJSON writes the decoded value, as appendOutput would.
func (r *rawOutput) MarshalJSON() ([]byte, error) {
	w := jsonWriter{}
	if r.write(&w, 0); w.ok() {
		return w.b, nil
	}
	v, ok := r.value()
	if !ok {
		return nil, errors.New("ggs: an output that does not decode")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
