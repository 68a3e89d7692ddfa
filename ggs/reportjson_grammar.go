package ggs

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// reportScan's grammar: the JSON values it reads, strictly, as encoding/json does.

// The JSON grammar, strictly. Each reader skips the whitespace before its value.

func (s *reportScan) ws() {
	if s.i < len(s.b) && s.b[s.i] > ' ' { // most values follow their separator at once
		return
	}
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

// next reads the separator after a member or element: true to go on, false at close,
// which it consumes. ok is false for anything else.
func (s *reportScan) next(close byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, true
	case close:
		s.i++
		return false, true
	}
	return false, false
}

// openObject reads the '{' that opens an object, and its '}' when the object is empty.
func (s *reportScan) openObject() (empty, ok bool) {
	if !s.peek('{') {
		return false, false
	}
	s.i++
	if s.peek('}') {
		s.i++
		return true, true
	}
	return false, true
}

// object reads {"key": value, ...}, calling member with each key (which must have no
// escapes) to read its value.
func (s *reportScan) object(member func(key []byte) bool) bool {
	if empty, ok := s.openObject(); empty || !ok {
		return ok
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
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

// array reads null (a nil slice) or [elem, ...], each element read into a zero T
// appended to out: an empty array is an empty slice, as encoding/json makes it. A null
// element goes to the reference. In shared mode the elements go to pool, the line's
// lists of T, and out is their part of it: no list holds one of its own type, so an
// array's elements are contiguous there.
func array[T any](s *reportScan, out *[]T, pool *[]T, elem func(*T) bool) bool {
	if s.null() {
		*out = nil
		return true
	}
	if !s.peek('[') {
		return false
	}
	s.i++
	if !s.sh.on {
		var own []T
		pool = &own
	}
	start := len(*pool)
	*out = (*pool)[start:start:start]
	if s.peek(']') {
		if *out == nil {
			*out = []T{}
		}
		s.i++
		return true
	}
	for {
		if s.peek('n') {
			return false
		}
		if cap(*pool) == 0 {
			*pool = make([]T, 0, 4) // most lists of a report are short: one allocation
		}
		var zero T
		before := cap(*pool)
		if *pool = append(*pool, zero); cap(*pool) != before && s.sh.on {
			s.sh.moved = true
		}
		if !elem(&(*pool)[len(*pool)-1]) {
			return false
		}
		more, ok := s.next(']')
		if !more {
			*out = (*pool)[start:len(*pool):len(*pool)]
			return ok
		}
	}
}

// strings reads a list of strings. In shared mode they live in the line, tool calls too:
// the task state copies what it keeps of them (taskState.remember).
func (s *reportScan) strings(out *[]string) bool {
	return array(s, out, &s.sh.strings, s.str)
}

// str reads a string, or null (which leaves out as it is, as encoding/json does).
func (s *reportScan) str(out *string) bool {
	if s.null() {
		return true
	}
	if s.sh.on {
		return s.sharedString(out)
	}
	v, ok := s.stringValue()
	*out = v
	return ok
}

// evidence reads a criterion verdict's evidence: when the share says it is unread, left
// empty and checked only for what makes encoding/json refuse a string (what it would
// replace, text that is not UTF-8 or an escaped surrogate, nobody reads).
func (s *reportScan) evidence(out *string) bool {
	switch {
	case !s.sh.unread:
		return s.str(out)
	case s.null():
		return true
	}
	return s.skipString(true)
}

// kept reads a string the Solver keeps between rounds (a task_id, an intent): in shared
// mode it must not hold its line.
func (s *reportScan) kept(out *string) bool {
	if !s.sh.on {
		return s.str(out)
	}
	if s.null() {
		return true
	}
	b, _, ok := s.text()
	if ok {
		*out = s.sh.own(b)
	}
	return ok
}

func (s *reportScan) strPtr(out **string) bool {
	if s.null() {
		*out = nil
		return true
	}
	if s.sh.on {
		p := s.sh.ptr("")
		*out = p
		return s.sharedString(p)
	}
	v, ok := s.stringValue()
	*out = &v
	return ok
}

// sharedString reads a string in shared mode: a slice of the line when it has no
// escapes, else its text in the pool, set when the scan ends (lineShare.finish).
func (s *reportScan) sharedString(out *string) bool {
	if !s.peek('"') {
		return false
	}
	at := s.i + 1
	j, high := plainRun(s.b, at)
	if j >= len(s.b) || s.b[j] < 0x20 || high && !utf8.Valid(s.b[at:j]) {
		return false
	}
	lo := len(s.sh.pool)
	pool, end := append(s.sh.pool, s.b[at:j]...), j
	if s.b[j] != '"' {
		var ok bool
		if pool, end, ok = unescape(pool, s.b, j); !ok {
			s.sh.pool = pool
			return false
		}
	}
	s.sh.pool = pool
	*out = ""
	s.sh.fixups = append(s.sh.fixups, fixup{dst: out, lo: lo, hi: len(pool)})
	s.i = end + 1
	return true
}

// skipString checks a string as text would read it, without writing its text; lenient,
// only as encoding/json would read it, which writes U+FFFD for text that is not UTF-8 and
// for an escaped surrogate.
func (s *reportScan) skipString(lenient bool) bool {
	if !s.peek('"') {
		return false
	}
	b := s.b
	for j := s.i + 1; ; {
		k, high := plainRun(b, j)
		switch {
		case high && !lenient && !utf8.Valid(b[j:k]), k >= len(b) || b[k] < 0x20:
			return false
		case b[k] == '"':
			s.i = k + 1
			return true
		case k+1 >= len(b):
			return false
		}
		if e := b[k+1]; unescaped[e] != 0 {
			j = k + 2
			continue
		} else if e != 'u' || k+6 > len(b) {
			return false
		}
		if r, ok := hex4(b[k+2 : k+6]); !ok || !lenient && r >= 0xD800 && r < 0xE000 {
			return false
		}
		j = k + 6
	}
}

// output reads a report's output: in shared mode as its JSON text (rawOutput), checked
// as anyValue reads it; else by anyValue.
func (s *reportScan) output(out *any) bool {
	if !s.sh.on {
		v, ok := s.anyValue(0, true)
		*out = v
		return ok
	}
	if s.null() {
		*out = nil
		return true
	}
	s.ws()
	start := s.i
	if _, ok := s.anyValue(0, false); !ok {
		return false
	}
	*out = s.sh.raw(s.b[start:s.i])
	return true
}

// rawString reads a string with no escapes and returns its bytes, in place.
func (s *reportScan) rawString() ([]byte, bool) {
	if !s.peek('"') {
		return nil, false
	}
	start := s.i + 1
	j, high := plainRun(s.b, start)
	if high || j >= len(s.b) || s.b[j] != '"' {
		return nil, false
	}
	s.i = j + 1
	return s.b[start:j], true
}

// stringValue reads a string. Text that is not UTF-8, and an escaped surrogate, go to
// the reference (which writes U+FFFD for them).
func (s *reportScan) stringValue() (string, bool) {
	b, _, ok := s.text()
	if !ok {
		return "", false
	}
	return intern(b), true
}

// text reads a string and gives its text: in place when it has no escapes, else
// unescaped into s.buf, until the next call.
func (s *reportScan) text() (b []byte, inPlace, ok bool) {
	if !s.peek('"') {
		return nil, false, false
	}
	at := s.i + 1
	j, high := plainRun(s.b, at)
	switch {
	case j >= len(s.b) || s.b[j] < 0x20:
		return nil, false, false
	case s.b[j] == '"':
		if high && !utf8.Valid(s.b[at:j]) {
			return nil, false, false
		}
		s.i = j + 1
		return s.b[at:j], true, true
	}
	buf, end, ok := unescape(s.buf[:0], s.b, at)
	s.buf = buf
	if !ok {
		return nil, false, false
	}
	s.i = end + 1
	return buf, false, true
}

// enumerated are the values of a report's enumerations, which intern returns without
// allocating.
var enumerated = [...]string{"", contract.OutcomeMatched, contract.OutcomeFailed, contract.VerdictPass,
	contract.VerdictFail, contract.ModeVerifiable, contract.ModePlausible, contract.FailureLogical,
	contract.FailureEnvironmental, "replan", "retry"}

// intern returns b as a string, without allocating for an enumerated value.
func intern(b []byte) string {
	for _, v := range enumerated {
		if string(b) == v {
			return v
		}
	}
	return string(b)
}

// unescape appends the text of the string that starts at b[start] (after its quote) to
// dst, and gives the index of its closing quote. ok is false for a string the reference
// is to read: a control character, a bad escape, an escaped surrogate, text that is not
// UTF-8, no closing quote.
func unescape(dst, b []byte, start int) (out []byte, end int, ok bool) {
	// Only the plain runs with bytes above ASCII can be bad UTF-8: what an escape writes
	// is a whole character, which cannot complete or start a run's broken sequence.
	for j := start; j < len(b); {
		k, high := plainRun(b, j)
		if high && !utf8.Valid(b[j:k]) {
			return dst, 0, false
		}
		dst = append(dst, b[j:k]...)
		switch {
		case k < len(b) && b[k] == '"':
			return dst, k, true
		case k+1 >= len(b) || b[k] < 0x20:
			return dst, 0, false
		}
		e := b[k+1] // after a backslash
		if c := unescaped[e]; c != 0 {
			dst = append(dst, c)
			j = k + 2
			continue
		}
		if e != 'u' || k+6 > len(b) {
			return dst, 0, false
		}
		r, ok := hex4(b[k+2 : k+6])
		if !ok || r >= 0xD800 && r < 0xE000 {
			return dst, 0, false
		}
		dst = utf8.AppendRune(dst, r)
		j = k + 6
	}
	return dst, 0, false
}

// unescaped is the character of each one-letter escape.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// number reads a number's text, strictly by the JSON grammar; integer says whether it
// has neither fraction nor exponent, exp whether it has an exponent.
func (s *reportScan) number() (text []byte, integer, exp, ok bool) {
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
		return nil, false, false, false
	}
	integer = true
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return nil, false, false, false
		}
		integer = false
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false, false, false
		}
		integer, exp = false, true
	}
	text, s.i = b[s.i:j], j
	return text, integer, exp, true
}

