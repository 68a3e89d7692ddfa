package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// escapeKey is the API key of the escape test: it is only in the spine's environment.
const escapeKey = "sk-escape-e2e-9c4f1a7b3d5e8f20"

// TestRunKeepsTheKeyOutOfReach plays the attacks the sandbox exists for, end to end: a
// scripted executor reads the spine's environment through /proc (spelled so that no word
// names it, as in the incident that found the leak), reads every process's environment,
// and tries to overwrite the trace beside the work dir with write_file and with the
// shell. The key never reaches a tool — the sandbox shows no process of the spine — so
// it is in no trace line, no output and no request, not even as "[REDACTED]"; the trace
// is intact and replays byte for byte.
func TestRunKeepsTheKeyOutOfReach(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "run.trace.jsonl")
	servers := map[string]*llmtest.Server{}
	for _, m := range []string{"m-r1", "m-r2", "m-r3", "m-r4a", "m-r4b"} {
		servers[m] = llmtest.NewServer(t)
	}
	criterion, task := "the environment is reported", "the answer reports the environment"
	servers["m-r1"].Push(textReply(map[string]any{"intent": "Report the process environment",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}}))
	servers["m-r2"].Push(textReply(map[string]any{"task_criteria": []string{task}, "subtasks": []map[string]any{{
		"intent": "Print the environment", "success_criteria": []string{criterion}, "context": "",
		"sequence": 1, "tools": []string{"shell", "write_file"}, "targets": []string{"environ"}}}}))
	call := func(id, name string, args map[string]string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Arguments: jsonString(t, args)}}}
	}
	servers["m-r3"].Push(
		call("c1", "shell", map[string]string{"command": `tr '\0' '\n' < "$(printf '\057proc\057')$PPID/environ"`}),
		call("c2", "shell", map[string]string{"command": `for f in $(printf '\057proc')/[0-9]*/environ; do tr '\0' '\n' < $f; done`}),
		call("c3", "write_file", map[string]string{"path": "../run.trace.jsonl", "content": "{\"seq\":1,\"kind\":\"header\"}\n"}),
		call("c4", "write_file", map[string]string{"path": trace, "content": "{\"seq\":1,\"kind\":\"header\"}\n"}),
		call("c5", "shell", map[string]string{"command": `printf '{"seq":1}\n' > "${PWD%/*}/run.trace.jsonl"; echo done`}),
		textReply(map[string]any{"status": "completed", "output": "PATH and HOME only"}))
	servers["m-r4a"].Push(textReply(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
		{"criterion": criterion, "verdict": "pass", "failure_class": nil, "evidence": "PATH and HOME"}}}))
	servers["m-r4b"].Push(textReply(map[string]any{"summary": "The environment is reported", "merged": "PATH, HOME",
		"verdicts": []map[string]any{{"criterion": task, "verdict": "pass", "failure_class": nil, "evidence": "reported"}}}))
	var rec bodyRecorder
	front := rec.serve(t, modelRouter(t, servers, nil).URL)
	cfg := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(cfg, []byte("base_url: "+front.URL+"/v1\nmodel: m-r3\nroles:\n"+
		"  R1: {model: m-r1, tier: 1}\n  R2: {model: m-r2, tier: 2}\n  R3: {model: m-r3, tier: 1}\n"+
		"  R4a: {model: m-r4a, tier: 1}\n  R4b: {model: m-r4b, tier: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", escapeKey)

	stdout, stderr, code := runCLI(t, "run", "--config", cfg, "--workdir", work, "--trace", trace, "What is in the environment?")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	recorded, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]string{"the trace": string(recorded), "stdout": stdout, "stderr": stderr}
	for i, b := range rec.all() {
		places[fmt.Sprintf("request %d", i+1)] = b
	}
	for where, text := range places {
		if strings.Contains(text, escapeKey) || strings.Contains(text, escapeKey[:14]) {
			t.Errorf("%s holds the key", where)
		}
		if strings.Contains(text, "[REDACTED]") {
			t.Errorf("%s holds a scrubbed secret: the key reached a tool", where)
		}
	}
	// The environment the tools saw is the sandbox's own.
	// Both write_file calls were refused; the shell's redirection ran, into the
	// sandbox's private /tmp, which is where the parent of a work dir under /tmp lies.
	if n := bytes.Count(recorded, []byte(`"output":"refused: the path is outside the sandbox root`)); n < 2 {
		t.Errorf("%d write_file refusals in the trace, want 2", n)
	}
	if !bytes.Contains(recorded, []byte(`"output":"done\n"`)) {
		t.Errorf("the shell's write did not run")
	}
	if !bytes.Contains(recorded, []byte(`HOME=`+work)) {
		t.Errorf("the trace does not show the sandbox's environment")
	}
	if first, _, _ := bytes.Cut(recorded, []byte("\n")); !bytes.Contains(first, []byte(`"kind":"header"`)) ||
		bytes.HasPrefix(recorded, []byte(`{"seq":1}`)) || bytes.Contains(recorded, []byte("{\"seq\":1,\"kind\":\"header\"}\n")) {
		t.Errorf("the trace was overwritten:\n%.300s", recorded)
	}
	if out, e, code := runCLI(t, "replay", "--check", trace); code != exitOK || !strings.Contains(out, "hash chain intact") {
		t.Errorf("replay --check: exit %d\n%s%s", code, out, e)
	}
	for _, args := range [][]string{{"trace", "show", trace}, {"audit", trace}} {
		if out, e, code := runCLI(t, args...); code != exitOK || strings.Contains(out+e, "warning") {
			t.Errorf("spine %s: exit %d\n%s%s", strings.Join(args, " "), code, out, e)
		}
	}
}
