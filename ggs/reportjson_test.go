package ggs

import (
	"bytes"
	"github.com/agentspine/spine/contract"
	"reflect"
	"testing"
)

// scanCases are lines at the edges of the JSON grammar and of encoding/json's reading,
// beside goldenBadLines.
var scanCases = []string{
	`{"type":"ReplanRequest","payload":{"task_id":"a\u00e9\u2028\n\t\"\\\/\b\f\r","elapsed_ms":-0}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a\ud83d\ude00"}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a\u00"}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","elapsed_ms":01}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","elapsed_ms":1e2}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","elapsed_ms":9223372036854775808}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","elapsed_ms":null,"intent":null,"outcomes":null,"fault":null}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","outcomes":[]}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","outcomes":[null]}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","failed_subtasks":["x",null]}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","fault":{"role":"R3","kind":"model_unavailable","detail":""}}}`,
	`{"type":"ReplanRequest","payload":{"task_id":"a","outcomes":[{"status":"failed","failure_reason":null,"output":{"a":{"a":1},"a":[]}}]}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":[1,-1.5e-7,0.1,1E+2,true,false,null,"",{},[]]}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":[1,]}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":tru}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":-}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":1.}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":"` + "\x01" + `"}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","output":{"k` + "\xff" + `":1}}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","summary":"\u0000"}} `,
	`{"type" : "OutcomeSummary" , "payload" : { "task_id" : "a" } }`,
	`{"type":"OutcomeSummary","type":"OutcomeSummary","payload":{"task_id":"a"}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a"},"payload":{"task_id":"b"}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","status":"x"}}`,
	`{"type":"OutcomeSummary","payload":{"task_id":"a","outcomes":[{"status":"failed"}]}}`,
	`{"type":"Outcome\u0053ummary","payload":{"task_id":"a"}}`,
	`{"type":"OutcomeSummary","payload":{"task_\u0069d":"a"}}`,
	`{}`, `{`, `}`, `"x"`, `null`, `1`,
}

