package trace

import "fmt"

// Cut is a trace cut short by a write error (a full disk): the last complete line on the
// file and the error that stopped the sink there (FileSink.Written), as a run reports it.
type Cut struct {
	Lines int    `json:"lines"`
	Head  string `json:"head,omitempty"`
	Error string `json:"error"`
}

// CutAt is the Cut of a trace whose last complete line is m, stopped by err; nil when err
// is nil, every line having reached the file.
func CutAt(m Mark, err error) *Cut {
	if err == nil {
		return nil
	}
	return &Cut{Lines: m.Line, Head: m.Head, Error: err.Error()}
}

// Where says where the cut file ends, for a reader to check it against the file.
func (c *Cut) Where() string {
	if c.Lines == 0 {
		return "no line reached the file"
	}
	return fmt.Sprintf("its last complete line is line %d, whose hash is %s", c.Lines, c.Head)
}
