package spine

import (
	"context"
	"strings"
	"testing"
)

func TestReadTrace(t *testing.T) {
	const a = `{"seq":1,"t":"2000-01-01T00:00:00Z","kind":"header"}` + "\n"
	const b = `{"seq":2,"t":"2000-01-01T00:00:00.001Z","kind":"transition"}` + "\n"
	for _, tc := range []struct {
		name, in  string
		lines     int
		torn, err string
	}{
		{name: "whole", in: a + b, lines: 2},
		{name: "empty", in: "", lines: 0},
		{name: "torn last line", in: a + b + `{"seq":3,"t":"20`, lines: 2, torn: "line 3 is torn (16 bytes without a newline or valid JSON); read up to line 2"},
		{name: "last line whole but no newline", in: a + strings.TrimSuffix(b, "\n"), lines: 2},
		{name: "bad line in the middle", in: a + "{oops\n" + b, lines: 1, err: "x.jsonl:2: invalid JSON: invalid character 'o' looking for beginning of object key string"},
		{name: "not an event", in: a + `{"seq":2}` + "\n", lines: 1, err: "x.jsonl:2: not a trace event (want a JSON object with seq, t and kind)"},
		{name: "seq goes back", in: b + a, lines: 1, err: "x.jsonl:2: seq 1 does not increase (previous 2)"},
		{name: "blank line", in: a + "\n" + b, lines: 1, err: "x.jsonl:2: empty line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tf, err := ReadTrace("x.jsonl", strings.NewReader(tc.in))
			if gotErr := errString(err); gotErr != tc.err {
				t.Fatalf("error: got %q, want %q", gotErr, tc.err)
			}
			if len(tf.Lines) != tc.lines {
				t.Errorf("got %d lines, want %d", len(tf.Lines), tc.lines)
			}
			gotTorn := ""
			if tf.Torn != nil {
				gotTorn = tf.Torn.String()
			}
			if gotTorn != tc.torn {
				t.Errorf("torn: got %q, want %q", gotTorn, tc.torn)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestTraceRoundTrip reads back what a run wrote: every line, seq 1..n, kinds in order.
func TestTraceRoundTrip(t *testing.T) {
	rs, err := LoadRules("r.yaml", []byte("name: r\nobjectives: [{name: done, terminal: success}]\nrules:\n  - {name: finish, salience: 1, when: true, then: {objective: done}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	res, err := NewEngine(rs, nil, WithTrace(sink)).Run(context.Background())
	if err != nil || res.Outcome != OutcomeSuccess {
		t.Fatalf("run: %+v %v", res, err)
	}
	tf, err := ReadTrace("mem", strings.NewReader(string(sink.Bytes())))
	if err != nil || tf.Torn != nil {
		t.Fatalf("read: %v %v", err, tf.Torn)
	}
	var kinds []string
	for i, l := range tf.Lines {
		if l.Seq != int64(i+1) {
			t.Errorf("line %d has seq %d", l.Line, l.Seq)
		}
		kinds = append(kinds, l.Kind)
	}
	want := "header fact_asserted transition fact_updated conflict_set rule_fired fact_asserted transition fact_updated halt"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds:\n got %s\nwant %s", got, want)
	}
}
