package secrets

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Redacted replaces every secret the Scrubber finds.
const Redacted = "[REDACTED]"

// MinLen is the length below which a value is not treated as a secret: shorter values
// (ports, flags, "true") would redact ordinary text and hide little.
const MinLen = 8

// Partial-echo rules. RunMin is the shortest run of a key-like value's characters (or of
// its hex or base64) that is redacted on its own; a masked echo shows at least MaskPrefix
// leading and MaskSuffix trailing characters of a key-like value around a mask.
const (
	RunMin     = 12
	MaskPrefix = 6
	MaskSuffix = 3
)

// Runs are found through grams of gramLen characters taken every gramStep characters:
// any run of gramLen+gramStep-1 = RunMin characters contains one.
const (
	gramLen  = 8
	gramStep = RunMin - gramLen + 1
	// maxGramSource bounds the texts matched in part, so that a huge value cannot make
	// every scan quadratic; longer values are still matched whole.
	maxGramSource = 2048
	// maxGramOffsets bounds how many places of its sources one gram is tried at.
	maxGramOffsets = 4
	// maxMask bounds the bytes of a mask between a masked echo's two ends.
	maxMask = 64
)

type kind uint8

const (
	exact  kind = iota // the whole needle, replaced as it is
	gram               // part of a source; the match is extended to the longest run
	masked             // the first MaskPrefix bytes of a key-like value
)

// needle is one text looked for: src[off:off+n] of the scrubber's sources.
type needle struct {
	src, off, n int32
	kind        kind
}

// Scrubber replaces secrets in text. Build it with New; the zero value and nil hide
// nothing. It is safe for concurrent use.
type Scrubber struct {
	srcs    []string
	needles []needle
	filter  *[filterBits / 64]uint64 // a bit per hash of a needle's first four bytes
	index   map[uint32][]int32       // first four bytes → needles
	values  int
}

const filterBits = 1 << 16

