package trace

import (
	"bytes"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// fullDisk takes room bytes and then fails as a full disk does: the write that
// crosses the limit is cut short with ENOSPC.
type fullDisk struct {
	bytes.Buffer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if d.Len()+len(p) <= d.room {
		return d.Buffer.Write(p)
	}
	n := d.room - d.Len()
	d.Buffer.Write(p[:n])
	return n, syscall.ENOSPC
}

// events is a header and n fact events, as a run writes them.
func events(n int) []Event {
	evs := []Event{{Seq: 1, Kind: KindHeader, Body: Header{Format: Format, Run: "r"}}}
	for i := 2; i <= n+1; i++ {
		evs = append(evs, Event{Seq: int64(i), Time: time.Unix(int64(i), 0).UTC(), Kind: "note", Body: map[string]int{"i": i}})
	}
	return evs
}

// TestFileSinkFullDisk: when the file stops taking bytes, the sink says which complete
// line the file ends with (what a host prints as the trace's head), that mark verifies
// against the bytes on the file, a torn line after it is tolerated, and every later
// write returns the same error instead of encoding more.
func TestFileSinkFullDisk(t *testing.T) {
	var whole MemorySink
	for _, e := range events(6) {
		if err := whole.Write(&e); err != nil {
			t.Fatal(err)
		}
	}
	full := whole.Bytes()
	lineEnds := []int{}
	for i, b := range full {
		if b == '\n' {
			lineEnds = append(lineEnds, i+1)
		}
	}
	rooms := []int{0, 10, lineEnds[0], lineEnds[0] + 1, lineEnds[2] - 1, lineEnds[2], lineEnds[5] + 3}
	for _, flushEach := range []bool{true, false} {
		for _, room := range rooms {
			t.Run(fmt.Sprintf("room=%d/flushEach=%v", room, flushEach), func(t *testing.T) {
				disk := &fullDisk{room: room}
				s := &FileSink{w: disk}
				var werr error
				for _, e := range events(6) {
					if werr = s.Write(&e); werr != nil {
						break
					}
					if flushEach {
						if werr = s.Flush(); werr != nil {
							break
						}
					}
				}
				if werr == nil {
					werr = s.Flush()
				}
				if !errors.Is(werr, syscall.ENOSPC) {
					t.Fatalf("write error: %v, want ENOSPC", werr)
				}
				mark, err := s.Written()
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("Written error: %v", err)
				}
				want := 0
				for _, end := range lineEnds {
					if end-1 <= disk.Len() { // the newline may be missing

						want++
					}
				}
				if mark.Line != want {
					t.Fatalf("mark at line %d, the file holds %d complete lines (%d bytes)", mark.Line, want, disk.Len())
				}
				if want := fmt.Sprintf("trace: writing line %d: %v", want+1, syscall.ENOSPC); werr.Error() != want {
					t.Errorf("error %q, want %q", werr, want)
				}
				rep, err := VerifyChain(bytes.NewReader(disk.Bytes()))
				if err != nil && disk.Len() > 0 {
					t.Fatalf("the bytes on the file do not verify: %v", err)
				}
				if rep.Lines != mark.Line || rep.Head != mark.Head || s.Head() != mark.Head {
					t.Fatalf("file verifies to %d lines, head %q; sink says line %d, head %q (Head %q)", rep.Lines, rep.Head, mark.Line, mark.Head, s.Head())
				}
				if end := lineEnds[max(mark.Line-1, 0)]; mark.Line > 0 && (disk.Len() < end-1 || disk.Len() > end) != (rep.Torn != nil) {
					t.Fatalf("torn line: file %d bytes, report %+v", disk.Len(), rep.Torn)
				}
				before := disk.Len()
				e := events(7)[7]
				if err := s.Write(&e); !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("write after the failure: %v", err)
				}
				if err := s.Flush(); !errors.Is(err, syscall.ENOSPC) || disk.Len() != before {
					t.Fatalf("flush after the failure: %v, file %d → %d bytes", err, before, disk.Len())
				}
			})
		}
	}
}

// TestFileSinkHeadIsWhatIsOnTheFile: buffered lines do not move the head; a flush does.
func TestFileSinkHeadIsWhatIsOnTheFile(t *testing.T) {
	var disk bytes.Buffer
	s := &FileSink{w: &disk}
	evs := events(2)
	for i := range evs[:2] {
		if err := s.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if m, _ := s.Written(); m != (Mark{}) || s.Head() != "" || disk.Len() != 0 {
		t.Fatalf("before a flush: mark %+v, head %q, %d bytes on the file", m, s.Head(), disk.Len())
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyChain(bytes.NewReader(disk.Bytes()))
	if m, _ := s.Written(); err != nil || m.Line != 2 || m.Head != rep.Head || s.Head() != rep.Head {
		t.Fatalf("after a flush: mark %+v, head %q; file %+v %v", m, s.Head(), rep, err)
	}
	if err := s.Write(&evs[2]); err != nil {
		t.Fatal(err)
	}
	if s.Head() != rep.Head {
		t.Fatalf("a buffered line moved the head to %q", s.Head())
	}
}
