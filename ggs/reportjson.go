package ggs

import (
	"strconv"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// reportScan reads one bus message in a single pass over the line, straight into the
// report's structs, without reflection: the hot path of spine ggs. It takes only what it
// reads exactly as encoding/json reads it. At anything else (any error, a key it does
// not know or knows in another case, a repeated key, the payload before the type, a
// string that is not UTF-8 or escapes a surrogate, a number out of range, a null where
// encoding/json would keep a value) it stops, and DecodeMessage asks the reference,
// decodeEnvelope, whose encoding/json reading is the definition and whose errors are the
// ones users see. FuzzReportScanAgrees holds the two to the same Message.
type reportScan struct {
	b   []byte
	i   int
	buf []byte // scratch for strings with escapes
}

// maxScanDepth bounds the nesting of outputs the scan follows; deeper goes to the
// reference, which has its own limit and error.
const maxScanDepth = 512

func (s *reportScan) message(line []byte) (Message, bool) {
	s.b, s.i = line, 0
	var m Message
	var target int // 0 none yet, 1 replan, 2 outcome
	decoded := false
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			if target != 0 {
				return false
			}
			switch t, ok := s.rawString(); {
			case !ok:
				return false
			case string(t) == contract.TypeReplanRequest:
				target = 1
			case string(t) == contract.TypeOutcomeSummary:
				target = 2
			default:
				return false
			}
		case "payload":
			if decoded || !s.peek('{') {
				return false
			}
			decoded = true
			switch target {
			case 1:
				m.Replan = new(contract.ReplanRequest)
				return s.replan(m.Replan)
			case 2:
				m.Outcome = new(contract.OutcomeSummary)
				return s.outcome(m.Outcome)
			}
			return false // the payload before its type
		default:
			return false
		}
		return true
	})
	if !ok || !decoded {
		return Message{}, false
	}
	if s.ws(); s.i != len(s.b) {
		return Message{}, false
	}
	return m, true
}

func (s *reportScan) replan(r *contract.ReplanRequest) bool {
	var seen uint32
	return s.object(func(key []byte) bool {
		var bit uint32
		ok := false
		switch string(key) {
		case "task_id":
			bit, ok = 1<<0, s.str(&r.TaskID)
		case "intent":
			bit, ok = 1<<1, s.str(&r.Intent)
		case "gap_summary":
			bit, ok = 1<<2, s.str(&r.GapSummary)
		case "failed_subtasks":
			bit, ok = 1<<3, s.strings(&r.FailedSubTasks)
		case "correction_count":
			bit, ok = 1<<4, s.int(&r.CorrectionCount)
		case "elapsed_ms":
			bit, ok = 1<<5, s.int64(&r.ElapsedMS)
		case "outcomes":
			bit, ok = 1<<6, s.subtasks(&r.Outcomes)
		case "task_criteria_verdicts":
			bit, ok = 1<<7, s.verdicts(&r.TaskCriteriaVerdicts)
		case "recommendation":
			bit, ok = 1<<8, s.str(&r.Recommendation)
		case "fault":
			bit, ok = 1<<9, s.fault(&r.Fault)
		}
		return once(&seen, bit) && ok
	})
}

func (s *reportScan) outcome(o *contract.OutcomeSummary) bool {
	var seen uint32
	return s.object(func(key []byte) bool {
		var bit uint32
		ok := false
		switch string(key) {
		case "task_id":
			bit, ok = 1<<0, s.str(&o.TaskID)
		case "intent":
			bit, ok = 1<<1, s.str(&o.Intent)
		case "summary":
			bit, ok = 1<<2, s.str(&o.Summary)
		case "output":
			bit, ok = 1<<3, s.anyValue(&o.Output, 0)
		case "elapsed_ms":
			bit, ok = 1<<4, s.int64(&o.ElapsedMS)
		case "outcomes":
			bit, ok = 1<<5, s.subtasks(&o.Outcomes)
		}
		return once(&seen, bit) && ok
	})
}

func (s *reportScan) subtasks(out *[]contract.SubTaskOutcome) bool {
	return array(s, out, func() bool {
		*out = append(*out, contract.SubTaskOutcome{})
		o := &(*out)[len(*out)-1]
		var seen uint32
		return s.object(func(key []byte) bool {
			var bit uint32
			ok := false
			switch string(key) {
			case "subtask_id":
				bit, ok = 1<<0, s.str(&o.SubTaskID)
			case "parent_task_id":
				bit, ok = 1<<1, s.str(&o.ParentTaskID)
			case "status":
				bit, ok = 1<<2, s.str(&o.Status)
			case "output":
				bit, ok = 1<<3, s.anyValue(&o.Output, 0)
			case "failure_reason":
				bit, ok = 1<<4, s.strPtr(&o.FailureReason)
			case "criteria_verdicts":
				bit, ok = 1<<5, s.verdicts(&o.CriteriaVerdicts)
			case "gap_trajectory":
				bit, ok = 1<<6, s.gaps(&o.GapTrajectory)
			case "tool_calls":
				bit, ok = 1<<7, s.strings(&o.ToolCalls)
			case "fault":
				bit, ok = 1<<8, s.fault(&o.Fault)
			}
			return once(&seen, bit) && ok
		})
	})
}

