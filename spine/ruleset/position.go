package ruleset

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// scalarMap maps character offsets inside a YAML scalar's value back to file positions,
// so that an error at column c of a multi-line `when` points at the right line and column
// of the rule file.
type scalarMap struct {
	segs []segment
	line int // fallback: the node's own position
	col  int
}

type segment struct{ start, line, col int } // value rune offset → file line, column (1-based)

func newScalarMap(lines []string, n *yaml.Node) scalarMap {
	m := scalarMap{line: n.Line, col: n.Column}
	val := []rune(n.Value)
	pos := 0
	block := n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle
	quoted := n.Style == yaml.DoubleQuotedStyle || n.Style == yaml.SingleQuotedStyle
	first, col0 := n.Line, n.Column
	if block {
		first, col0 = n.Line+1, 0 // the value starts on the line after the indicator
	} else if quoted {
		col0++ // after the opening quote
	}
	indent := -1
	for ln := first; ln <= len(lines) && pos <= len(val); ln++ {
		raw := []rune(lines[ln-1])
		start := 0
		switch {
		case ln == first && col0 > 0:
			start = col0 - 1
		case block:
			lead := leadingSpaces(lines[ln-1])
			if lead == len(raw) { // blank line inside a block scalar
				if pos < len(val) && val[pos] == '\n' {
					pos++
				}
				continue
			}
			if indent < 0 {
				indent = lead
			}
			if lead < indent {
				return m // the block ended
			}
			start = indent
		default:
			start = leadingSpaces(lines[ln-1])
		}
		if start > len(raw) {
			return m
		}
		text := raw[start:]
		if quoted {
			text = []rune(strings.TrimRight(string(text), " "))
			if len(text) > 0 && (text[len(text)-1] == '"' || text[len(text)-1] == '\'') && pos+len(text) > len(val) {
				text = text[:len(text)-1]
			}
		}
		if !hasRunePrefix(val[pos:], text) {
			text = []rune(strings.TrimRight(string(text), " "))
			if !hasRunePrefix(val[pos:], text) {
				if hasRunePrefix(text, val[pos:]) {
					// The value ends on this line, before what closes it (a
					// quote, then } or , in a flow mapping).
					m.segs = append(m.segs, segment{start: pos, line: ln, col: start + 1})
				}
				return m
			}
		}
		m.segs = append(m.segs, segment{start: pos, line: ln, col: start + 1})
		pos += len(text)
		if pos >= len(val) {
			return m
		}
		if val[pos] == '\n' || val[pos] == ' ' {
			pos++
		}
	}
	return m
}

// at returns the file line and column of value offset off.
func (m scalarMap) at(off int) (int, int) {
	for i := len(m.segs) - 1; i >= 0; i-- {
		if s := m.segs[i]; s.start <= off {
			return s.line, s.col + off - s.start
		}
	}
	return m.line, m.col
}

// leadingSpaces counts the blanks (spaces and tabs) a line starts with.
func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

func hasRunePrefix(s, prefix []rune) bool {
	return len(prefix) <= len(s) && slices.Equal(s[:len(prefix)], prefix)
}
