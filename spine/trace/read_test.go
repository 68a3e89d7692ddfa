package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/linecap"
)

const (
	hdr = `{"seq":1,"t":"2000-01-01T00:00:00Z","kind":"header","format":"spine-trace/2"}` + "\n"
	tr2 = `{"seq":2,"t":"2000-01-01T00:00:00.001Z","kind":"transition","from":"observe","to":"select_objective","event":"observed","iteration":1}` + "\n"
)

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestRead: what the decoder accepts, what it reports as a torn end, and the error for
// each malformed line, naming the file, the line and what was expected.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		events   int
		torn     string
		err      string
	}{
		{name: "whole", in: hdr + tr2, events: 2},
		{name: "empty", in: "", events: 0},
		{name: "torn last line", in: hdr + tr2 + `{"seq":3,"t":"20`, events: 2, torn: "line 3 is torn (16 bytes without a newline or valid JSON); read up to line 2"},
		{name: "last line whole but no newline", in: hdr + strings.TrimSuffix(tr2, "\n"), events: 2},
		{name: "bad line in the middle", in: hdr + "{oops\n" + tr2, events: 1, err: "x.jsonl:2: invalid JSON: invalid character 'o' looking for beginning of object key string"},
		{name: "not an event", in: hdr + `{"seq":2}` + "\n", events: 1, err: "x.jsonl:2: not a trace event (want a JSON object with seq, t and kind)"},
		{name: "seq goes back", in: tr2 + hdr, events: 1, err: "x.jsonl:2: seq 1 does not increase (previous 2)"},
		{name: "blank line", in: hdr + "\n" + tr2, events: 1, err: "x.jsonl:2: empty line"},
		{name: "t not a time", in: hdr + `{"seq":2,"t":"yesterday","kind":"halt"}` + "\n", events: 1,
			err: `x.jsonl:2: t "yesterday" is not an RFC 3339 time (want e.g. "2026-01-01T00:00:00.001Z")`},
		{name: "a long t is cut", in: `{"seq":2,"t":"` + strings.Repeat("9", 500) + `","kind":"halt"}` + "\n",
			err: `x.jsonl:1: t "` + strings.Repeat("9", 120) + `"…(500 bytes) is not an RFC 3339 time (want e.g. "2026-01-01T00:00:00.001Z")`},
		{name: "body of the wrong shape", in: hdr + `{"seq":2,"t":"2000-01-01T00:00:00Z","kind":"transition","iteration":"one"}` + "\n", events: 1,
			err: "x.jsonl:2: transition event: json: cannot unmarshal string into Go struct field Transition.iteration of type int"},
		{name: "message with a bad payload type", in: hdr + `{"seq":2,"t":"2000-01-01T00:00:00Z","kind":"message","from":["R1"]}` + "\n", events: 1,
			err: "x.jsonl:2: message event: json: cannot unmarshal array into Go struct field Message.from of type string"},
		{name: "unknown kinds are kept", in: hdr + `{"seq":2,"t":"2000-01-01T00:00:00Z","kind":"host_note","x":[1,2]}` + "\n", events: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Read("x.jsonl", strings.NewReader(tc.in))
			if got := errString(err); got != tc.err {
				t.Fatalf("error:\n got %s\nwant %s", got, tc.err)
			}
			if len(f.Events) != tc.events {
				t.Errorf("got %d events, want %d", len(f.Events), tc.events)
			}
			gotTorn := ""
			if f.Torn != nil {
				gotTorn = f.Torn.String()
			}
			if gotTorn != tc.torn {
				t.Errorf("torn: got %q, want %q", gotTorn, tc.torn)
			}
			var te *Error
			if err != nil && !errors.As(err, &te) {
				t.Errorf("%v is not a *trace.Error", err)
			}
		})
	}
}

func TestCheckHeader(t *testing.T) {
	const want = "expected a spine trace: the first line must be a header with format spine-trace/2"
	const at = `"t":"2000-01-01T00:00:00Z"`
	tests := []struct{ name, in, err string }{
		{"empty", "", "x.jsonl: the file is empty; " + want},
		{"only a torn line", `{"seq":1`, "x.jsonl: " + want + "; its only line is torn (8 bytes)"},
		{"header-less", `{"seq":1,` + at + `,"kind":"halt"}` + "\n", "x.jsonl:1: " + want + `, not a "halt" event`},
		{"foreign format", `{"seq":1,` + at + `,"kind":"header","format":"otel/1"}` + "\n", "x.jsonl:1: " + want + ` (or the older spine-trace/1), not format "otel/1"`},
		{"a long foreign kind is cut", `{"seq":1,` + at + `,"kind":"` + strings.Repeat("k", 300) + `"}` + "\n",
			"x.jsonl:1: " + want + `, not a "` + strings.Repeat("k", 120) + `"…(300 bytes) event`},
		{"foreign JSON", `{"resourceSpans":[]}` + "\n", "x.jsonl:1: not a trace event (want a JSON object with seq, t and kind); " + want},
		{"not JSON", "PK\x03\x04\n", "x.jsonl:1: invalid JSON: invalid character 'P' looking for beginning of value; " + want},
		{"a trace", `{"seq":1,` + at + `,"kind":"header","format":"spine-trace/2"}` + "\n", ""},
		{"an unchained trace", `{"seq":1,` + at + `,"kind":"header","format":"spine-trace/1"}` + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, rerr := Read("x.jsonl", strings.NewReader(tc.in))
			if got := errString(CheckHeader("x.jsonl", f, rerr)); got != tc.err {
				t.Errorf("got  %s\nwant %s", got, tc.err)
			}
		})
	}
}

