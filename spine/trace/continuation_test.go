package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// continueWith writes the first keep lines of rec as a continued run would (each event
// decoded from its line and encoded again), then a resumed line, then the rest of
// rec's events renumbered after it.
func continueWith(t *testing.T, c *Continuation, keep int, rec []Event) ([]byte, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "continued.jsonl")
	sink, err := c.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := range keep {
		if werr = sink.Write(&rec[i]); werr != nil {
			break
		}
	}
	if werr == nil {
		line, seq := keep, rec[keep-1].Seq
		werr = sink.Write(&Event{Seq: seq + 1, Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), Kind: KindResumed,
			Body: Resumed{Mode: "resume", From: c.Name, Line: line, FromSeq: seq, Head: rec[keep-1].H, Stopped: c.Stopped()}})
	}
	for i := keep; werr == nil && i < len(rec); i++ {
		e := rec[i]
		e.Seq++
		werr = sink.Write(&e)
	}
	if err := sink.Close(); err != nil && werr == nil {
		werr = err
	}
	out, _ := os.ReadFile(path)
	return out, werr
}

// TestContinuation opens every engine trace, whole and cut, and continues it: the new
// trace's first lines are the recording's, its chain holds through the resumed line,
// and the resumed line reads back.
func TestContinuation(t *testing.T) {
	for _, path := range engineTraces(t) {
		data, _ := os.ReadFile(path)
		h, _ := ReadFile(path)
		if hd, _ := h.Header(); hd.Format != Format {
			continue // unchained goldens: refused below
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			c, err := OpenContinuation(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.Join(c.Lines, nil), data) || c.Dropped() != "" {
				t.Fatalf("kept lines are not the file (dropped: %q)", c.Dropped())
			}
			if _, ok := c.Halt(); ok != strings.HasPrefix(c.Stopped(), "halted: ") {
				t.Errorf("Stopped %q", c.Stopped())
			}
			events := c.File.Events
			for _, keep := range []int{1, len(events) / 2, len(events)} {
				out, err := continueWith(t, c, keep, events)
				if err != nil {
					t.Fatalf("keep %d: %v", keep, err)
				}
				lines := bytes.SplitAfter(out, []byte("\n"))
				if !bytes.Equal(bytes.Join(lines[:keep], nil), bytes.Join(c.Lines[:keep], nil)) {
					t.Fatalf("keep %d: the first lines are not the recording's", keep)
				}
				rep, err := VerifyChain(bytes.NewReader(out))
				if err != nil || rep.Lines != len(events)+1 {
					t.Fatalf("keep %d: chain of the continued trace: %v, %v", keep, rep, err)
				}
				f, err := Read("continued", bytes.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				r, ok := As[Resumed](&f.Events[keep])
				if !ok || r.Line != keep || r.FromSeq != events[keep-1].Seq || r.Head != events[keep-1].H {
					t.Fatalf("keep %d: resumed line %+v", keep, f.Events[keep])
				}
			}
		})
	}
}

func TestContinuationCut(t *testing.T) {
	path := "../../fixtures/ggs/change_path_then_success.trace.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// Cut mid-line: the torn line is dropped and said so.
	torn := append(bytes.Join(lines[:12], nil), lines[12][:40]...)
	c, err := OpenContinuation(write("torn.jsonl", torn))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Last(); n != 12 || c.Torn == nil || !strings.Contains(c.Dropped(), "dropped the torn last line 13 (40 bytes)") {
		t.Fatalf("torn: last %d, dropped %q", n, c.Dropped())
	}
	if !strings.Contains(c.Stopped(), "the writer stopped mid-line 13, after line 12 (seq 12)") {
		t.Errorf("Stopped: %q", c.Stopped())
	}
	// Cut at a line boundary: nothing dropped, no halt.
	c, err = OpenContinuation(write("cut.jsonl", bytes.Join(lines[:12], nil)))
	if err != nil || c.Dropped() != "" || c.Stopped() != "the trace ends at line 12 (seq 12) without the run's halt" {
		t.Fatalf("cut: %v, %q, %q", err, c.Dropped(), c.Stopped())
	}
	// The last event without its newline is whole, and kept with one.
	c, err = OpenContinuation(write("nonl.jsonl", bytes.TrimSuffix(bytes.Join(lines[:12], nil), []byte("\n"))))
	if err != nil || len(c.Lines) != 12 || !bytes.Equal(bytes.Join(c.Lines, nil), bytes.Join(lines[:12], nil)) {
		t.Fatalf("no newline: %v, %d lines", err, len(c.Lines))
	}

	// A departure before the resumed line stops the sink; the lines before it are on file.
	c, _ = OpenContinuation(path)
	events := append([]Event(nil), c.File.Events...)
	events[5].Time = events[5].Time.Add(time.Millisecond)
	out, err := continueWith(t, c, 8, events)
	if pe, ok := errors.AsType[*PrefixError](err); !ok || pe.Line != 6 {
		t.Fatalf("departed continuation: %v", err)
	}
	if !bytes.Equal(out, bytes.Join(lines[:5], nil)) {
		t.Fatalf("after a departure the file holds:\n%s", out)
	}

	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"edited", bytes.Replace(data, []byte(`"iteration":1`), []byte(`"iteration":7`), 1), "the hash chain breaks at line"},
		{"unchained", UnchainedTrace(data), "has no hash chain to continue"},
		{"empty", nil, "the file is empty"},
	} {
		if _, err := OpenContinuation(write(tc.name, tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want …%s…", tc.name, err, tc.want)
		}
	}
}
