package analysis

import (
	"fmt"
	"sort"

	"github.com/agentspine/spine/spine/ruleset"
)

// errList collects the located errors of one domains or expectations file, in the
// project's one positioned error (ruleset.LoadError).
type errList struct {
	file  string
	lines []string
	errs  ruleset.LoadErrors
}

func newErrList(file string, src []byte) *errList {
	return &errList{file: file, lines: ruleset.SourceLines(src)}
}

func (l *errList) add(line, col int, format string, args ...any) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	l.errs = append(l.errs, &ruleset.LoadError{File: l.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Snippet: ruleset.Snippet(l.lines, line, col)})
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