func (s *reportScan) verdicts(out *[]contract.CriterionVerdict) bool {
	return array(s, out, func() bool {
		*out = append(*out, contract.CriterionVerdict{})
		v := &(*out)[len(*out)-1]
		var seen uint32
		return s.object(func(key []byte) bool {
			var bit uint32
			ok := false
			switch string(key) {
			case "criterion":
				bit, ok = 1<<0, s.str(&v.Criterion)
			case "mode":
				bit, ok = 1<<1, s.str(&v.Mode)
			case "verdict":
				bit, ok = 1<<2, s.str(&v.Verdict)
			case "failure_class":
				bit, ok = 1<<3, s.strPtr(&v.FailureClass)
			case "evidence":
				bit, ok = 1<<4, s.str(&v.Evidence)
			}
			return once(&seen, bit) && ok
		})
	})
}

func (s *reportScan) gaps(out *[]contract.GapAttempt) bool {
	return array(s, out, func() bool {
		*out = append(*out, contract.GapAttempt{})
		g := &(*out)[len(*out)-1]
		var seen uint32
		return s.object(func(key []byte) bool {
			var bit uint32
			ok := false
			switch string(key) {
			case "attempt":
				bit, ok = 1<<0, s.int(&g.Attempt)
			case "failed_criteria":
				bit, ok = 1<<1, array(s, &g.FailedCriteria, func() bool {
					g.FailedCriteria = append(g.FailedCriteria, contract.FailedCriterion{})
					fc := &g.FailedCriteria[len(g.FailedCriteria)-1]
					var seen uint32
					return s.object(func(key []byte) bool {
						var bit uint32
						ok := false
						switch string(key) {
						case "criterion":
							bit, ok = 1<<0, s.str(&fc.Criterion)
						case "failure_class":
							bit, ok = 1<<1, s.str(&fc.FailureClass)
						}
						return once(&seen, bit) && ok
					})
				})
			}
			return once(&seen, bit) && ok
		})
	})
}

func (s *reportScan) fault(out **contract.Fault) bool {
	if s.null() {
		return true
	}
	f := new(contract.Fault)
	*out = f
	var seen uint32
	return s.object(func(key []byte) bool {
		var bit uint32
		ok := false
		switch string(key) {
		case "role":
			bit, ok = 1<<0, s.str(&f.Role)
		case "kind":
			bit, ok = 1<<1, s.str(&f.Kind)
		case "detail":
			bit, ok = 1<<2, s.str(&f.Detail)
		}
		return once(&seen, bit) && ok
	})
}