// The single pass and the reference give every line the same Message or the same error.
func TestReportScanAgrees(t *testing.T) {
	lines := append(append([]string{}, scanCases...), goldenBadLines...)
	for _, l := range bytes.Split(goldenStream(t), []byte("\n")) {
		lines = append(lines, string(l))
	}
	var d messageDecoder
	taken := 0
	for _, l := range lines {
		line := bytes.TrimSpace([]byte(l))
		if len(line) == 0 {
			continue
		}
		if _, ok := d.scan.message(line); ok {
			taken++
		}
		got, gerr := d.decode(line)
		want, werr := decodeEnvelope(line)
		if !reflect.DeepEqual(got, want) || errText(gerr) != errText(werr) {
			t.Errorf("%s:\ngot  %+v, %v\nwant %+v, %v", l, got, gerr, want, werr)
		}
	}
	if taken < len(lines)*9/10 {
		t.Errorf("the single pass took %d lines of %d: the reference reads most", taken, len(lines))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzReportScanAgrees: what the single pass takes, the reference takes too, as the same
// Message.
func FuzzReportScanAgrees(f *testing.F) {
	for _, l := range append(append([]string{}, scanCases...), goldenBadLines...) {
		f.Add([]byte(l))
	}
	var gen bytes.Buffer
	if _, err := genStream(&gen, 5, 1); err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(gen.Bytes(), []byte("\n")) {
		f.Add(l)
	}
	// The shared mode's decoder has read a line before: what it reuses must not show.
	shared := reportScan{sh: lineShare{on: true}}
	shared.message(gen.Bytes()[:bytes.IndexByte(gen.Bytes(), '\n')])
	// Filter.Run's: the same, each evidence left empty.
	lean := reportScan{sh: lineShare{on: true, unread: true}}
	lean.message(gen.Bytes()[:bytes.IndexByte(gen.Bytes(), '\n')])
	f.Fuzz(func(t *testing.T, line []byte) {
		var s reportScan
		m, ok := s.message(line)
		sm, sok := shared.message(line)
		if ok != sok {
			t.Fatalf("%q: the single pass took it %v, in shared mode %v", line, ok, sok)
		}
		// With evidence unread, an evidence the reference would read with U+FFFD in it is
		// taken too: it may take more, never what the reference refuses.
		lm, lok := lean.message(line)
		if ok && !lok {
			t.Fatalf("%q: the single pass took it, with evidence unread not", line)
		}
		if !lok {
			return
		}
		want, err := decodeReference(line)
		if err != nil {
			t.Fatalf("the single pass took %q (with evidence unread: %v); the reference: %v", line, ok, err)
		}
		if ok && !reflect.DeepEqual(m, want) {
			t.Fatalf("%q:\nsingle pass %+v\nreference   %+v", line, m, want)
		}
		if sm = decodedOutputs(t, sm); ok && !reflect.DeepEqual(sm, want) {
			t.Fatalf("%q:\nshared mode %+v\nreference   %+v", line, sm, want)
		}
		if lm, want = decodedOutputs(t, lm), withoutEvidence(want); !reflect.DeepEqual(lm, want) {
			t.Fatalf("%q:\nevidence unread %+v\nreference       %+v", line, lm, want)
		}
	})
}

// withoutEvidence is m with every criterion verdict's evidence empty (m is its own).
func withoutEvidence(m Message) Message {
	blank := func(vs []contract.CriterionVerdict) {
		for j := range vs {
			vs[j].Evidence = ""
		}
	}
	var outcomes []contract.SubTaskOutcome
	if r := m.Replan; r != nil {
		outcomes = r.Outcomes
		blank(r.TaskCriteriaVerdicts)
	}
	if o := m.Outcome; o != nil {
		outcomes = o.Outcomes
	}
	for i := range outcomes {
		blank(outcomes[i].CriteriaVerdicts)
	}
	return m
}

// decodeReference is decodeEnvelope without the validation of the report.
func decodeReference(line []byte) (Message, error) {
	var env envelope
	if err := decodeStrict(line, &env); err != nil {
		return Message{}, err
	}
	if env.Type == nil {
		return Message{}, errNotReport
	}
	return decodeReport(*env.Type, env.Payload, false)
}

// In shared mode, line after line through one decoder (each reusing the structs of the
// one before), the single pass gives what the reference gives, its outputs decoded.
func TestReportScanSharedAgrees(t *testing.T) {
	lines := append(append([]string{}, scanCases...), goldenBadLines...)
	var gen bytes.Buffer
	if _, err := genStream(&gen, 40, 7); err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(append(goldenStream(t), gen.Bytes()...), []byte("\n")) {
		lines = append(lines, string(l))
	}
	d := messageDecoder{scan: reportScan{sh: lineShare{on: true}}}
	for _, l := range lines {
		line := bytes.TrimSpace([]byte(l))
		if len(line) == 0 {
			continue
		}
		got, gerr := d.decode(line)
		want, werr := decodeEnvelope(line)
		if errText(gerr) != errText(werr) {
			t.Fatalf("%s:\ngot  %v\nwant %v", l, gerr, werr)
		}
		if gerr == nil {
			got = decodedOutputs(t, got)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\ngot  %+v\nwant %+v", l, got, want)
		}
	}
}

// decodedOutputs is m with each output kept as its JSON text (rawOutput) decoded, in
// structs of its own.
func decodedOutputs(t *testing.T, m Message) Message {
	t.Helper()
	value := func(v any) any {
		if r, ok := v.(*rawOutput); ok {
			d, ok := r.value()
			if !ok {
				t.Fatalf("output %s does not decode", r.text)
			}
			return d
		}
		return v
	}
	subtasks := func(os []contract.SubTaskOutcome) []contract.SubTaskOutcome {
		if os == nil {
			return nil
		}
		out := append([]contract.SubTaskOutcome{}, os...)
		for i := range out {
			out[i].Output = value(out[i].Output)
		}
		return out
	}
	if m.Replan != nil {
		r := *m.Replan
		r.Outcomes = subtasks(r.Outcomes)
		m.Replan = &r
	}
	if m.Outcome != nil {
		o := *m.Outcome
		o.Output, o.Outcomes = value(o.Output), subtasks(o.Outcomes)
		m.Outcome = &o
	}
	return m
}

// FuzzPlainRun: the eight-bytes-at-a-time reading of plain text finds what a byte loop finds.
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"", "abcdefgh\"", "abcdefghijklmnop\\", "é→“quoted”\x1f", "\x7f\x80\xff\x20\x21\x22", "0123456789abcdef0123456789"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		want, wantHigh := i, false
		for ; want < len(b) && b[want] != '"' && b[want] != '\\' && b[want] >= 0x20; want++ {
			wantHigh = wantHigh || b[want] >= 0x80
		}
		if got, high := plainRun(b, i); got != want || high != wantHigh {
			t.Fatalf("plainRun(%q, %d) = %d, %v; want %d, %v", b, i, got, high, want, wantHigh)
		}
	})
}
