package ggs

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

func TestDecodeMessageErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"type":"ReplanRequest","payload":{"task_id":"t1"`, "invalid JSON: unexpected end of input"},
		{`{"type":"ReplanRequest" "payload":{}}`, "invalid JSON at byte 25: invalid character '\"' after object key:value pair"},
		{`not json`, "invalid JSON at byte 2: invalid character 'o' in literal null (expecting 'u')"},
		{``, "invalid JSON: unexpected end of input"},
		{`{"type":"OutcomeSummary","payload":{"task_id":"t"}} {}`, "invalid JSON: more data after the end of the message"},
		{`["ReplanRequest"]`, `want {"type": ..., "payload": {...}}, got array`},
		{`{"payload":{"task_id":"t"}}`, `missing type: want "ReplanRequest" or "OutcomeSummary"`},
		{`{"type":"PlanDirective","payload":{"task_id":"t"}}`, `unknown type "PlanDirective": want "ReplanRequest" or "OutcomeSummary"`},
		{`{"type":"ReplanRequest"}`, "missing payload: want a ReplanRequest object"},
		{`{"type":"OutcomeSummary","payload":null}`, "missing payload: want an OutcomeSummary object"},
		{`{"type":"ReplanRequest","payload":{},"extra":1}`, `unknown field "extra": want only "type" and "payload"`},
		{`{"type":"ReplanRequest","payload":"t1"}`, "ReplanRequest payload: want a JSON object, got string"},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","bogus":true}}`, `ReplanRequest payload: unknown field "bogus"`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","elapsed_ms":"12"}}`, "ReplanRequest payload: field elapsed_ms: want an integer, got string"},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"status":7}]}}`, "ReplanRequest payload: field outcomes.status: want a string, got number"},
		{`{"type":"ReplanRequest","payload":{"gap_summary":"x"}}`, "ReplanRequest payload: missing task_id"},
		{`{"type":"OutcomeSummary","payload":{"summary":"x"}}`, "OutcomeSummary payload: missing task_id"},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","elapsed_ms":-1}}`, "ReplanRequest payload: elapsed_ms: must not be negative, got -1"},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"subtask_id":"s","status":"done"}]}}`,
			`ReplanRequest payload: outcomes[0].status: got "done", want "matched" or "failed"`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"status":"failed","parent_task_id":"u"}]}}`,
			`ReplanRequest payload: outcomes[0].parent_task_id: "u" is not this task ("t")`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"status":"failed","criteria_verdicts":[{"criterion":"c","verdict":"maybe"}]}]}}`,
			`ReplanRequest payload: outcomes[0].criteria_verdicts[0].verdict: got "maybe", want "pass" or "fail"`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","task_criteria_verdicts":[{"criterion":"c","verdict":"fail","mode":"fuzzy"}]}}`,
			`ReplanRequest payload: task_criteria_verdicts[0].mode: got "fuzzy", want "verifiable" or "plausible"`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","task_criteria_verdicts":[{"verdict":"fail"}]}}`,
			`ReplanRequest payload: task_criteria_verdicts[0].criterion: missing`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"status":"failed","criteria_verdicts":[{"criterion":"c","verdict":"fail","failure_class":"cosmic"}]}]}}`,
			`ReplanRequest payload: outcomes[0].criteria_verdicts[0].failure_class: got "cosmic", want "logical", "environmental" or null`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"status":"failed","gap_trajectory":[{"attempt":1,"failed_criteria":[{"criterion":"c","failure_class":"x"}]}]}]}}`,
			`ReplanRequest payload: outcomes[0].gap_trajectory[0].failed_criteria[0].failure_class: got "x", want "logical", "environmental" or null`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","recommendation":"retire"}}`,
			`ReplanRequest payload: recommendation: got "retire", want "replan", "retry" or "abandon"`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","fault":{"role":"R2","kind":"sleepy","detail":""}}}`,
			`ReplanRequest payload: fault.kind: got "sleepy", want model_unavailable, contract_broken, planner_cornered, response_too_large, tool_unavailable or key_refused`},
		{`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"status":"failed","fault":{"kind":"model_unavailable"}}]}}`,
			`ReplanRequest payload: fault.role: missing`},
		{`{"type":"OutcomeSummary","payload":{"task_id":"t","outcomes":[{"status":"failed"}]}}`,
			`OutcomeSummary payload: outcomes[0].status: an OutcomeSummary holds matched subtasks only, got "failed"`},
	} {
		_, err := DecodeMessage([]byte(tc.line))
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeMessage(%s):\n got %v\nwant %s", tc.line, err, tc.want)
		}
	}
}

