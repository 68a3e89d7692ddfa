package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/linecap"
)

func addFixtureSeeds(f *testing.F) {
	for _, path := range engineTraces(f) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(UnchainedTrace(b))
	}
	for _, k := range everyKind {
		f.Add([]byte(k.line + "\n"))
	}
	f.Add([]byte(`{"seq":1,"t":"x","kind":"header","format":"spine-trace/2","h":"00000000000000000000000000000000"}` + "\n{}"))
	f.Add([]byte("null\n[1]\n\"h\"\n"))
}

// FuzzDecode: any input gives events or an error naming a line within the input,
// quoting a bounded excerpt, never a panic; every event of a known kind has its body
// type, seqs increase, and a decoded body encodes to a fixed point (decoding what it
// encodes to and encoding again gives the same bytes).
func FuzzDecode(f *testing.F) {
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read("f.jsonl", bytes.NewReader(data))
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			var te *Error
			var tl *linecap.TooLongError
			switch {
			case errors.As(err, &te):
				if te.Line < 1 || te.Line > lines || te.File != "f.jsonl" {
					t.Fatalf("error at line %d of %d: %v", te.Line, lines, err)
				}
			case errors.As(err, &tl):
			default:
				t.Fatalf("error of type %T: %v", err, err)
			}
			if n := len(err.Error()); n > 4*linecap.MaxExcerpt+400 {
				t.Fatalf("error of %d bytes: %.300s", n, err)
			}
		}
		var prev int64
		for i := range file.Events {
			e := &file.Events[i]
			if e.Seq <= prev || e.Line < 1 || e.Line > lines {
				t.Fatalf("event %d: seq %d after %d, line %d of %d", i, e.Seq, prev, e.Line, lines)
			}
			prev = e.Seq
			raw, isRaw := e.Body.(json.RawMessage)
			if _, known := DecodeBodyKinds[e.Kind]; known == isRaw {
				t.Fatalf("line %d: kind %s decoded as %T", e.Line, e.Kind, e.Body)
			}
			if isRaw {
				if !bytes.Equal(raw, e.Raw) {
					t.Fatalf("line %d: an unknown kind's body is not its line", e.Line)
				}
				continue
			}
			once, err := (&Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: e.Body}).AppendJSON(nil)
			if err != nil {
				t.Fatalf("line %d: encoding a decoded body: %v", e.Line, err)
			}
			body, err := DecodeBody(e.Kind, once)
			if err != nil {
				t.Fatalf("line %d: decoding what was encoded: %v\n%s", e.Line, err, once)
			}
			twice, err := (&Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: body}).AppendJSON(nil)
			if err != nil || !bytes.Equal(once, twice) {
				t.Fatalf("line %d: not a fixed point:\n%s\n%s (%v)", e.Line, once, twice, err)
			}
		}
	})
}

// FuzzVerifyChain: any input gives a report or a *ChainError, never a panic; a break is
// within the lines read; and what SealTrace seals never fails on a hash.
func FuzzVerifyChain(f *testing.F) {
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := VerifyChain(bytes.NewReader(data))
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			var ce *ChainError
			var tl *linecap.TooLongError
			if !errors.As(err, &ce) && !errors.As(err, &tl) {
				t.Fatalf("not a *ChainError: %v", err)
			}
			if ce != nil && (ce.Line < 1 || ce.Line > lines) {
				t.Fatalf("break at line %d of %d: %v", ce.Line, lines, err)
			}
		}
		if rep.Lines > lines {
			t.Fatalf("report counts %d lines of %d", rep.Lines, lines)
		}
		sealed, serr := SealTrace(data)
		if serr != nil {
			return
		}
		if _, err := VerifyChain(bytes.NewReader(sealed)); err != nil {
			for _, bad := range []string{"does not chain", "follows seq", "does not follow", "h is", "h \"", "missing h"} {
				if strings.Contains(err.Error(), bad) {
					t.Fatalf("a sealed trace fails on its hashes: %v\n%s", err, sealed)
				}
			}
		}
	})
}
