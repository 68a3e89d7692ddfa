package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentspine/spine/contract"
)

// TestTraceIncomplete: a whole trace adds nothing; a cut one ends stderr with where the
// file ends, after the FinalResult the trace could not take, and fails the run.
func TestTraceIncomplete(t *testing.T) {
	enospc := errors.New("trace: writing line 8: no space left on device")
	final := &contract.FinalResult{TaskID: "t1", Summary: "done\nreally", Directive: contract.DirectiveAccept}
	cases := []struct {
		name  string
		end   traceEnd
		final *contract.FinalResult
		code  int
		err   string
		json  string
	}{
		{"whole", traceEnd{head: "ab", lines: 9}, final, exitOK, "", "null"},
		{"cut", traceEnd{head: "0123456789abcdef0123456789abcdef", lines: 7, cut: enospc}, nil, exitFail,
			"spine run: the trace /t/run.jsonl is incomplete (trace: writing line 8: no space left on device): its last complete line is line 7, whose hash is 0123456789abcdef0123456789abcdef\n",
			`{"lines":7,"head":"0123456789abcdef0123456789abcdef","error":"trace: writing line 8: no space left on device"}`},
		{"cut before the header", traceEnd{cut: enospc}, final, exitFail,
			`spine run: the FinalResult the trace could not take: {"task_id":"t1","summary":"done\nreally","output":null,"loss":{"D":0,"P":0,"Omega":0,"L":0},"grad_l":0,"replans":0,"prev_directive":"","directive":"accept"}` + "\n" +
				"spine run: the trace /t/run.jsonl is incomplete (trace: writing line 8: no space left on device): no line reached the file\n",
			`{"lines":0,"error":"trace: writing line 8: no space left on device"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := traceIncomplete(stdio{out: &out, err: &errOut}, "/t/run.jsonl", c.end, c.final, exitOK)
			if code != c.code || errOut.String() != c.err || out.Len() != 0 {
				t.Errorf("exit %d, stderr:\n%s\nstdout: %q; want exit %d, stderr:\n%s", code, errOut.String(), out.String(), c.code, c.err)
			}
			if b, _ := json.Marshal(c.end.json()); string(b) != c.json {
				t.Errorf("--json: %s, want %s", b, c.json)
			}
		})
	}
}
