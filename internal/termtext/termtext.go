// Package termtext makes text from outside — a model's reply, a tool's output, a file
// name, a trace, a task, a rule file quoted in an error — safe to print on a terminal.
// A terminal obeys what it is sent: ESC, CSI and OSC sequences retitle the window,
// write the clipboard (OSC 52), clear the screen or move the cursor, and a carriage
// return or a newline inside a field forges a line the program never printed. Text
// from outside is shown, never obeyed.
//
// The scheme, one for every printer:
//
//   - newline, carriage return and tab are shown as \n, \r and \t; every other C0
//     control (U+0000–U+001F) and DEL as \xHH (ESC as \x1b, BEL as \x07);
//   - a byte that is not part of valid UTF-8 as \xHH, so a C1 control sent as a bare
//     byte (0x9b, the one-byte CSI) is \x9b;
//   - the C1 controls as runes (U+0080–U+009F), the format characters (Unicode category
//     Cf: the bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 of
//     "Trojan Source", LRM and RLM, zero-width space and joiners, word joiner, BOM, the
//     tag characters…) and the line and paragraph separators U+2028 and U+2029 as \uXXXX,
//     or \UXXXXXXXX above U+FFFF. These reorder or hide what a reader sees, or break a
//     line where the terminal's reader does not expect one. The price is that an emoji
//     joined with U+200D shows its joiner: what is printed is for checking, not for show.
//
// Line keeps a field on one line: all of the above is escaped. Block is for text that is
// printed as lines (a failure report, a rule-file excerpt, a JSON body laid out over
// lines): newline and tab pass, nothing else does. Writer applies Block to a stream: the
// CLI writes everything meant for a person through one, so that no control byte can
// reach the terminal whatever a printer forgets.
//
// Every other character, backslash included, passes unchanged: the output of both modes
// is valid UTF-8 with no control characters, and escaping is reversible for text that
// holds no backslash. Text that already holds "\x1b" as four characters looks the same as
// text that held an ESC; escaping backslashes too would double every one in the JSON
// that trace displays quote, and a look-alike is harmless where an ESC is not.
//
// It must not be used for output meant for programs — --json, a trace, an HTML page, an
// export — which keep their bytes exact (JSON escapes controls itself). It must stay a
// leaf: the standard library only, no I/O of its own beyond the Writer it is given.
package termtext

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of terminal text: no control character, newline or
// invisible format character is left raw.
func Line(s string) string { return escape(s, false) }

// Printf writes one line of display: the formatted text, in which nothing a value
// brings (a newline in a model's summary, a carriage return in a file name, an escape
// sequence) can start another line or reach the terminal raw, then a newline. The
// format itself must be one line.
func Printf(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, Line(fmt.Sprintf(format, a...)))
}

// Block returns s as terminal text that may span lines: newline and tab pass, every
// other control, invalid byte and format character is escaped as by Line.
func Block(s string) string { return escape(s, true) }

// LineBytes is Line for a byte slice.
func LineBytes(b []byte) string { return escape(string(b), false) }

func escape(s string, block bool) string {
	i := safePrefix(s, block)
	if i == len(s) {
		return s
	}
	out := make([]byte, 0, len(s)+16)
	out = append(out, s[:i]...)
	return string(appendEscaped(out, s[i:], block))
}

// safePrefix is the length of the longest prefix of s that prints as it is.
func safePrefix(s string, block bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !safeASCII(c, block) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || hidden(r) {
			return i
		}
		i += n
	}
	return len(s)
}

// appendEscaped appends s to dst with every character that must not reach a terminal
// raw written as an escape.
func appendEscaped(dst []byte, s string, block bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case safeASCII(c, block):
				dst = append(dst, c)
			case c == '\n':
				dst = append(dst, `\n`...)
			case c == '\r':
				dst = append(dst, `\r`...)
			case c == '\t':
				dst = append(dst, `\t`...)
			default:
				dst = appendHex(dst, `\x`, rune(c), 2)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = appendHex(dst, `\x`, rune(c), 2)
		case !hidden(r):
			dst = append(dst, s[i:i+n]...)
		case r > 0xFFFF:
			dst = appendHex(dst, `\U`, r, 8)
		default:
			dst = appendHex(dst, `\u`, r, 4)
		}
		i += n
	}
	return dst
}

// safeASCII reports whether an ASCII byte prints as itself: the printable characters,
// and in a block newline and tab.
func safeASCII(c byte, block bool) bool {
	return c >= 0x20 && c < 0x7f || block && (c == '\n' || c == '\t')
}

// hidden reports whether a non-ASCII rune is one a terminal obeys or a reader cannot
// see: a C1 control, a format character, a line or paragraph separator.
func hidden(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// appendHex appends prefix and r as exactly digits lower-case hex digits.
func appendHex(dst []byte, prefix string, r rune, digits int) []byte {
	dst = append(dst, prefix...)
	h := strconv.FormatInt(int64(r), 16)
	for range digits - len(h) {
		dst = append(dst, '0')
	}
	return append(dst, h...)
}

// OneLine folds text onto one escaped line of at most n characters: runs of white space
// become one space, what a terminal would obey is escaped, and a longer line is cut with
// "…".
func OneLine(text string, n int) string {
	r := []rune(Line(strings.Join(strings.Fields(text), " ")))
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}

// ShortID keeps a long random ID readable on a line: its first 8 characters when it is
// longer than 12.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:8]
	}
	return id
}
