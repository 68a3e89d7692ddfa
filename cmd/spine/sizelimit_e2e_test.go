package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestEveryLineReadsBack drives `spine run` into the sizes a model or a tool can throw
// at it — a 17 MiB write_file call, a 50 MiB reply, a command printing 100 MiB — and
// holds the run to its trace: it ends in a FinalResult decided by a rule, no line is
// longer than the readers' cap, and replay --check, audit, trace show and trace html
// read it back.
func TestEveryLineReadsBack(t *testing.T) {
	modelEnvFromConfig(t, 2)
	t.Setenv("SPINE_TRACE_DIR", t.TempDir())
	shellPlan := fmJSON(map[string]any{"task_criteria": []string{fmTaskCrit}, "subtasks": []map[string]any{{
		"intent": "Read config/app.yaml and report its port", "success_criteria": []string{fmCriterion}, "context": "",
		"sequence": 1, "tools": []string{"shell"}, "targets": []string{"config/app.yaml"}}}})
	for _, c := range []faultCase{
		{name: "a 17 MiB write_file call",
			script: map[string][]llmtest.Reply{"R3": {
				fmCall("w1", "write_file", `{"path":"big.txt","content":"`+strings.Repeat("A", 17<<20)+`"}`), fmRead, fmDone}},
			timeout: "60s",
			exit:    exitOK, directive: contract.DirectiveAccept, directives: []string{contract.DirectiveRetry},
			trace: []string{`"fault":{"role":"R3","kind":"response_too_large"`, `over the 1048576-byte limit of a model's answer`}},
		{name: "a 50 MiB reply",
			// Sent as a raw body, so that the test server does not spend the call's time
			// encoding it.
			script: map[string][]llmtest.Reply{"R1": {llmtest.Reply{Body: `{"id":"big","object":"chat.completion","created":1,"model":"m-R1",` +
				`"choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("a", 50<<20) + `"},"finish_reason":"stop"}]}`}, fmPerceived}},
			timeout: "60s",
			exit:    exitOK, directive: contract.DirectiveAccept, directives: []string{contract.DirectiveRetry},
			trace: []string{`"fault":{"role":"R1","kind":"response_too_large"`}},
		{name: "a command printing 100 MiB",
			script: map[string][]llmtest.Reply{"R2": {shellPlan},
				"R3": {fmCall("s1", "shell", `{"command":"yes | head -c 104857600; cat config/app.yaml"}`), fmDone}},
			exit: exitOK, directive: contract.DirectiveAccept,
			trace: []string{`bytes omitted]`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			trace := runFaultCase(t, c)
			assertLinesWithinCap(t, trace)
			for _, args := range [][]string{{"audit", trace}, {"trace", "show", trace},
				{"trace", "html", "-o", filepath.Join(t.TempDir(), "t.html"), trace}} {
				var out, errOut bytes.Buffer
				if code := Run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != exitOK {
					t.Errorf("spine %s: exit %d\n%.2000s", strings.Join(args[:len(args)-1], " "), code, errOut.String())
				}
			}
		})
	}
}

// assertLinesWithinCap reads the trace a line at a time, whatever the lines' length.
func assertLinesWithinCap(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	longest := 0
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		size := len(line)
		for err == bufio.ErrBufferFull {
			line, err = r.ReadSlice('\n')
			size += len(line)
		}
		if size > longest {
			longest = size
		}
		if size-1 > contract.MaxTraceLine {
			t.Errorf("line %d is %d bytes, over the %d-byte cap", n, size-1, contract.MaxTraceLine)
		}
		if err != nil {
			break
		}
	}
	if longest > 4<<20 {
		t.Logf("longest line: %d bytes", longest)
	}
}
