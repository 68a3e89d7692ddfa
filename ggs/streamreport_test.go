package ggs

import (
	"errors"
	"strings"
	"testing"
)

// TestBoundCheck: a negative count is refused, named as its flag.
func TestBoundCheck(t *testing.T) {
	if err := (Bound{MaxOpen: 0, IdleLines: 3}).Check(); err != nil {
		t.Fatal(err)
	}
	err := (Bound{IdleLines: -2}).Check()
	if err == nil || err.Error() != "idle-lines -2: want a count ≥ 0 (0: no limit)" {
		t.Fatalf("got %v", err)
	}
}

// TestStreamReport: bad lines are counted and said with their number; evictions say why,
// as text or as JSON lines, with the bound's numbers.
func TestStreamReport(t *testing.T) {
	var text, raw strings.Builder
	r := &StreamReport{Text: &text, Raw: &raw, Bound: Bound{MaxOpen: 2, IdleLines: 5, MaxEvicted: 1}}
	h := r.Hooks()
	h.Bad(3, errors.New("not JSON"))
	h.Evicted(Eviction{Line: 4, TaskID: "t1", Reason: EvictedIdle})
	h.Evicted(Eviction{Line: 9, TaskID: "t1", Reason: EvictionForgotten, EvictedAt: 4})
	want := "line 3: not JSON\n" +
		"line 4: evicted task \"t1\": no message for it in 5 lines (--idle-lines); a later message for it is refused\n" +
		"line 9: forgot evicted task \"t1\" (evicted after line 4): more than 1 evicted tasks remembered (--max-evicted-tasks); a later message for it starts a new task\n"
	if r.BadLines != 1 || text.String() != want || raw.Len() != 0 {
		t.Errorf("bad %d, text:\n%s\nraw %q", r.BadLines, text.String(), raw.String())
	}
	text.Reset()
	r.JSON = true
	h.Bad(7, errors.New("x"))
	h.Evicted(Eviction{Line: 8, TaskID: "t2", Reason: EvictedLRU})
	wantRaw := `{"line":7,"error":"x"}` + "\n" +
		`{"line":8,"evicted":"t2","reason":"more than 2 tasks open (--max-open-tasks), and it was the least recently used; a later message for it is refused"}` + "\n"
	if raw.String() != wantRaw || text.Len() != 0 {
		t.Errorf("raw:\n%s\ntext %q", raw.String(), text.String())
	}
}
