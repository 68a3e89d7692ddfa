package runview

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/taskrun"
)

// TestIncomplete: a whole trace adds nothing; a cut one ends stderr with where the file
// ends, after the FinalResult the trace could not take, and says it was cut.
func TestIncomplete(t *testing.T) {
	enospc := errors.New("trace: writing line 8: no space left on device")
	final := &contract.FinalResult{TaskID: "t1", Summary: "done\nreally", Directive: contract.DirectiveAccept}
	cases := []struct {
		name  string
		res   taskrun.Result
		final *contract.FinalResult
		cut   bool
		err   string
		json  string
	}{
		{"whole", taskrun.Result{TraceHead: "ab", TraceLines: 9}, final, false, "", "null"},
		{"cut", taskrun.Result{TraceHead: "0123456789abcdef0123456789abcdef", TraceLines: 7, TraceCut: enospc}, nil, true,
			"spine run: the trace /t/run.jsonl is incomplete (trace: writing line 8: no space left on device): its last complete line is line 7, whose hash is 0123456789abcdef0123456789abcdef\n",
			`{"lines":7,"head":"0123456789abcdef0123456789abcdef","error":"trace: writing line 8: no space left on device"}`},
		{"cut before the header", taskrun.Result{TraceCut: enospc}, final, true,
			`spine run: the FinalResult the trace could not take: {"task_id":"t1","summary":"done\nreally","output":null,"loss":{"D":0,"P":0,"Omega":0,"L":0},"grad_l":0,"replans":0,"prev_directive":"","directive":"accept"}` + "\n" +
				"spine run: the trace /t/run.jsonl is incomplete (trace: writing line 8: no space left on device): no line reached the file\n",
			`{"lines":0,"error":"trace: writing line 8: no space left on device"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errOut bytes.Buffer
			res := c.res
			res.TracePath, res.TaskResult = "/t/run.jsonl", ggsrun.TaskResult{Final: c.final}
			if cut := Incomplete(&errOut, res); cut != c.cut || errOut.String() != c.err {
				t.Errorf("cut %v, stderr:\n%s\nwant cut %v, stderr:\n%s", cut, errOut.String(), c.cut, c.err)
			}
			if b, _ := json.Marshal(Cut(res)); string(b) != c.json {
				t.Errorf("--json: %s, want %s", b, c.json)
			}
		})
	}
}
