package ggs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
)

// goldenBadLines are spliced into the golden stream: each is refused with an error the
// golden file pins, or, where encoding/json accepts it, decided as any other line.
var goldenBadLines = []string{
	`{"type":"ReplanRequest","payload":{"task_id":"bad-1","colour":"red"}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-2"},"extra":1}`,
	`{"type":"ReplanRequest","payload":{"elapsed_ms":5}}`,
	`{"type":"OutcomeSummary","payload":{"summary":"x"}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-3","elapsed_ms":"soon"}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-4","elapsed_ms":1.5}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-5","outcomes":{"a":1}}}`,
	`{"type":"ReplanRequest","payload":[1,2]}`,
	`{"type":"ReplanRequest","payload":"text"}`,
	`{"type":"ReplanRequest","payload":null}`,
	`{"type":"ReplanRequest"}`,
	`{"payload":{"task_id":"bad-6"}}`,
	`{"type":"Megram","payload":{}}`,
	`{"type":7,"payload":{}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-7"}} {}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-8"`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-9",}}`,
	`not json`,
	`[]`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-10","elapsed_ms":-1}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-11","recommendation":"maybe"}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"bad-12","output":1e400}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"bad-13","elapsed_ms":99999999999999999999}}`,
	// encoding/json accepts these: keys in another case, a repeated key (the last wins),
	// the payload first, invalid UTF-8 and a lone surrogate (both become U+FFFD).
	`{"Type":"ReplanRequest","Payload":{"Task_ID":"ok-1","Elapsed_MS":1000}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"ok-2","task_id":"ok-3"}}`,
	`{"payload":{"task_id":"ok-4","elapsed_ms":2000},"type":"ReplanRequest"}`,
	"{\"type\":\"OutcomeSummary\",\"payload\":{\"task_id\":\"ok-5\",\"summary\":\"caf\xe9\",\"output\":\"\\ud800 \\u2028 <&>\"}}",
	`{"type":"OutcomeSummary","payload":{"task_id":"ok-6","output":{"b":[1.0,2.50,1e21,1e-7,-0,100000000000000000000000],"a":null}}}`,
	`  {"type":"OutcomeSummary","payload":{"task_id":"ok-7","output":null,"outcomes":null}}  `,
	``,
}

// goldenStream is a generated stream of tasks with goldenBadLines spliced in at fixed
// places.
func goldenStream(t testing.TB) []byte {
	var gen bytes.Buffer
	if _, err := genStream(&gen, 600, 7); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(gen.String(), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i%37 == 5 && i/37 < len(goldenBadLines) {
			b.WriteString(goldenBadLines[i/37] + "\n")
		}
		b.WriteString(l)
	}
	return []byte(b.String())
}

// TestFilterGolden runs the filter over a generated stream, with bad lines and a bound
// tight enough to evict, and compares its output with the golden file: the output's
// SHA-256 and size, and every error and eviction in full.
func TestFilterGolden(t *testing.T) {
	in := goldenStream(t)
	var out bytes.Buffer
	var notes []string
	err := runFilterForTest(loadRules(t), in, &out, Bound{MaxOpen: 150, MaxEvicted: 200}, func(line int, err error) {
		notes = append(notes, fmt.Sprintf("line %d: %v", line, err))
	}, func(e Eviction) {
		notes = append(notes, fmt.Sprintf("line %d: %s %s (evicted at %d)", e.Line, e.Reason, e.TaskID, e.EvictedAt))
	})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("input: %d bytes, %d lines\noutput: %d bytes, %d lines, sha256 %x\n%s\n",
		len(in), bytes.Count(in, []byte("\n")), out.Len(), bytes.Count(out.Bytes(), []byte("\n")),
		sha256.Sum256(out.Bytes()), strings.Join(notes, "\n"))
	path := filepath.Join("testdata", "filter", "golden.txt")
	if *rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s: line %d:\ngot  %s\nwant %s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: got %d lines, want %d", path, len(gl), len(wl))
	}
}

// runFilterForTest is the filter as spine ggs runs it, one line at a time.
func runFilterForTest(rs *ruleset.RuleSet, in []byte, out *bytes.Buffer, b Bound, bad func(int, error), evicted func(Eviction)) error {
	s, err := New(rs)
	if err != nil {
		return err
	}
	f := NewFilter(s, b)
	ctx := context.Background()
	lines := strings.Split(string(in), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		n := i + 1
		if text := bytes.TrimSpace([]byte(l)); len(text) > 0 {
			if m, err := DecodeMessage(text); err != nil {
				bad(n, err)
			} else if o, err := f.Handle(ctx, n, m); err != nil {
				bad(n, err)
			} else if buf, err := AppendOutput(nil, o); err != nil {
				bad(n, err)
			} else {
				out.Write(buf)
			}
		}
		for _, e := range f.Expire(n) {
			evicted(e)
		}
	}
	return nil
}
