// Package linecap reads newline-delimited input (JSONL traces, memory imports, the GGS
// filter's stdin) one line at a time with a cap on a line's length, and cuts quoted
// input down to a bounded excerpt for error messages. Input from outside can be a
// device that never sends a newline or a line of hundreds of megabytes; neither may
// exhaust memory or flood a terminal. It owns only the reading and the excerpts; it
// does not decode lines or open files.
package linecap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// MaxLine is the longest line a reader accepts by default, newline excluded: the trace
// line cap the writers keep to (contract.MaxTraceLine), so a run can read back every
// line it writes.
const MaxLine = contract.MaxTraceLine

// MaxExcerpt is how many bytes of bad input an error message quotes.
const MaxExcerpt = 120

// TooLongError is a line longer than the reader's cap.
type TooLongError struct {
	Name string // the input's name, "" when it has none
	Line int    // 1-based
	Max  int
}

func (e *TooLongError) Error() string {
	msg := fmt.Sprintf("line %d is longer than %d bytes, the most a line may have", e.Line, e.Max)
	if e.Name != "" {
		return e.Name + ": " + msg
	}
	return msg
}

// Reader reads lines of at most a fixed length.
type Reader struct {
	br   *bufio.Reader
	name string
	max  int
	n    int
	buf  []byte
	err  error
}

// New reads r with the default cap, MaxLine. name is used in errors.
func New(name string, r io.Reader) *Reader { return NewSize(name, r, MaxLine) }

// NewSize reads r with a cap of max bytes a line.
func NewSize(name string, r io.Reader, max int) *Reader {
	return newBuffered(name, r, max, readBuffer)
}

// readBuffer is the size of a Reader's read buffer: a line that fits in it is given
// in place, a longer one gathered in a buffer of its own.
const readBuffer = 64 << 10

func newBuffered(name string, r io.Reader, max, size int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, size), name: name, max: max}
}

// Next returns the next line without its newline and whether it ended in one (false
// only for a last line cut short). The slice is valid until the next call. At the end
// of input it returns io.EOF; a line over the cap is a *TooLongError, after which the
// reader stays failed: what follows a cut-off line cannot be told apart from it.
func (r *Reader) Next() (line []byte, complete bool, err error) {
	if r.err != nil {
		return nil, false, r.err
	}
	frag, err := r.br.ReadSlice('\n')
	if err == nil && len(frag) <= r.max+1 {
		// The whole line is in the read buffer: given in place, without a copy. Its
		// capacity ends with it, so that an append cannot write over the next line.
		r.n++
		n := len(frag) - 1
		return frag[:n:n], true, nil
	}
	r.buf = append(r.buf[:0], frag...)
	for {
		content := len(r.buf)
		if err == nil {
			content--
		}
		if content > r.max {
			r.n++
			r.err = &TooLongError{Name: r.name, Line: r.n, Max: r.max}
			return nil, false, r.err
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			frag, err = r.br.ReadSlice('\n')
			r.buf = append(r.buf, frag...)
			continue
		case err == nil:
			r.n++
			return r.buf[:content], true, nil
		case errors.Is(err, io.EOF):
			if len(r.buf) == 0 {
				r.err = io.EOF
				return nil, false, io.EOF
			}
			r.n++
			r.err = io.EOF
			return r.buf, false, nil
		default:
			r.err = err
			return nil, false, err
		}
	}
}

// Excerpt quotes b for an error message: whole when it is at most MaxExcerpt bytes,
// else its first MaxExcerpt bytes (cut at a rune boundary) and its length, as
// "abc"…(200000 bytes).
func Excerpt(b []byte) string {
	if len(b) <= MaxExcerpt {
		return strconv.Quote(string(b))
	}
	cut := MaxExcerpt
	for cut > MaxExcerpt-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", strconv.Quote(string(b[:cut])), len(b))
}

// Clip cuts s to at most n bytes on a rune boundary, marking the cut with "…"; a
// string of at most n bytes is returned whole. It is for text shown, not quoted.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ExcerptString is Excerpt for a string.
func ExcerptString(s string) string { return Excerpt([]byte(s)) }

// BoundQuotes cuts every Go-quoted string in an error message that is longer than
// MaxExcerpt bytes unquoted down to its Excerpt. It is for messages built elsewhere
// (a decoder's "unknown type %q") that quote input whole; text outside quotes, and a
// quote that does not parse, is left as it is.
func BoundQuotes(msg string) string {
	if len(msg) <= MaxExcerpt {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		if msg[i] != '"' {
			j := strings.IndexByte(msg[i:], '"')
			if j < 0 {
				j = len(msg) - i
			}
			b.WriteString(msg[i : i+j])
			i += j
			continue
		}
		q, err := strconv.QuotedPrefix(msg[i:])
		if err != nil {
			b.WriteByte('"')
			i++
			continue
		}
		if s, err := strconv.Unquote(q); err == nil && len(s) > MaxExcerpt {
			b.WriteString(ExcerptString(s))
		} else {
			b.WriteString(q)
		}
		i += len(q)
	}
	return b.String()
}
