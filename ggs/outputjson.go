package ggs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/jsonw"
)

// AppendOutput appends o as one JSONL bus message, {"type": ..., "payload": {...}}, to
// buf, byte for byte as encoding/json writes it with HTML escaping off, so that targets
// and rationales read as written. The hot path writes without reflection (appendOutput);
// what it does not write (a graceful failure, an output of another Go type, a number
// JSON cannot hold) is written by encoding/json, which also gives the error.
func AppendOutput(buf []byte, o Output) ([]byte, error) {
	return new(outputWriter).append(buf, o)
}

// outputWriter is AppendOutput with its scratch space kept from one output to the next
// (Filter.Run's). It is not safe for concurrent use.
type outputWriter struct{ w jsonWriter }

func (ow *outputWriter) append(buf []byte, o Output) ([]byte, error) {
	ow.w.b = buf
	out, ok := ow.w.output(o)
	ow.w.b, ow.w.bad = nil, false
	if ok {
		return out, nil
	}
	return appendOutputReflect(buf, o)
}

// appendOutputReflect is AppendOutput by encoding/json: the reference appendOutput is
// held to (TestAppendOutputAgrees, FuzzAppendOutputAgrees).
func appendOutputReflect(buf []byte, o Output) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Type    string `json:"type"`
		Payload any    `json:"payload"`
	}{o.Type(), o.Payload()})
	if err != nil {
		return buf, fmt.Errorf("ggs: encode %s: %w", o.Type(), err)
	}
	return append(buf, b.Bytes()...), nil
}

// appendOutput writes o as encoding/json does (HTML escaping off), without reflection.
// It reports false, having written nothing, for what it leaves to encoding/json: a
// graceful failure, an output value of a Go type JSON decoding does not make, and NaN or
// an infinity (an error there).
func appendOutput(buf []byte, o Output) ([]byte, bool) {
	w := jsonWriter{b: buf}
	return w.output(o)
}

// output is appendOutput onto w.b.
func (w *jsonWriter) output(o Output) ([]byte, bool) {
	buf := w.b
	if f := o.Final; f != nil {
		if f.Failure != nil {
			return buf, false
		}
		w.raw(`{"type":"FinalResult","payload":{"task_id":`)
		w.str(f.TaskID)
		w.raw(`,"summary":`)
		w.str(f.Summary)
		w.raw(`,"output":`)
		w.any(f.Output, 0)
		w.raw(`,"loss":`)
		w.loss(f.Loss)
		w.raw(`,"grad_l":`)
		w.float(f.GradL)
		w.raw(`,"replans":`)
		w.b = strconv.AppendInt(w.b, int64(f.Replans), 10)
		w.raw(`,"prev_directive":`)
		w.str(f.PrevDirective)
		w.raw(`,"directive":`)
		w.str(f.Directive)
		if f.Reason != "" {
			w.raw(`,"reason":`)
			w.str(f.Reason)
		}
	} else if d := o.Directive; d != nil {
		w.raw(`{"type":"PlanDirective","payload":{"task_id":`)
		w.str(d.TaskID)
		w.raw(`,"loss":`)
		w.loss(d.Loss)
		w.raw(`,"prev_directive":`)
		w.str(d.PrevDirective)
		w.raw(`,"directive":`)
		w.str(d.Directive)
		w.raw(`,"blocked_tools":`)
		w.strs(d.BlockedTools)
		w.raw(`,"blocked_targets":`)
		w.strs(d.BlockedTargets)
		w.raw(`,"failed_criterion":`)
		w.str(d.FailedCriterion)
		w.raw(`,"failure_class":`)
		w.str(d.FailureClass)
		w.raw(`,"budget_pressure":`)
		w.float(d.BudgetPressure)
		w.raw(`,"grad_l":`)
		w.float(d.GradL)
		w.raw(`,"rationale":`)
		w.str(d.Rationale)
	} else {
		w.raw(`{"type":"PlanDirective","payload":null`)
		w.b = append(w.b, "}\n"...)
		return w.b, w.ok()
	}
	w.b = append(w.b, "}}\n"...)
	return w.b, w.ok()
}

// jsonWriter appends JSON; bad is set by a value it leaves to encoding/json.
type jsonWriter struct {
	b       []byte
	bad     bool
	members []rawMember // the members of the raw objects being written, innermost last
	scratch []byte      // the unescaped text of a raw output's string, being written
}

func (w *jsonWriter) ok() bool { return !w.bad }

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *jsonWriter) loss(l contract.Loss) {
	w.raw(`{"D":`)
	w.float(l.D)
	w.raw(`,"P":`)
	w.float(l.P)
	w.raw(`,"Omega":`)
	w.float(l.Omega)
	w.raw(`,"L":`)
	w.float(l.L)
	w.b = append(w.b, '}')
}

// float writes f as encoding/json does; NaN and the infinities are encoding/json's (an
// error there).
func (w *jsonWriter) float(f float64) {
	var ok bool
	if w.b, ok = jsonw.Float(w.b, f); !ok {
		w.bad = true
	}
}

// str writes s quoted as encoding/json does with HTML escaping off.
func (w *jsonWriter) str(s string) { w.b = jsonw.String(w.b, s, false) }

// list writes n elements, each by elem, as an array.
func (w *jsonWriter) list(n int, elem func(i int)) { w.seq('[', ']', n, elem) }

// object writes n members, each by key(i) and value(i), as an object.
func (w *jsonWriter) object(n int, key, value func(i int)) {
	w.seq('{', '}', n, func(i int) {
		key(i)
		w.b = append(w.b, ':')
		value(i)
	})
}

// seq writes n items, each by item, between open and close and separated by commas.
func (w *jsonWriter) seq(open, close byte, n int, item func(i int)) {
	w.b = append(w.b, open)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		item(i)
	}
	w.b = append(w.b, close)
}

