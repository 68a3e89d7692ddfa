package ggs

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// appendOutput writes o as encoding/json does (HTML escaping off), without reflection.
// It reports false, having written nothing, for what it leaves to encoding/json: a
// graceful failure, an output value of a Go type JSON decoding does not make, and NaN or
// an infinity (an error there).
func appendOutput(buf []byte, o Output) ([]byte, bool) {
	w := jsonWriter{b: buf}
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
	b   []byte
	bad bool
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

// float writes f as encoding/json does: the shortest text that reads back as f, in
// exponent form below 1e-6 and from 1e21 on, with a two-digit exponent shortened.
func (w *jsonWriter) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.bad = true
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if n := len(w.b); format == 'e' && n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
		w.b[n-2] = w.b[n-1] // e-09 → e-9
		w.b = w.b[:n-1]
	}
}

// strs writes a list of strings; a nil list is null.
func (w *jsonWriter) strs(ss []string) {
	if ss == nil {
		w.raw("null")
		return
	}
	w.b = append(w.b, '[')
	for i, s := range ss {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(s)
	}
	w.b = append(w.b, ']')
}

// any writes a value JSON decoding makes (nil, bool, float64, string, []any,
// map[string]any with its keys sorted); another type is left to encoding/json.
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
	case []any:
		if v == nil {
			w.raw("null")
			return
		}
		w.b = append(w.b, '[')
		for i, e := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.any(e, depth+1)
		}
		w.b = append(w.b, ']')
	case *rawOutput:
		d, ok := v.value()
		if !ok {
			w.bad = true
			return
		}
		w.any(d, depth)
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
		w.b = append(w.b, '{')
		for i, k := range keys {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.str(k)
			w.b = append(w.b, ':')
			w.any(v[k], depth+1)
		}
		w.b = append(w.b, '}')
	default:
		w.bad = true
	}
}

const hexDigits = "0123456789abcdef"

// str writes s quoted as encoding/json does with HTML escaping off: control characters,
// quote and backslash escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func (w *jsonWriter) str(s string) {
	b := append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	w.b = append(b, '"')
}
