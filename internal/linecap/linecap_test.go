package linecap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct {
	line     string
	complete bool
	err      string
}

func readAll(name, in string, max int) []got {
	r := NewSize(name, strings.NewReader(in), max)
	var out []got
	for {
		l, c, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		g := got{line: string(l), complete: c}
		if err != nil {
			g.err = err.Error()
			return append(out, g)
		}
		out = append(out, g)
	}
}

func TestNext(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     []got
	}{
		{"empty", "", 8, nil},
		{"one", "abc\n", 8, []got{{"abc", true, ""}}},
		{"torn last", "abc\nde", 8, []got{{"abc", true, ""}, {"de", false, ""}}},
		{"blank lines", "\n\n", 8, []got{{"", true, ""}, {"", true, ""}}},
		{"at the cap", "12345678\n", 8, []got{{"12345678", true, ""}}},
		{"over the cap", "ok\n123456789\nnext\n", 8, []got{{"ok", true, ""}, {"", false, "t.jsonl: line 2 is longer than 8 bytes, the most a line may have"}}},
		{"over the cap, no newline", "123456789", 8, []got{{"", false, "t.jsonl: line 1 is longer than 8 bytes, the most a line may have"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := readAll("t.jsonl", tc.in, tc.max)
			if len(g) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", g, tc.want)
			}
			for i := range g {
				if g[i] != tc.want[i] {
					t.Errorf("line %d: got %+v, want %+v", i+1, g[i], tc.want[i])
				}
			}
		})
	}
}

// A line far longer than the buffer is refused without reading the rest of the input.
func TestNextEndlessLine(t *testing.T) {
	r := New("/dev/zero", zeros{})
	_, _, err := r.Next()
	var tl *TooLongError
	if !errors.As(err, &tl) || err.Error() != "/dev/zero: line 1 is longer than 16777216 bytes, the most a line may have" {
		t.Fatalf("got %v", err)
	}
	if _, _, again := r.Next(); again != err {
		t.Fatalf("a failed reader read on: %v", again)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	tests := []struct{ in, want string }{
		{"", `""`},
		{"short \"id\"", `"short \"id\""`},
		{strings.Repeat("a", 120), `"` + strings.Repeat("a", 120) + `"`},
		{long, `"` + strings.Repeat("x", 120) + `"…(200000 bytes)`},
		// A rune that straddles the cut is left out whole.
		{strings.Repeat("a", 119) + "é" + long, `"` + strings.Repeat("a", 119) + `"…(200121 bytes)`},
	}
	for _, tc := range tests {
		if got := ExcerptString(tc.in); got != tc.want {
			t.Errorf("Excerpt(%.20q…) = %.200s, want %.200s", tc.in, got, tc.want)
		}
	}
}

func FuzzNext(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), 3)
	f.Add([]byte("\n"), 0)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 0 || max > 64 {
			return
		}
		r := NewSize("f", bytes.NewReader(in), max)
		var joined []byte
		for {
			l, complete, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				var tl *TooLongError
				if !errors.As(err, &tl) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(l) > max {
				t.Fatalf("line of %d bytes past the cap %d", len(l), max)
			}
			joined = append(joined, l...)
			if complete {
				joined = append(joined, '\n')
			}
		}
		if !bytes.Equal(joined, in) {
			t.Fatalf("lines do not rebuild the input: %q vs %q", joined, in)
		}
	})
}

// reference is what Next must give for in: its lines, split at each newline, until the
// first one over max, which is line n's TooLongError.
func reference(in []byte, max int) []got {
	var out []got
	for n := 1; len(in) > 0; n++ {
		line, rest, complete := bytes.Cut(in, []byte("\n"))
		if len(line) > max {
			return append(out, got{err: (&TooLongError{Name: "f", Line: n, Max: max}).Error()})
		}
		out, in = append(out, got{line: string(line), complete: complete}), rest
	}
	return out
}

// FuzzNextBuffered: lines that fit in the read buffer (given in place) and lines that
// do not (gathered) are the reference's, whatever the buffer's size and however the
// input arrives; appending to a line given in place does not write over the next.
func FuzzNextBuffered(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), 10, 16, false)
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz\nshort\n"), 100, 16, false)
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz\nshort\n"), 20, 16, true)
	f.Add([]byte("\n\n\n"), 0, 16, false)
	f.Fuzz(func(t *testing.T, in []byte, max, size int, oneByte bool) {
		if max < 0 || max > 1<<12 || size < 16 || size > 1<<12 {
			return
		}
		var src io.Reader = bytes.NewReader(in)
		if oneByte {
			src = iotest.OneByteReader(src)
		}
		r := newBuffered("f", src, max, size)
		var g []got
		for {
			l, c, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				g = append(g, got{err: err.Error()})
				if _, _, again := r.Next(); again != err {
					t.Fatalf("after %v, read on: %v", err, again)
				}
				break
			}
			g = append(g, got{line: string(l), complete: c})
			_ = append(l, "overwrite"...)
		}
		if want := reference(in, max); fmt.Sprint(g) != fmt.Sprint(want) {
			t.Fatalf("%q, max %d, buffer %d: got %+v, want %+v", in, max, size, g, want)
		}
	})
}

func TestBoundQuotes(t *testing.T) {
	long := strings.Repeat("T", 300)
	tests := []struct{ in, want string }{
		{`unknown type "short": want "A"`, `unknown type "short": want "A"`},
		{`unknown type "` + long + `": want "A" or "B"`, `unknown type "` + long[:120] + `"…(300 bytes): want "A" or "B"`},
		{`two: "` + long + `" and "` + long + `"`, `two: "` + long[:120] + `"…(300 bytes) and "` + long[:120] + `"…(300 bytes)`},
		{`unterminated "` + long, `unterminated "` + long},
	}
	for _, tc := range tests {
		if got := BoundQuotes(tc.in); got != tc.want {
			t.Errorf("BoundQuotes(%.40s…)\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func FuzzBoundQuotes(f *testing.F) {
	f.Add(`x "` + strings.Repeat("a", 200) + `" y`)
	f.Add(`"\"`)
	f.Fuzz(func(t *testing.T, msg string) {
		got := BoundQuotes(msg)
		// An excerpt re-quotes at most MaxExcerpt bytes (each at most 4 when escaped)
		// and names the length; text outside quotes is kept as it is.
		if limit := len(msg) + strings.Count(msg, `"`)*(4*MaxExcerpt+32); len(got) > limit {
			t.Fatalf("grew from %d to %d bytes", len(msg), len(got))
		}
		if !strings.Contains(msg, `"`) && got != msg {
			t.Fatalf("changed a message without quotes: %q", got)
		}
	})
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: the cut backs off to its start
		{"€uro", 2, "…"},
		{"€uro", 3, "€…"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
