package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSinkRefusesALineOverTheReadersCap: the writer keeps to the readers' cap exactly.
// A line of MaxLine bytes is written and read back; one byte more is refused, nothing
// of it is written, and the next line chains on from the last one written, so the trace
// still reads and verifies whole.
func TestSinkRefusesALineOverTheReadersCap(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	exchange := func(seq int64, pad int) *Event {
		req, _ := json.Marshal(strings.Repeat("x", pad))
		return &Event{Seq: seq, Time: at, Kind: KindExchange, Body: Exchange{Name: "tool:shell", Request: req}}
	}
	// The length of a chained exchange line with no padding, to size the padding exactly.
	var probe MemorySink
	if err := probe.Write(exchange(1, 0)); err != nil {
		t.Fatal(err)
	}
	base := len(probe.Bytes()) - 1

	var s MemorySink
	for _, e := range []*Event{
		{Seq: 1, Time: at, Kind: KindHeader, Body: Header{Format: Format, Run: "r"}},
		exchange(2, MaxLine-base),
	} {
		if err := s.Write(e); err != nil {
			t.Fatalf("seq %d: %v", e.Seq, err)
		}
	}
	before := s.Bytes()
	err := s.Write(exchange(3, MaxLine-base+1))
	var tl *LineTooLongError
	if !errors.As(err, &tl) || tl.Size != MaxLine+1 || tl.Max != MaxLine || tl.Seq != 3 || tl.Kind != KindExchange {
		t.Fatalf("a line of MaxLine+1 bytes: got %v, want a LineTooLongError of %d bytes", err, MaxLine+1)
	}
	if !bytes.Equal(s.Bytes(), before) {
		t.Fatal("the refused line was written, in part or whole")
	}
	if err := s.Write(&Event{Seq: 4, Time: at, Kind: KindHalt, Body: Halt{Run: "r", Outcome: "done"}}); err != nil {
		t.Fatal(err)
	}
	trace := s.Bytes()
	lines := bytes.Split(bytes.TrimSuffix(trace, []byte("\n")), []byte("\n"))
	if got := len(lines[1]); got != MaxLine {
		t.Fatalf("the longest line written is %d bytes, want exactly %d", got, MaxLine)
	}
	f, err := Read("big.jsonl", bytes.NewReader(trace))
	if err != nil || len(f.Events) != 3 {
		t.Fatalf("reading the trace back: %d events, %v", len(f.Events), err)
	}
	if rep, err := VerifyChain(bytes.NewReader(trace)); err != nil || rep.Lines != 3 {
		t.Fatalf("chain: %+v, %v", rep, err)
	}
}
