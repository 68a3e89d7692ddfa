package ggs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/agentspine/spine/internal/linecap"
)

// FuzzLineReaderAgrees: the filter's line reader gives the lines, ends and errors
// linecap.Reader gives, whatever its buffer's size and however the input arrives.
func FuzzLineReaderAgrees(f *testing.F) {
	for _, c := range []struct {
		in       string
		max, buf int
		oneByte  bool
	}{
		{"a\nbb\n\nccc", 10, 16, false},
		{"a\nbb\n\nccc\n", 2, 16, true},
		{"0123456789abcdefghijklmnopqrstuvwxyz\nshort\n", 100, 16, false},
		{"0123456789abcdefghijklmnopqrstuvwxyz\nshort\n", 20, 16, true},
		{"", 5, 16, false},
		{"\n\n\n", 0, 16, false},
	} {
		f.Add([]byte(c.in), c.max, c.buf, c.oneByte)
	}
	f.Fuzz(func(t *testing.T, in []byte, max, size int, oneByte bool) {
		if max < 0 || max > 1<<12 || size < 16 || size > 1<<12 {
			return
		}
		reader := func() io.Reader {
			if oneByte {
				return iotest.OneByteReader(bytes.NewReader(in))
			}
			return bytes.NewReader(in)
		}
		want := linecap.NewSize("", reader(), max)
		got := newLineReaderSize(reader(), max, size)
		for i := 0; i <= len(in)+2; i++ { // each call but the failed ones reads a byte at least
			wl, wc, werr := want.Next()
			gl, gc, gerr := got.Next()
			if !bytes.Equal(gl, wl) || gc != wc || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%q, max %d, buffer %d: call %d: got %q %v %v, want %q %v %v", in, max, size, i, gl, gc, gerr, wl, wc, werr)
			}
			if werr != nil { // and stays failed
				if _, _, again := got.Next(); !errors.Is(again, werr) && fmt.Sprint(again) != fmt.Sprint(werr) {
					t.Fatalf("%q: after %v, got %v", in, werr, again)
				}
				return
			}
		}
		t.Fatalf("%q: no end of input", in)
	})
}
