package ggs

import (
	"bufio"
	"errors"
	"io"

	"github.com/agentspine/spine/internal/linecap"
)

// lineReader reads lines as linecap.Reader does, with the same cap and errors, but gives
// a line that fits in its buffer in place, without copying it: spine ggs's lines are
// read once, before the next is asked for. FuzzLineReaderAgrees holds the two together.
type lineReader struct {
	br  *bufio.Reader
	max int
	n   int
	buf []byte // a line longer than the buffer, gathered
	err error
}

func newLineReader(r io.Reader, max int) *lineReader { return newLineReaderSize(r, max, 64<<10) }

// newLineReaderSize reads with a buffer of size bytes: a line longer than that is
// gathered in a buffer of its own.
func newLineReaderSize(r io.Reader, max, size int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, size), max: max}
}

// Next is linecap.Reader.Next: the next line without its newline and whether it ended in
// one. The slice is valid until the next call.
func (r *lineReader) Next() (line []byte, complete bool, err error) {
	if r.err != nil {
		return nil, false, r.err
	}
	frag, err := r.br.ReadSlice('\n')
	if err == nil && len(frag) <= r.max+1 {
		r.n++
		return frag[:len(frag)-1], true, nil
	}
	r.buf = append(r.buf[:0], frag...)
	for {
		content := len(r.buf)
		if err == nil {
			content--
		}
		if content > r.max {
			r.n++
			r.err = &linecap.TooLongError{Line: r.n, Max: r.max}
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
