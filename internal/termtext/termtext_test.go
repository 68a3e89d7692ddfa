package termtext

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// cases: input, its Line form, its Block form.
var cases = []struct {
	name, in, line, block string
}{
	{"plain", "read_file a.go · exit 0 → ok", "read_file a.go · exit 0 → ok", "read_file a.go · exit 0 → ok"},
	{"empty", "", "", ""},
	{"newline and tab", "a\tb\nc", `a\tb\nc`, "a\tb\nc"},
	{"crlf", "a\r\nb", `a\r\nb`, "a\\r\nb"},
	{"fake line by cr", "ok\rFAILED", `ok\rFAILED`, `ok\rFAILED`},
	{"window title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
	{"osc 52 clipboard", "\x1b]52;c;cm0gLXJmIH4K\x07", `\x1b]52;c;cm0gLXJmIH4K\x07`, `\x1b]52;c;cm0gLXJmIH4K\x07`},
	{"osc with st", "\x1b]8;;http://x\x1b\\link", `\x1b]8;;http://x\x1b\link`, `\x1b]8;;http://x\x1b\link`},
	{"csi clear", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
	{"cursor up and erase", "\x1b[1A\x1b[2K", `\x1b[1A\x1b[2K`, `\x1b[1A\x1b[2K`},
	{"c1 csi as a byte", "a\x9b2Jb", `a\x9b2Jb`, `a\x9b2Jb`},
	{"c1 csi as a rune", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
	{"c1 osc and st as runes", "\u009d0;t\u009c", `\u009d0;t\u009c`, `\u009d0;t\u009c`},
	{"nel", "a\u0085b", `a\u0085b`, `a\u0085b`},
	{"nul bel bs del", "\x00\x07\x08\x7f", `\x00\x07\x08\x7f`, `\x00\x07\x08\x7f`},
	{"vt ff", "\v\f", `\x0b\x0c`, `\x0b\x0c`},
	{"invalid utf-8", "ok\xff\xfe\xc3(", `ok\xff\xfe\xc3(`, `ok\xff\xfe\xc3(`},
	{"truncated rune", "caf\xc3", `caf\xc3`, `caf\xc3`},
	{"surrogate bytes", "\xed\xa0\x80", `\xed\xa0\x80`, `\xed\xa0\x80`},
	{"valid replacement char", "a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
	{"bidi override", "if a \u202e} {\u202c", `if a \u202e} {\u202c`, `if a \u202e} {\u202c`},
	{"bidi isolates", "\u2066x\u2069\u2067\u2068", `\u2066x\u2069\u2067\u2068`, `\u2066x\u2069\u2067\u2068`},
	{"lrm rlm alm", "\u200e\u200f\u061c", `\u200e\u200f\u061c`, `\u200e\u200f\u061c`},
	{"zero width", "pa\u200bss\u2060\ufeff", `pa\u200bss\u2060\ufeff`, `pa\u200bss\u2060\ufeff`},
	{"line separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
	{"tag character", "x\U000E0041", `x\U000e0041`, `x\U000e0041`},
	{"backslash passes", `C:\new\x1b`, `C:\new\x1b`, `C:\new\x1b`},
	{"json body", `{"a":"b\nc"}`, `{"a":"b\nc"}`, `{"a":"b\nc"}`},
	{"non-latin and emoji", "日本語 ✓ 🙂 é", "日本語 ✓ 🙂 é", "日本語 ✓ 🙂 é"},
	{"file name with newline", "notes.txt\nsecrets.txt", `notes.txt\nsecrets.txt`, "notes.txt\nsecrets.txt"},
}

func TestEscape(t *testing.T) {
	for _, c := range cases {
		if got := Line(c.in); got != c.line {
			t.Errorf("%s: Line(%q) = %q, want %q", c.name, c.in, got, c.line)
		}
		if got := LineBytes([]byte(c.in)); got != c.line {
			t.Errorf("%s: LineBytes(%q) = %q, want %q", c.name, c.in, got, c.line)
		}
		if got := Block(c.in); got != c.block {
			t.Errorf("%s: Block(%q) = %q, want %q", c.name, c.in, got, c.block)
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		// One byte a Write: every character arrives split.
		for i := range len(c.in) {
			if _, err := w.Write([]byte{c.in[i]}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.block {
			t.Errorf("%s: Writer byte by byte wrote %q, want %q", c.name, b.String(), c.block)
		}
	}
}

func TestWriterHoldsASplitCharacter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	rune3 := "→" // three bytes
	for _, p := range []string{"a" + rune3[:1], rune3[1:2], rune3[2:] + "\x1b[2J\n"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if got, want := b.String(), "a→\\x1b[2J\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	// A start that nothing completes is escaped at Flush.
	b.Reset()
	_, _ = w.Write([]byte("x\xe2\x80"))
	if b.String() != "x" {
		t.Errorf("before Flush: %q, want the partial character held", b.String())
	}
	_ = w.Flush()
	if got, want := b.String(), `x\xe2\x80`; got != want {
		t.Errorf("after Flush: %q, want %q", got, want)
	}
}

// safeOutput checks what every output of the package must be.
func safeOutput(t *testing.T, mode, in, out string, block bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: not valid UTF-8", mode, in, out)
	}
	for _, r := range out {
		switch {
		case r == '\n' || r == '\t':
			if !block {
				t.Fatalf("%s(%q) = %q holds %q", mode, in, out, r)
			}
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || hidden(r):
			t.Fatalf("%s(%q) = %q holds %U", mode, in, out, r)
		}
	}
}

// unescape reverses Line for text that held no backslash.
func unescape(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		var width int
		switch s[i+1] {
		case 'n', 'r', 't':
			b.WriteByte(map[byte]byte{'n': '\n', 'r': '\r', 't': '\t'}[s[i+1]])
			i += 2
			continue
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		default:
			t.Fatalf("unknown escape in %q at %d", s, i)
		}
		v, err := strconv.ParseUint(s[i+2:i+2+width], 16, 32)
		if err != nil {
			t.Fatalf("bad escape in %q at %d: %v", s, i, err)
		}
		if width == 2 {
			b.WriteByte(byte(v))
		} else {
			b.WriteRune(rune(v))
		}
		i += 2 + width
	}
	return b.String()
}

func FuzzEscape(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c.in), 1)
	}
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		s := string(in)
		line, block := Line(s), Block(s)
		safeOutput(t, "Line", s, line, false)
		safeOutput(t, "Block", s, block, true)
		// Escaping what is already escaped changes nothing.
		if Line(line) != line || Block(block) != block || Line(block) != line {
			t.Fatalf("not idempotent on %q", s)
		}
		if !strings.Contains(s, `\`) {
			if back := unescape(t, line); back != s {
				t.Fatalf("Line(%q) = %q reads back as %q", s, line, back)
			}
		}
		// The Writer gives Block's output however the input is split.
		var b bytes.Buffer
		w := NewWriter(&b)
		if len(in) > 0 {
			cut = min(max(cut, 0), len(in))
			_, _ = w.Write(in[:cut])
			_, _ = w.Write(in[cut:])
		}
		_ = w.Flush()
		if b.String() != block {
			t.Fatalf("Writer split at %d wrote %q, Block gives %q", cut, b.String(), block)
		}
	})
}

func BenchmarkLinePlain(b *testing.B) {
	s := strings.Repeat("exchange  tool:read_file src/main.go · exit 0 · 3ms → ", 4)
	for b.Loop() {
		_ = Line(s)
	}
}