// once marks a field seen; a field seen before (a repeated key) or unknown (bit 0) is
// the reference's to read.
func once(seen *uint32, bit uint32) bool {
	if bit == 0 || *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// The JSON grammar, strictly. Each reader skips the whitespace before its value.

func (s *reportScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek reports whether the next value starts with c.
func (s *reportScan) peek(c byte) bool {
	s.ws()
	return s.i < len(s.b) && s.b[s.i] == c
}

// null consumes a null, if that is what comes next.
func (s *reportScan) null() bool {
	if s.peek('n') && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling member with each key (which must have no
// escapes) to read its value.
func (s *reportScan) object(member func(key []byte) bool) bool {
	if !s.peek('{') {
		return false
	}
	s.i++
	if s.peek('}') {
		s.i++
		return true
	}
	for {
		key, ok := s.rawString()
		if !ok || !s.peek(':') {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array reads null (a nil slice) or [elem, ...]: an empty array is an empty slice, as
// encoding/json makes it. A null element goes to the reference.
func array[T any](s *reportScan, out *[]T, elem func() bool) bool {
	if s.null() {
		*out = nil
		return true
	}
	if !s.peek('[') {
		return false
	}
	s.i++
	if s.peek(']') {
		*out = []T{}
		s.i++
		return true
	}
	*out = make([]T, 0, 4) // most lists of a report are short: one allocation
	for {
		if s.peek('n') || !elem() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *reportScan) strings(out *[]string) bool {
	return array(s, out, func() bool {
		var v string
		if !s.str(&v) {
			return false
		}
		*out = append(*out, v)
		return true
	})
}

// str reads a string, or null (which leaves out as it is, as encoding/json does).
func (s *reportScan) str(out *string) bool {
	if s.null() {
		return true
	}
	v, ok := s.stringValue()
	*out = v
	return ok
}

func (s *reportScan) strPtr(out **string) bool {
	if s.null() {
		*out = nil
		return true
	}
	v, ok := s.stringValue()
	*out = &v
	return ok
}

// rawString reads a string with no escapes and returns its bytes, in place.
func (s *reportScan) rawString() ([]byte, bool) {
	if !s.peek('"') {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// stringValue reads a string. Text that is not UTF-8, and an escaped surrogate, go to
// the reference (which writes U+FFFD for them).
func (s *reportScan) stringValue() (string, bool) {
	if !s.peek('"') {
		return "", false
	}
	start := s.i + 1
	high := false
	j := start
	for ; j < len(s.b); j++ {
		c := s.b[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			return s.escaped(start)
		}
		if c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			high = true
		}
	}
	if j >= len(s.b) || high && !utf8.Valid(s.b[start:j]) {
		return "", false
	}
	s.i = j + 1
	return intern(s.b[start:j]), true
}

// intern returns the enumerated values of a report without allocating.
func intern(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case contract.OutcomeMatched:
		return contract.OutcomeMatched
	case contract.OutcomeFailed:
		return contract.OutcomeFailed
	case contract.VerdictPass:
		return contract.VerdictPass
	case contract.VerdictFail:
		return contract.VerdictFail
	case contract.ModeVerifiable:
		return contract.ModeVerifiable
	case contract.ModePlausible:
		return contract.ModePlausible
	case contract.FailureLogical:
		return contract.FailureLogical
	case contract.FailureEnvironmental:
		return contract.FailureEnvironmental
	case "replan":
		return "replan"
	case "retry":
		return "retry"
	}
	return string(b)
}

// escaped reads the rest of a string that has escapes, from start.
func (s *reportScan) escaped(start int) (string, bool) {
	buf := s.buf[:0]
	for j := start; j < len(s.b); {
		c := s.b[j]
		switch {
		case c == '"':
			s.i, s.buf = j+1, buf
			if !utf8.Valid(buf) {
				return "", false
			}
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		}
		if j+1 >= len(s.b) {
			return "", false
		}
		switch e := s.b[j+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			if j+6 > len(s.b) {
				return "", false
			}
			r, ok := hex4(s.b[j+2 : j+6])
			if !ok || r >= 0xD800 && r < 0xE000 {
				return "", false
			}
			buf = utf8.AppendRune(buf, r)
			j += 6
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

// number reads a number's text, strictly by the JSON grammar; integer says whether it
// has neither fraction nor exponent.
func (s *reportScan) number() (text []byte, integer, ok bool) {
	s.ws()
	b, j := s.b, s.i
	digits := func() bool {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case !digits():
		return nil, false, false
	}
	integer = true
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return nil, false, false
		}
		integer = false
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false, false
		}
		integer = false
	}
	text, s.i = b[s.i:j], j
	return text, integer, true
}

func (s *reportScan) int64(out *int64) bool {
	if s.null() {
		return true
	}
	text, integer, ok := s.number()
	if !ok || !integer {
		return false
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	*out = v
	return err == nil
}

func (s *reportScan) int(out *int) bool {
	if s.null() {
		return true
	}
	text, integer, ok := s.number()
	if !ok || !integer {
		return false
	}
	v, err := strconv.ParseInt(string(text), 10, strconv.IntSize)
	*out = int(v)
	return err == nil
}

// anyValue reads any value as encoding/json does into an interface: objects as
// map[string]any (a repeated key's last value wins), arrays as []any, numbers as float64.
func (s *reportScan) anyValue(out *any, depth int) bool {
	s.ws()
	if s.i >= len(s.b) || depth > maxScanDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		v, ok := s.stringValue()
		*out = v
		return ok
	case c == '{':
		m := map[string]any{}
		*out = m
		s.i++
		if s.peek('}') {
			s.i++
			return true
		}
		for {
			key, ok := s.stringValue()
			if !ok || !s.peek(':') {
				return false
			}
			s.i++
			var v any
			if !s.anyValue(&v, depth+1) {
				return false
			}
			m[key] = v
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case ',':
				s.i++
			case '}':
				s.i++
				return true
			default:
				return false
			}
		}
	case c == '[':
		a := []any{}
		s.i++
		if s.peek(']') {
			s.i++
			*out = a
			return true
		}
		for {
			var v any
			if !s.anyValue(&v, depth+1) {
				return false
			}
			a = append(a, v)
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case ',':
				s.i++
			case ']':
				s.i++
				*out = a
				return true
			default:
				return false
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(s.b)-s.i >= len(lit.text) && string(s.b[s.i:s.i+len(lit.text)]) == lit.text {
				s.i += len(lit.text)
				*out = lit.v
				return true
			}
		}
		return false
	}
	text, _, ok := s.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(text), 64)
	*out = v
	return err == nil
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