// strs writes a list of strings; a nil list is null.
func (w *jsonWriter) strs(ss []string) {
	if ss == nil {
		w.raw("null")
		return
	}
	w.list(len(ss), func(i int) { w.str(ss[i]) })
}

// any writes a value JSON decoding makes (nil, bool, float64, string, []any,
// map[string]any with its keys sorted), or an output kept as its JSON text; another type
// is left to encoding/json.
func (w *jsonWriter) any(v any, depth int) {
	if depth > maxScanDepth {
		w.bad = true
		return
	}
	switch v := v.(type) {
	case nil:
		w.raw("null")
	case bool:
		w.raw(strconv.FormatBool(v))
	case float64:
		w.float(v)
	case string:
		w.str(v)
	case *rawOutput:
		v.write(w, depth)
	case []any:
		if v == nil {
			w.raw("null")
			return
		}
		w.list(len(v), func(i int) { w.any(v[i], depth+1) })
	case map[string]any:
		if v == nil {
			w.raw("null")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.object(len(keys), func(i int) { w.str(keys[i]) }, func(i int) { w.any(v[keys[i]], depth+1) })
	default:
		w.bad = true
	}
}

// rawMember is a member of a raw object: its key, and where its value starts.
type rawMember struct {
	key []byte
	at  int
}

// scanned writes the value s reads next, a value s has read before, as encoding/json
// writes the value it decodes to: an object with its keys sorted, a repeated key's last
// value, numbers as float64.
func (w *jsonWriter) scanned(s *reportScan, depth int) {
	s.ws()
	if depth > maxScanDepth || s.i >= len(s.b) {
		w.bad = true
		return
	}
	switch c := s.b[s.i]; {
	case c == '"':
		v, _, ok := s.text()
		w.bad = w.bad || !ok
		w.b = jsonw.String(w.b, v, false)
	case c == '{':
		if !w.sortedObject(s, depth) {
			w.scannedObject(s, depth)
		}
	case c == '[':
		s.i++
		w.b = append(w.b, '[')
		more := !s.peek(']')
		if !more {
			s.i++
		}
		for more {
			w.scanned(s, depth+1)
			var ok bool
			if more, ok = s.next(']'); !ok {
				w.bad = true
				return
			} else if more {
				w.b = append(w.b, ',')
			}
		}
		w.b = append(w.b, ']')
	case c == 't' || c == 'f' || c == 'n':
		v, ok := s.anyValue(depth, true)
		w.bad = w.bad || !ok
		w.any(v, depth)
	default:
		text, integer, _, ok := s.number()
		if ok && integer && exactInteger(text) {
			w.b = append(w.b, text...) // the text float64 holds and encoding/json writes
			return
		}
		f, err := strconv.ParseFloat(string(text), 64)
		w.bad = w.bad || !ok || err != nil
		w.float(f)
	}
}

// exactInteger reports whether the text of an integer is written back as it is: at most
// 15 digits (which float64 holds exactly, below 1e21, so encoding/json writes them
// without an exponent), and no leading zero but a lone one.
func exactInteger(text []byte) bool {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	return len(digits) <= 15 && (len(digits) == 1 || digits[0] != '0')
}

// sortedObject writes the object s reads next as it comes, when its keys are plain text
// in strictly increasing order, as most objects are (encoding/json sorts a map's): then
// its order is the sorted one and no key repeats. It reports false, having written and
// read nothing, for another object: scannedObject writes that.
func (w *jsonWriter) sortedObject(s *reportScan, depth int) bool {
	at, start := s.i, len(w.b)
	s.i++
	w.b = append(w.b, '{')
	var prev []byte
	more := !s.peek('}')
	if !more {
		s.i++
	}
	for first := true; more; first = false {
		key, inPlace, ok := s.text()
		if !ok || !inPlace || !first && bytes.Compare(prev, key) >= 0 || !s.peek(':') {
			s.i, w.b = at, w.b[:start]
			return false
		}
		s.i++
		prev = key
		if !first {
			w.b = append(w.b, ',')
		}
		w.b = jsonw.String(w.b, key, false)
		w.b = append(w.b, ':')
		w.scanned(s, depth+1)
		if more, ok = s.next('}'); !ok {
			w.bad = true
			return true
		}
	}
	w.b = append(w.b, '}')
	return true
}

func (w *jsonWriter) scannedObject(s *reportScan, depth int) {
	base := len(w.members)
	defer func() { w.members = w.members[:base] }()
	s.i++
	more := !s.peek('}')
	if !more {
		s.i++
	}
	for more {
		key, inPlace, ok := s.text()
		if !inPlace {
			key = bytes.Clone(key)
		}
		if !ok || !s.peek(':') {
			w.bad = true
			return
		}
		s.i++
		s.ws()
		w.members = append(w.members, rawMember{key: key, at: s.i})
		if _, ok := s.anyValue(depth+1, false); !ok {
			w.bad = true
			return
		}
		if more, ok = s.next('}'); !ok {
			w.bad = true
			return
		}
	}
	end, top := s.i, len(w.members)
	slices.SortStableFunc(w.members[base:], func(a, b rawMember) int { return bytes.Compare(a.key, b.key) })
	// The last of each key: a stable sort keeps repeated keys in the order they came.
	kept := w.members[base:base]
	for i := base; i < top; i++ {
		if i+1 == top || !bytes.Equal(w.members[i+1].key, w.members[i].key) {
			kept = append(kept, w.members[i])
		}
	}
	w.object(len(kept), func(i int) { w.b = jsonw.String(w.b, w.members[base+i].key, false) }, func(i int) {
		s.i = w.members[base+i].at
		w.scanned(s, depth+1)
	})
	s.i = end
}
