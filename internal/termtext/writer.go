package termtext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer passes everything written to it through Block on its way to an underlying
// writer. A character split across two writes is joined before it is judged: up to
// three bytes that may begin a character are held until the next Write or Flush. It is
// safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	carry []byte // the start of a character the last Write ended in
	buf   []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports all of p as written unless the underlying
// writer fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	text := p
	if len(w.carry) > 0 {
		text = append(w.carry, p...)
		w.carry = nil
	}
	keep := incompleteTail(text)
	body := text[:len(text)-keep]
	if keep > 0 {
		w.carry = append([]byte(nil), text[len(text)-keep:]...)
	}
	if err := w.write(body); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held partial character, escaped: nothing will complete it.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	tail := w.carry
	w.carry = nil
	return w.write(tail)
}

func (w *Writer) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	i := safePrefix(s, true)
	if i == len(s) {
		_, err := w.w.Write(b)
		return err
	}
	w.buf = appendEscaped(append(w.buf[:0], s[:i]...), s[i:], true)
	_, err := w.w.Write(w.buf)
	return err
}

// incompleteTail is how many bytes at the end of b begin a character that the next
// bytes may complete: 0 when b ends on a whole character or on bytes that can never
// become one.
func incompleteTail(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		start := len(b) - n
		if !utf8.RuneStart(b[start]) {
			continue
		}
		if b[start] < utf8.RuneSelf || utf8.FullRune(b[start:]) {
			return 0
		}
		return n
	}
	return 0
}