// New builds a Scrubber for values. Values shorter than MinLen, and those the
// replacement text itself contains, are ignored; duplicates and order do not matter.
func New(values ...string) *Scrubber {
	var vs []string
	for _, v := range values {
		for _, c := range []string{v, strings.TrimSpace(v)} {
			if len(c) >= MinLen && !strings.Contains(Redacted, c) {
				vs = append(vs, c)
			}
		}
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	s := &Scrubber{filter: new([filterBits / 64]uint64), index: map[uint32][]int32{}, values: len(vs)}
	seenExact := map[string]bool{}
	gramOffsets := map[string]int{}
	addSource := func(t string) int32 {
		s.srcs = append(s.srcs, t)
		return int32(len(s.srcs) - 1)
	}
	add := func(nd needle) {
		t := s.srcs[nd.src][nd.off : nd.off+nd.n]
		if strings.Contains(Redacted, t) {
			return
		}
		key := prefix4(t)
		s.filter[hash4(key)/64] |= 1 << (hash4(key) % 64)
		s.index[key] = append(s.index[key], int32(len(s.needles)))
		s.needles = append(s.needles, nd)
	}
	addGrams := func(t string) {
		if len(t) < RunMin || len(t) > maxGramSource {
			return
		}
		src := addSource(t)
		for off := 0; off+gramLen <= len(t); off += gramStep {
			g := t[off : off+gramLen]
			if gramOffsets[g] >= maxGramOffsets {
				continue
			}
			gramOffsets[g]++
			add(needle{src: src, off: int32(off), n: gramLen, kind: gram})
		}
	}
	for _, v := range vs {
		for _, f := range forms(v) {
			if len(f) >= 4 && !seenExact[f] {
				seenExact[f] = true
				add(needle{src: addSource(f), n: int32(len(f)), kind: exact})
			}
		}
		if keyLike(v) {
			addGrams(v)
			add(needle{src: addSource(v), n: MaskPrefix, kind: masked})
		}
		for _, f := range hexAndBase64(v) {
			addGrams(f)
		}
	}
	return s
}

// Len is the number of distinct values the Scrubber hides.
func (s *Scrubber) Len() int {
	if s == nil {
		return 0
	}
	return s.values
}

// String returns text with every secret replaced by Redacted. Matches that overlap or
// touch become one replacement. Text without secrets is returned as it is. One pass is
// made: a value containing '[' or ']' could, in text built for it, be completed by the
// marker's own brackets; no other value can be left or formed.
func (s *Scrubber) String(text string) string {
	if s == nil || len(s.needles) == 0 {
		return text
	}
	spans := s.scan(text, false)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, sp := range spans {
		b.WriteString(text[at:sp.start])
		b.WriteString(Redacted)
		at = sp.end
	}
	b.WriteString(text[at:])
	return b.String()
}

// Contains tells whether text holds a secret String would replace.
func (s *Scrubber) Contains(text string) bool {
	if s == nil || len(s.needles) == 0 {
		return false
	}
	return len(s.scan(text, true)) > 0
}

// Error returns err with its message scrubbed. The result unwraps to err, so errors.Is
// and errors.As still classify it; err itself is returned when its message is clean.
func (s *Scrubber) Error(err error) error {
	if err == nil || s == nil {
		return err
	}
	msg := err.Error()
	if clean := s.String(msg); clean != msg {
		return &scrubbedError{msg: clean, err: err}
	}
	return err
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

type span struct{ start, end int }

// scan finds every match in text and returns the merged spans in order; with first, it
// stops at the first match.
func (s *Scrubber) scan(text string, first bool) []span {
	var spans []span
	if len(text) < 4 {
		return nil
	}
	// key holds the four bytes ending at text[i], as prefix4 packs them.
	key := uint32(text[0])<<8 | uint32(text[1])<<16 | uint32(text[2])<<24
	for i := 3; i < len(text); i++ {
		key = key>>8 | uint32(text[i])<<24
		h := hash4(key)
		if s.filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, id := range s.index[key] {
			start, end := s.match(text, i-3, s.needles[id])
			if end > start {
				spans = append(spans, span{start, end})
				if first {
					return spans
				}
			}
		}
	}
	return merge(spans)
}

// merge sorts spans and joins those that overlap or touch.
func merge(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.start <= last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// match tries nd at text[i:] and returns the span to redact, empty when it does not match.
func (s *Scrubber) match(text string, i int, nd needle) (int, int) {
	src := s.srcs[nd.src]
	t := src[nd.off : nd.off+nd.n]
	if !strings.HasPrefix(text[i:], t) {
		return 0, 0
	}
	switch nd.kind {
	case gram:
		return runAround(text, i, src, int(nd.off))
	case masked:
		return i, maskedEnd(text, i, src)
	}
	return i, i + len(t)
}

// runAround extends a gram found at text[i:], which is src[off:], to the longest run of
// src it belongs to, across line breaks (base64 and hex are often wrapped). It returns
// the run's span when it holds at least RunMin characters of src.
func runAround(text string, i int, src string, off int) (int, int) {
	end, q := i+gramLen, off+gramLen
	for q < len(src) {
		if end < len(text) && text[end] == src[q] {
			end, q = end+1, q+1
			continue
		}
		if next := skipBreak(text, end); next > end && next < len(text) && text[next] == src[q] {
			end = next
			continue
		}
		break
	}
	start, p := i, off
	for p > 0 {
		if start > 0 && text[start-1] == src[p-1] {
			start, p = start-1, p-1
			continue
		}
		if prev := breakBefore(text, start); prev < start && prev > 0 && text[prev-1] == src[p-1] {
			start = prev
			continue
		}
		break
	}
	if q-p < RunMin {
		return 0, 0
	}
	return start, end
}

// skipBreak returns the index after a line break ("\n", "\r\n", "\r") at text[at:], or
// at when there is none.
func skipBreak(text string, at int) int {
	if at < len(text) && text[at] == '\r' {
		at++
	}
	if at < len(text) && text[at] == '\n' {
		at++
	}
	return at
}

// breakBefore returns the index of a line break ending just before text[at:], or at.
func breakBefore(text string, at int) int {
	if at > 0 && text[at-1] == '\n' {
		at--
	}
	if at > 0 && text[at-1] == '\r' {
		at--
	}
	return at
}

// maskedEnd returns where a masked echo of v starting at text[i:] ends: at least
// MaskPrefix leading characters of v, a mask ("…", "...", "***", "•••", "###"), and at
// least MaskSuffix trailing characters of v. It returns i when there is none.
func maskedEnd(text string, i int, v string) int {
	p := 0
	for p < len(v) && i+p < len(text) && text[i+p] == v[p] {
		p++
	}
	j, runes, ellipsis := i+p, 0, false
	for j < len(text) && j-(i+p) < maxMask {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !strings.ContainsRune(".*•…#", r) {
			break
		}
		ellipsis = ellipsis || r == '…'
		j, runes = j+size, runes+1
	}
	if !ellipsis && runes < 2 {
		return i
	}
	for n := min(len(v)-p, len(text)-j); n >= MaskSuffix; n-- {
		if strings.HasPrefix(text[j:], v[len(v)-n:]) {
			return j + n
		}
	}
	return i
}

// prefix4 packs the first four bytes of t, as scan reads them.
func prefix4(t string) uint32 {
	return uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
}

// hash4 spreads four bytes over the filter's bits.
func hash4(k uint32) uint32 { return (k * 0x9E3779B1) >> (32 - 16) }