// integer reads an integer of bits bits, or null (which leaves out as it is).
func (s *reportScan) integer(bits int) (v int64, null, ok bool) {
	if s.null() {
		return 0, true, true
	}
	text, integer, _, ok := s.number()
	if !ok || !integer {
		return 0, false, false
	}
	v, err := strconv.ParseInt(string(text), 10, bits)
	return v, false, err == nil
}

func (s *reportScan) int64(out *int64) bool {
	v, null, ok := s.integer(64)
	if !null {
		*out = v
	}
	return ok
}

func (s *reportScan) int(out *int) bool {
	v, null, ok := s.integer(strconv.IntSize)
	if !null {
		*out = int(v)
	}
	return ok
}

// anyValue reads any value as encoding/json does into an interface: objects as
// map[string]any (a repeated key's last value wins), arrays as []any, numbers as float64.
// Unless build is set it only checks that the value would be read, and returns nil.
func (s *reportScan) anyValue(depth int, build bool) (any, bool) {
	s.ws()
	if s.i >= len(s.b) || depth > maxScanDepth {
		return nil, false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		if !build {
			return nil, s.skipString(false)
		}
		return s.stringValue()
	case c == '{':
		return s.anyObject(depth, build)
	case c == '[':
		return s.anyArray(depth, build)
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(s.b)-s.i >= len(lit.text) && string(s.b[s.i:s.i+len(lit.text)]) == lit.text {
				s.i += len(lit.text)
				return lit.v, true
			}
		}
		return nil, false
	}
	text, _, exp, ok := s.number()
	if !ok {
		return nil, false
	}
	if !build && !exp && len(text) < 300 {
		return nil, true // in range: under 1e300 without an exponent
	}
	v, err := strconv.ParseFloat(string(text), 64)
	if !build {
		return nil, err == nil
	}
	return v, err == nil
}

