package ggs

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentspine/spine/contract"
)

// lineShare is the shared mode of reportScan, for a stream whose reports live for one
// round each (Filter.Run): a report's strings are slices of one string copy of its line,
// those with escapes slices of one string of their unescaped texts, and its outputs are
// kept as their JSON text (rawOutput), decoded only if a FinalResult writes them. A
// line's report then costs a handful of allocations instead of one per string and value.
//
// What the Solver keeps between rounds must not hold a line: the task_id, the intent and
// the tool calls (kept) are copied, the first two interned in a bounded table since they
// repeat every round of a task. Everything else of a report is dropped with its round,
// and the *string and output targets (ptr, raw) are reused by the next line.
type lineShare struct {
	on   bool
	text string // the line
	esc  struct {
		text  string // the unescaped texts, one after another
		spans []escSpan
		next  int // the next span the scan reaches
		buf   []byte
	}
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

// escSpan is a string of the line with escapes: from at (after its opening quote) to
// end (its closing quote), its text esc.text[lo:hi]; hi < 0 if the reference is to read it.
type escSpan struct{ at, end, lo, hi int }

// maxKept bounds the table of kept strings: a few megabytes of ids; when full it starts
// again empty.
const maxKept = 1 << 15

// start readies the share for line: its string copy, and its strings with escapes
// unescaped in advance, in the order the scan meets them.
func (sh *lineShare) start(line []byte) {
	sh.text = string(line)
	sh.ptrs, sh.raws, sh.faults = sh.ptrs[:0], sh.raws[:0], sh.faults[:0]
	sh.subtasks, sh.verdicts, sh.gaps = sh.subtasks[:0], sh.verdicts[:0], sh.gaps[:0]
	sh.failed, sh.strings = sh.failed[:0], sh.strings[:0]
	e := &sh.esc
	e.buf, e.spans, e.next = e.buf[:0], e.spans[:0], 0
	// A backslash is in a string, which opens at the last quote before it: no escape
	// stands between the end of the string before and the backslash.
	for i := 0; i < len(line); {
		k := bytes.IndexByte(line[i:], '\\')
		if k < 0 {
			break
		}
		at := bytes.LastIndexByte(line[i:i+k], '"') + 1
		if at == 0 {
			break // not in a string: the scan stops before
		}
		at += i
		lo := len(e.buf)
		buf, end, ok := unescape(e.buf, line, at)
		e.buf = buf
		if !ok {
			e.spans = append(e.spans, escSpan{at: at, hi: -1})
			break // the scan stops there too
		}
		e.spans = append(e.spans, escSpan{at: at, end: end, lo: lo, hi: len(buf)})
		i = end + 1
	}
	e.text = string(e.buf)
}

// escaped is the string with escapes that starts at at, and the index of its closing quote.
func (sh *lineShare) escaped(at int) (string, int, bool) {
	e := &sh.esc
	if e.next >= len(e.spans) || e.spans[e.next].at != at || e.spans[e.next].hi < 0 {
		return "", 0, false
	}
	sp := e.spans[e.next]
	e.next++
	return e.text[sp.lo:sp.hi], sp.end, true
}

// own returns v in memory of its own.
func (sh *lineShare) own(v string) string {
	if k, ok := sh.kept[v]; ok {
		return k
	}
	if sh.kept == nil || len(sh.kept) >= maxKept {
		sh.kept = make(map[string]string, 1024)
	}
	k := strings.Clone(v)
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

// raw is the output whose JSON text is text[start:end], valid until the next line.
func (sh *lineShare) raw(start, end int) *rawOutput {
	sh.raws = append(sh.raws, rawOutput{text: sh.text[start:end]})
	return &sh.raws[len(sh.raws)-1]
}

// rawOutput is an output of a report kept as its JSON text, which reportScan has checked
// it reads. It is written as the value encoding/json decodes from that text would be.
type rawOutput struct{ text string }

// value decodes the output as encoding/json does into an interface.
func (r *rawOutput) value() (any, bool) {
	s := reportScan{b: []byte(r.text)}
	return s.anyValue(0, true)
}

// MarshalJSON writes the decoded value, as appendOutput would.
func (r *rawOutput) MarshalJSON() ([]byte, error) {
	v, ok := r.value()
	if !ok {
		return nil, errors.New("ggs: an output that does not decode")
	}
	w := jsonWriter{}
	if w.any(v, 0); w.ok() {
		return w.b, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
