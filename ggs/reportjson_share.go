package ggs

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// lineShare is the shared mode of reportScan, for a stream whose reports live for one
// round each (Filter.Run). Before the scan, one quick pass over the line (start) copies
// the text of its strings, unescaped, into one string, text, and the report's strings
// are slices of it; the text of keys and of outputs is left out: an output is kept as
// its JSON text in the line (rawOutput), checked by the scan, and decoded only if a
// FinalResult writes it. The report's structs and lists are reused line after line. A
// line's report then costs a handful of allocations instead of one per string and value.
//
// So a report, and what the Solver makes of it in the round, is valid until the next
// line. What the Solver keeps between rounds must not hold a line: the task_id and the
// intent (kept) are interned in a bounded table, since they repeat every round of a task;
// the task state copies the tool calls' tools and targets it keeps (taskState.remember).
type lineShare struct {
	on bool
	// unread: the report's readers (Filter.Run's Solver) read no criterion verdict's
	// evidence, the longest text of a report: start checks it and leaves it empty.
	unread bool
	text   string    // the text of the line's strings, one after another
	pool   []byte    // text, being written
	spans  []strSpan // the line's strings in text, in the order of the line
	next   int       // the span after the one the scan read last
	keys   []strSpan // the line's keys (not within an output) that are plain ASCII: at, end
	nextK  int       // the key after the one the scan read last

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

// strSpan is a string of the line: from at (after its opening quote) to end (its closing
// quote), its text text[lo:hi].
type strSpan struct{ at, end, lo, hi int }

// maxKept bounds the table of kept strings: a few megabytes of ids; when full it starts
// again empty.
const maxKept = 1 << 15

// start readies the share for line: the text of its strings (not keys, not within an
// output), checked as the scan would check them. It stops at a string the scan would not
// take, which the scan then does not find: the reference reads the line.
func (sh *lineShare) start(line []byte) {
	sh.ptrs, sh.raws, sh.faults = sh.ptrs[:0], sh.raws[:0], sh.faults[:0]
	sh.subtasks, sh.verdicts, sh.gaps = sh.subtasks[:0], sh.verdicts[:0], sh.gaps[:0]
	sh.failed, sh.strings = sh.failed[:0], sh.strings[:0]
	sh.pool, sh.spans, sh.next = sh.pool[:0], sh.spans[:0], 0
	sh.keys, sh.nextK = sh.keys[:0], 0
	unread := -1 // where the text of an evidence starts, if unread
	for i := 0; ; {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			break
		}
		at, lo := i+q+1, len(sh.pool)
		end, plain, ok := sh.copyString(line, at, at != unread)
		if !ok {
			break
		}
		i = end + 1
		if k := skipSpace(line, i); k < len(line) && line[k] == ':' { // a key
			sh.pool = sh.pool[:lo]
			if plain {
				sh.keys = append(sh.keys, strSpan{at: at, end: end})
			}
			if sh.unread && string(line[at:end]) == "evidence" {
				if v := skipSpace(line, k+1); v < len(line) && line[v] == '"' {
					unread = v + 1
				}
			}
			if string(line[at:end]) == "output" {
				if i = skipValue(line, k+1); i < 0 {
					break
				}
			}
			continue
		}
		sh.spans = append(sh.spans, strSpan{at: at, end: end, lo: lo, hi: len(sh.pool)})
	}
	sh.text = string(sh.pool)
}

// copyString appends the text of the string that starts at line[at] to the pool, unless
// !keep, and gives the index of its closing quote, and whether the string is plain ASCII
// (no escape); ok is false for a string the scan does not take.
func (sh *lineShare) copyString(line []byte, at int, keep bool) (end int, plain, ok bool) {
	j, high := plainRun(line, at)
	switch {
	case j >= len(line) || line[j] < 0x20:
		return 0, false, false
	case line[j] == '"':
		if high && !utf8.Valid(line[at:j]) {
			return 0, false, false
		}
		if keep {
			sh.pool = append(sh.pool, line[at:j]...)
		}
		return j, !high, true
	}
	lo := len(sh.pool)
	sh.pool, end, ok = unescape(sh.pool, line, at)
	if !keep {
		sh.pool = sh.pool[:lo]
	}
	return end, false, ok
}

// key is the index of the closing quote of the key whose text starts at at, if start
// found it plain ASCII: the scan then need not read it again.
func (sh *lineShare) key(at int) (end int, ok bool) {
	for sh.nextK < len(sh.keys) && sh.keys[sh.nextK].at < at { // keys the scan did not ask for
		sh.nextK++
	}
	if sh.nextK < len(sh.keys) && sh.keys[sh.nextK].at == at {
		sh.nextK++
		return sh.keys[sh.nextK-1].end, true
	}
	return 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the JSON value from b[i], found by its quotes and
// brackets alone (the scan checks it), or -1.
func skipValue(b []byte, i int) int {
	depth := 0
	for i = skipSpace(b, i); i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // a number or literal ends at its container's end
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// lookup is the text of the string whose text starts at at, and the index of its
// closing quote; ok is false for a string start did not read.
func (sh *lineShare) lookup(at int) (string, int, bool) {
	k := sh.next // the scan meets them in order
	if k >= len(sh.spans) || sh.spans[k].at != at {
		var found bool
		if k, found = slices.BinarySearchFunc(sh.spans, at, func(sp strSpan, at int) int { return sp.at - at }); !found {
			return "", 0, false
		}
	}
	sh.next = k + 1
	sp := sh.spans[k]
	return sh.text[sp.lo:sp.hi], sp.end, true
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
	s := reportScan{b: r.text}
	w.scanned(&s, depth)
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
