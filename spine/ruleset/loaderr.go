package ruleset

import (
	"fmt"
	"strings"
)

// LoadError is one problem found in a file spine loads, located at the YAML node (or the
// character inside an expression) that caused it: a rule file, or one of the files that
// go with it (package analysis's domains and expectations files). It is the project's
// one positioned error, and Snippet its one rendering of the place.
type LoadError struct {
	File    string // as given to the loader
	Line    int    // 1-based
	Col     int    // 1-based, in characters
	Rule    string // the rule the problem belongs to, "" for file-level problems and other files
	Msg     string
	Snippet string // the offending line and a caret under Col; "" when unknown
}

func (e *LoadError) Error() string {
	s := fmt.Sprintf("%s:%d:%d: ", e.File, e.Line, e.Col)
	if e.Rule != "" {
		s += fmt.Sprintf("rule %q: ", e.Rule)
	}
	s += e.Msg
	if e.Snippet != "" {
		s += "\n" + e.Snippet
	}
	return s
}

// LoadErrors is every problem found in one file, in file order. A file with problems is
// never partly loaded.
type LoadErrors []*LoadError

func (es LoadErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Snippet renders line (1-based) of a file's lines behind a gutter holding the line
// number right aligned in five columns, then a second line with a caret under col
// (1-based, in characters; one past the line's end at most), for example (line 10000,
// column 19):
//
//	10000 |     when: signals.gard > 1
//	      |                   ^
//
// It returns "" for a line the file does not have.
func Snippet(lines []string, line, col int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	text := strings.ReplaceAll(lines[line-1], "\t", " ")
	gutter := fmt.Sprintf("%5d | ", line)
	pad := strings.Repeat(" ", len(gutter)-2) + "| "
	col = min(max(col, 1), len([]rune(text))+1)
	return gutter + text + "\n" + pad + strings.Repeat(" ", col-1) + "^"
}
