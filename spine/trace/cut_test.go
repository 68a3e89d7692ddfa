package trace

import (
	"errors"
	"testing"
)

// TestCutAt: no error is no cut; a cut says its last line and hash, or that none reached
// the file.
func TestCutAt(t *testing.T) {
	enospc := errors.New("no space left on device")
	if c := CutAt(Mark{Line: 9, Head: "ab"}, nil); c != nil {
		t.Errorf("a whole trace is cut: %+v", c)
	}
	c := CutAt(Mark{Line: 7, Head: "cd"}, enospc)
	if *c != (Cut{Lines: 7, Head: "cd", Error: enospc.Error()}) || c.Where() != "its last complete line is line 7, whose hash is cd" {
		t.Errorf("cut at line 7: %+v, %q", c, c.Where())
	}
	if w := CutAt(Mark{}, enospc).Where(); w != "no line reached the file" {
		t.Errorf("cut before the header: %q", w)
	}
}