func TestDecodeMessageAndEncode(t *testing.T) {
	line := `{"type":"ReplanRequest","payload":{"task_id":"t1","intent":"List <logs> & errors","gap_summary":"1/1 failed","failed_subtasks":["s1"],"correction_count":2,"elapsed_ms":1000,` +
		`"outcomes":[{"subtask_id":"s1","parent_task_id":"t1","status":"failed","output":null,"failure_reason":"not found",` +
		`"criteria_verdicts":[{"criterion":"log listed","mode":"verifiable","verdict":"fail","failure_class":"environmental","evidence":"ENOENT"}],` +
		`"gap_trajectory":[{"attempt":1,"failed_criteria":[{"criterion":"log listed","failure_class":"environmental"}]}],` +
		`"tool_calls":["shell:ls /var/log/<app> → No such file or directory"]}],"recommendation":"replan"}}`
	m, err := DecodeMessage([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if m.Replan == nil || m.Outcome != nil || m.TaskID() != "t1" {
		t.Fatalf("decoded %+v", m)
	}
	out, err := newSolver(t).Handle(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AppendOutput(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != 1 {
		t.Fatalf("not one line: %q", b)
	}
	if !bytes.Contains(b, []byte(`"blocked_targets":["shell:ls /var/log/<app>"]`)) {
		t.Errorf("targets escaped or missing: %s", b)
	}
	var env struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(b, &env); err != nil || env.Type != "PlanDirective" {
		t.Fatalf("output %s: %v", b, err)
	}
	m2, err := DecodeMessage([]byte(`{"type":"OutcomeSummary","payload":{"task_id":"t1","summary":"ok","output":{"n":1},"elapsed_ms":5}}`))
	if err != nil || m2.Outcome == nil || m2.TaskID() != "t1" {
		t.Fatalf("OutcomeSummary: %+v %v", m2, err)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"ReplanRequest","payload":{"task_id":"t","outcomes":[{"subtask_id":"s","status":"failed","criteria_verdicts":[{"criterion":"c","mode":"plausible","verdict":"fail","failure_class":"logical"}],"gap_trajectory":[{"attempt":1,"failed_criteria":[{"criterion":"c","failure_class":"logical"}]}],"tool_calls":["shell:ls → x"]}]}}`,
		`{"type":"OutcomeSummary","payload":{"task_id":"t","output":[1,2]}}`,
		`{"type":"ReplanRequest","payload":{"task_id":"t","task_criteria_verdicts":[{"criterion":"c","verdict":"fail"}]}}`,
		`{"type":"X"}`, `{}`, `[]`, `null`, `{"type":"ReplanRequest","payload":{}} x`, "\x00",
	} {
		f.Add([]byte(s))
	}
	s := newSolver(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := DecodeMessage(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		if (m.Replan == nil) == (m.Outcome == nil) || m.TaskID() == "" {
			t.Fatalf("decoded message without exactly one payload and a task: %+v", m)
		}
		// Whatever decodes, the solver handles: no panic, one output, never NaN.
		out, err := s.Handle(context.Background(), m)
		if err != nil {
			t.Fatalf("valid message %s rejected: %v", line, err)
		}
		if _, err := AppendOutput(nil, out); err != nil {
			t.Fatal(err)
		}
	})
}
