package analysis

import (
	"fmt"
	"sort"
	"strings"
)

// FileError is one problem in a domains or expectations file, located at the YAML node
// that caused it.
type FileError struct {
	File    string
	Line    int // 1-based
	Col     int // 1-based
	Msg     string
	Snippet string // the offending line with a caret under Col; "" when unknown
}

func (e *FileError) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	if e.Snippet != "" {
		s += "\n" + e.Snippet
	}
	return s
}

// FileErrors is every problem found in one file, in file order.
type FileErrors []*FileError

func (es FileErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// errList collects located errors for one file.
type errList struct {
	file  string
	lines []string
	errs  FileErrors
}

func newErrList(file string, src []byte) *errList {
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return &errList{file: file, lines: lines}
}

func (l *errList) add(line, col int, format string, args ...any) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	l.errs = append(l.errs, &FileError{File: l.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Snippet: snippet(l.lines, line, col)})
}

// err returns the collected errors sorted by position, or nil.
func (l *errList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	sort.SliceStable(l.errs, func(i, j int) bool {
		a, b := l.errs[i], l.errs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return l.errs
}

// snippet renders a line behind a five-column line-number gutter and a caret under col,
// in the layout spine uses for rule-file errors.
func snippet(lines []string, line, col int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	text := strings.ReplaceAll(lines[line-1], "\t", " ")
	gutter := fmt.Sprintf("%5d | ", line)
	pad := strings.Repeat(" ", len(gutter)-2) + "| "
	if n := len([]rune(text)); col > n+1 {
		col = n + 1
	}
	return gutter + text + "\n" + pad + strings.Repeat(" ", col-1) + "^"
}
