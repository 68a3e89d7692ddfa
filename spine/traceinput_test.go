package spine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentspine/spine/internal/linecap"
)

func TestCheckTraceHeader(t *testing.T) {
	const want = "expected a spine trace: the first line must be a header with format spine-trace/2"
	tests := []struct{ name, in, err string }{
		{"empty", "", "x.jsonl: the file is empty; " + want},
		{"only a torn line", `{"seq":1`, "x.jsonl: " + want + "; its only line is torn (8 bytes)"},
		{"header-less", `{"seq":1,"t":"2000-01-01T00:00:00Z","kind":"halt"}` + "\n", "x.jsonl:1: " + want + `, not a "halt" event`},
		{"foreign format", `{"seq":1,"t":"x","kind":"header","format":"otel/1"}` + "\n", "x.jsonl:1: " + want + ` (or the older spine-trace/1), not format "otel/1"`},
		{"a long foreign kind is cut", `{"seq":1,"t":"x","kind":"` + strings.Repeat("k", 300) + `"}` + "\n",
			"x.jsonl:1: " + want + `, not a "` + strings.Repeat("k", 120) + `"…(300 bytes) event`},
		{"foreign JSON", `{"resourceSpans":[]}` + "\n", "x.jsonl:1: not a trace event (want a JSON object with seq, t and kind); " + want},
		{"not JSON", "PK\x03\x04\n", "x.jsonl:1: invalid JSON: invalid character 'P' looking for beginning of value; " + want},
		{"a trace", `{"seq":1,"t":"x","kind":"header","format":"spine-trace/2"}` + "\n", ""},
		{"an unchained trace", `{"seq":1,"t":"x","kind":"header","format":"spine-trace/1"}` + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tf, rerr := ReadTrace("x.jsonl", strings.NewReader(tc.in))
			got := ""
			if err := CheckTraceHeader("x.jsonl", tf, rerr); err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Errorf("got  %s\nwant %s", got, tc.err)
			}
		})
	}
}

// A trace cut at a line boundary before its halt and one torn mid-line are one verdict.
func TestIncomplete(t *testing.T) {
	full, err := os.ReadFile("testdata/engine/failure.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(full, []byte("\n"))
	n := len(lines) - 1 // the last element is empty
	cut := bytes.Join(lines[:n-1], nil)
	torn := append(bytes.Clone(cut), lines[n-1][:10]...)
	messagesOnly := `{"seq":1,"t":"x","kind":"header","format":"spine-trace/2"}` + "\n" + `{"seq":2,"t":"x","kind":"message"}` + "\n"
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
		tf, err := ReadTrace("f", bytes.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := tf.Incomplete(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A line past the cap is an error naming the file and line, for the decoder and the
// chain check alike; neither reads the line into memory whole.
func TestLineCap(t *testing.T) {
	in := `{"seq":1,"t":"x","kind":"header","format":"spine-trace/1"}` + "\n" + strings.Repeat("x", linecap.MaxLine+1) + "\n"
	_, err := ReadTrace("big.jsonl", strings.NewReader(in))
	if err == nil || err.Error() != "big.jsonl: line 2 is longer than 16777216 bytes, the most a line may have" {
		t.Errorf("ReadTrace: %v", err)
	}
	_, err = VerifyChain(strings.NewReader(in))
	if err == nil || err.Error() != "line 2 is longer than 16777216 bytes, the most a line may have" {
		t.Errorf("VerifyChain: %v", err)
	}
}

func TestOpenTraceFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	tests := []struct{ path, want string }{
		{fifo, fifo + ": a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero: a character device, not a regular file"},
		{dir, dir + ": a directory, not a regular file"},
	}
	for _, tc := range tests {
		if _, err := ReadTraceFile(tc.path); err == nil || err.Error() != tc.want {
			t.Errorf("ReadTraceFile(%s): %v, want %s", tc.path, err, tc.want)
		}
		if _, err := ReadTraceBytes(tc.path); err == nil || err.Error() != tc.want {
			t.Errorf("ReadTraceBytes(%s): %v, want %s", tc.path, err, tc.want)
		}
	}
	if _, err := ReadTraceFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
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