// A trace cut at a line boundary before its halt and one torn mid-line are one verdict.
func TestIncomplete(t *testing.T) {
	full, err := os.ReadFile("../engine/testdata/engine/failure.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(full, []byte("\n"))
	n := len(lines) - 1 // the last element is empty
	cut := bytes.Join(lines[:n-1], nil)
	torn := append(bytes.Clone(cut), lines[n-1][:10]...)
	messagesOnly := hdr + `{"seq":2,"t":"2000-01-01T00:00:00Z","kind":"message"}` + "\n"
	itoa := strconv.Itoa
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"whole", full, ""},
		{"cut", cut, "incomplete recording: the trace ends at line " + itoa(n-1) + " without the run's halt event"},
		{"torn", torn, "incomplete recording: line " + itoa(n) + " is torn (10 bytes without a newline or valid JSON); read up to line " + itoa(n-1)},
		{"messages only", []byte(messagesOnly), ""},
	}
	for _, tc := range tests {
		f, err := Read("f", bytes.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Incomplete(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A line past the cap is an error naming the file and line, for the decoder and the
// chain check alike; neither reads the line into memory whole.
func TestLineCap(t *testing.T) {
	in := `{"seq":1,"t":"2000-01-01T00:00:00Z","kind":"header","format":"spine-trace/1"}` + "\n" + strings.Repeat("x", linecap.MaxLine+1) + "\n"
	_, err := Read("big.jsonl", strings.NewReader(in))
	if err == nil || err.Error() != "big.jsonl: line 2 is longer than 16777216 bytes, the most a line may have" {
		t.Errorf("Read: %v", err)
	}
	_, err = VerifyChain(strings.NewReader(in))
	if err == nil || err.Error() != "line 2 is longer than 16777216 bytes, the most a line may have" {
		t.Errorf("VerifyChain: %v", err)
	}
}

// ReadFile checks the header and the chain; a broken chain is reported in the File, the
// events are all there.
func TestReadFileChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sealed, err := SealTrace([]byte(hdr + tr2))
	if err != nil {
		t.Fatal(err)
	}
	good := write("good.jsonl", string(sealed))
	f, err := ReadFile(good)
	if err != nil || f.ChainErr != nil || f.Broken() != nil || f.Chain.String() != "hash chain intact (2 lines)" || len(f.Events) != 2 {
		t.Fatalf("good: %v %v %s %d", err, f.ChainErr, f.Chain, len(f.Events))
	}
	edited := write("edited.jsonl", strings.Replace(string(sealed), `"iteration":1`, `"iteration":2`, 1))
	f, err = ReadFile(edited)
	if err != nil || f.Broken() == nil || f.Broken().Line != 2 || len(f.Events) != 2 {
		t.Fatalf("edited: %v %v %d", err, f.ChainErr, len(f.Events))
	}
	if b, _ := As[Transition](&f.Events[1]); b.Iteration != 2 {
		t.Errorf("the edited line reads %+v", b)
	}
	headless := write("headless.jsonl", tr2)
	if _, err := ReadFile(headless); err == nil || !strings.Contains(err.Error(), headless+`:1: expected a spine trace`) {
		t.Errorf("headless: %v", err)
	}
}

// A chained line whose h is huge is quoted as an excerpt.
func TestChainErrorExcerpt(t *testing.T) {
	in := `{"seq":1,"t":"x","kind":"header","format":"spine-trace/2","h":"` + strings.Repeat("z", 300) + `"}` + "\n"
	_, err := VerifyChain(strings.NewReader(in))
	want := `line 1 (seq 1): h "` + strings.Repeat("z", 120) + `"…(300 bytes) is not 32 lowercase hex digits`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestSealTraceErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{oops\n", "line 1: not a JSON object: invalid character 'o' looking for beginning of object key string"},
		{`{"seq":1,"h":"x"}` + "\n", "line 1: already has an h"},
		{`{"seq":1} ` + "\n", "line 1: does not end in '}'"},
	} {
		if _, err := SealTrace([]byte(tc.in)); errString(err) != tc.want {
			t.Errorf("SealTrace(%q): got %v, want %s", tc.in, err, tc.want)
		}
	}
}