func (s *reportScan) anyObject(depth int, build bool) (any, bool) {
	var m map[string]any
	if build {
		m = map[string]any{}
	}
	s.i++
	if s.peek('}') {
		s.i++
		return m, true
	}
	for {
		var key string
		ok := false
		if build {
			key, ok = s.stringValue()
		} else {
			ok = s.skipString(false)
		}
		if !ok || !s.peek(':') {
			return nil, false
		}
		s.i++
		v, ok := s.anyValue(depth+1, build)
		if !ok {
			return nil, false
		}
		if build {
			m[key] = v
		}
		if more, ok := s.next('}'); !more {
			return m, ok
		}
	}
}

func (s *reportScan) anyArray(depth int, build bool) (any, bool) {
	var a []any
	if build {
		a = []any{}
	}
	s.i++
	if s.peek(']') {
		s.i++
		return a, true
	}
	for {
		v, ok := s.anyValue(depth+1, build)
		if !ok {
			return nil, false
		}
		if build {
			a = append(a, v)
		}
		if more, ok := s.next(']'); !more {
			return a, ok
		}
	}
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

// plainRun returns the index of the first byte from b[i] on that ends a string's plain
// text: a quote, a backslash or a control character (len(b) if none), and whether a byte
// before it is not ASCII. It reads eight bytes at a time.
func plainRun(b []byte, i int) (end int, high bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var seen uint64
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// The high bit of each byte below 0x20, or equal to a quote or a backslash (and
		// perhaps of bytes above one of them): then the bytes are read one by one.
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break
		}
		seen |= x
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		seen |= uint64(c)
	}
	return i, seen&highs != 0
}
