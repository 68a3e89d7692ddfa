package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/fleet/fleettext"
	"github.com/agentspine/spine/internal/termtext"
)

// corpusEntry is one entry of testdata/termtext/corpus.yaml.
type corpusEntry struct {
	Name  string `yaml:"name"`
	Why   string `yaml:"why"`
	Text  string `yaml:"text"` // Go-quoted
	Line  string `yaml:"line"`
	Block string `yaml:"block"`
	text  string // Text unquoted
}

func loadTermCorpus(t *testing.T) []corpusEntry {
	t.Helper()
	b, err := os.ReadFile("testdata/termtext/corpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var entries []corpusEntry
	if err := yaml.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	for i := range entries {
		e := &entries[i]
		if e.text, err = strconv.Unquote(e.Text); err != nil {
			t.Fatalf("%s: text %s: %v", e.Name, e.Text, err)
		}
		if e.Block == "" {
			e.Block = e.Line
		}
	}
	if len(entries) < 15 {
		t.Fatalf("%d corpus entries", len(entries))
	}
	return entries
}

// TestTerminalCorpusForms: every entry shows as its stated forms.
func TestTerminalCorpusForms(t *testing.T) {
	for _, e := range loadTermCorpus(t) {
		if got := termtext.Line(e.text); got != e.Line {
			t.Errorf("%s: Line gives %q, the corpus says %q", e.Name, got, e.Line)
		}
		if got := termtext.Block(e.text); got != e.Block {
			t.Errorf("%s: Block gives %q, the corpus says %q", e.Name, got, e.Block)
		}
	}
}

// hostileText joins the entries that a YAML or JSON field can carry (valid UTF-8).
func hostileText(entries []corpusEntry) string {
	var parts []string
	for _, e := range entries {
		if utf8.ValidString(e.text) {
			parts = append(parts, e.text)
		}
	}
	return strings.Join(parts, " | ")
}

// termSafe checks what a printer wrote: valid UTF-8 without a control character but
// newline and tab, DEL, C1 control or format character; and, where every line is the
// printer's own (not an error quoting input as a block), no forged line.
func termSafe(t *testing.T, where, out string, forged bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: not valid UTF-8: %q", where, firstBad(out))
	}
	for i, r := range out {
		bad := r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
		if bad {
			t.Errorf("%s: raw %U at byte %d: %q", where, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
	if !forged {
		return
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "FORGED") {
			t.Errorf("%s: a forged line: %q", where, l)
		}
	}
}

func firstBad(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return s[max(0, i-20):min(len(s), i+20)]
		}
		i += n
	}
	return ""
}

// cliCase runs one command of the corpus test and checks both its streams.
func cliCase(t *testing.T, forged bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = runCLI(t, args...)
	where := "spine " + termtext.Line(strings.Join(args, " "))
	termSafe(t, where+" (stdout)", stdout, forged)
	termSafe(t, where+" (stderr)", stderr, false)
	return stdout, stderr, code
}

// wantShown checks that every entry that out carries is shown in its Line form.
func wantShown(t *testing.T, where, out string, entries []corpusEntry) {
	t.Helper()
	for _, e := range entries {
		if utf8.ValidString(e.text) && !strings.Contains(out, e.Line) {
			t.Errorf("%s: %s is not shown as %s", where, e.Name, e.Line)
		}
	}
}

// TestTerminalEscapeCorpus drives the printers with the corpus: a played GGS scenario
// whose task and summaries hold it, a live run whose roles' replies, tool output and
// file names hold it, a rule file, trace file names and fleet statuses.
func TestTerminalEscapeCorpus(t *testing.T) {
	entries := loadTermCorpus(t)
	hostile := hostileText(entries)
	dir := t.TempDir()

	// A GGS scenario played twice, each time with the text in the task and the summary.
	scenario := func(name, summary string) string {
		doc := map[string]any{
			"name": name, "description": "hostile text in every field", "rules": "ggs.yaml",
			"task":  map[string]any{"task_id": "t-1", "intent": summary},
			"final": "accept",
			"rounds": []any{map[string]any{"report": map[string]any{"type": "OutcomeSummary", "payload": map[string]any{
				"task_id": "t-1", "intent": summary, "summary": summary, "output": map[string]any{"file": summary}, "elapsed_ms": 42000}}}},
		}
		b, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := filepath.Join(dir, "a.trace.jsonl"), filepath.Join(dir, "b.trace.jsonl")
	out, _, code := cliCase(t, true, "play", "--trace", a, scenario("hostile_a", hostile))
	if code != exitOK {
		t.Fatalf("play: exit %d\n%s", code, out)
	}
	wantShown(t, "play's live display", out, entries)
	cliCase(t, true, "play", "--quiet", "--trace", b, scenario("hostile_b", "plain "+hostile+" end"))

	show, _, code := cliCase(t, true, "trace", "show", a)
	if code != exitOK {
		t.Errorf("trace show: exit %d", code)
	}
	wantShown(t, "trace show", show, entries)
	cliCase(t, true, "trace", "show", "--all", a)
	if out, _, _ := cliCase(t, true, "trace", "diff", a, b); !strings.Contains(out, "first differing event") {
		t.Errorf("trace diff found no difference:\n%s", out)
	}
	cliCase(t, true, "trace", "loss", a, b)
	cliCase(t, true, "audit", a, b)
	cliCase(t, true, "replay", "--check", a)
	cliCase(t, true, "what-if", "--all", "--rules", "../../rules/ggs.yaml", a)

	// --json and the trace keep the bytes: the C1 rune and the bidi override are there
	// as UTF-8, as the model wrote them.
	recorded, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"\u009b", "\u202e"} {
		if !bytes.Contains(recorded, []byte(r)) {
			t.Errorf("the trace lost %U", []rune(r)[0])
		}
	}

	// A trace whose file name holds an escape, a newline and a C1 byte: the paths in
	// messages and errors are escaped too.
	evil := filepath.Join(dir, "evil\x1b]0;pwned\x07\nFORGED\x9b.jsonl")
	if err := os.WriteFile(evil, recorded, 0o644); err != nil {
		t.Fatal(err)
	}
	cliCase(t, false, "trace", "show", evil)
	cliCase(t, false, "audit", dir)
	cliCase(t, false, "trace", "show", evil+".missing")

	// A rule file whose rule name, description and a bad expression hold the text; and
	// one with raw bytes that are not UTF-8 at all.
	rules, err := os.ReadFile("../../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := yaml.Marshal(hostile)
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, append(bytes.Clone(rules), []byte("  - name: "+strings.TrimSpace(string(quoted))+
		"\n    salience: 1\n    description: "+strings.TrimSpace(string(quoted))+
		"\n    when: signals.D > \"\x1b[2J\" &&\n    then: {objective: plan}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := cliCase(t, false, "check", bad); code == exitOK {
		t.Error("check passed a bad rule file")
	}
	raw := filepath.Join(dir, "raw.yaml")
	if err := os.WriteFile(raw, append(bytes.Clone(rules), []byte("  - name: \x9b2J\x1b]0;x\x07\xff\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	cliCase(t, false, "check", raw)
	cliCase(t, false, "what-if", "--rules", raw, a)

	t.Run("run", func(t *testing.T) { terminalRun(t, entries, hostile) })
	t.Run("fleet-status", func(t *testing.T) { terminalFleetStatus(t, hostile) })
}

// terminalRun: a live run whose roles and tools bring the text, then its trace and its
// memory shown.
func terminalRun(t *testing.T, entries []corpusEntry, hostile string) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	servers := map[string]*llmtest.Server{}
	for _, m := range []string{"m-r1", "m-r2", "m-r3", "m-r4a", "m-r4b"} {
		servers[m] = llmtest.NewServer(t)
	}
	fileName := "notes.txt\nFORGED-FILE\x1b[2J.txt"
	// R4a checks that a file a criterion names exists: the criterion names none.
	criterion, task := "the listing is reported \x1b]0;pwned\x07 \u009b2J \u202eok\r\nFORGED-CRIT", "the answer lists the files"
	servers["m-r1"].Push(textReply(map[string]any{"intent": "List the files \x1b]0;pwned\x07 \u202etxt.exe",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}}))
	servers["m-r2"].Push(textReply(map[string]any{"task_criteria": []string{task}, "subtasks": []map[string]any{{
		"intent": "List the work dir " + hostile, "success_criteria": []string{criterion}, "context": hostile,
		"sequence": 1, "tools": []string{"shell", "write_file", "list_files"}, "targets": []string{"."}}}}))
	call := func(id, name string, args map[string]any) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Arguments: jsonString(t, args)}}}
	}
	servers["m-r3"].Push(
		call("c1", "write_file", map[string]any{"path": fileName, "content": hostile}),
		call("c2", "list_files", map[string]any{"path": "."}),
		call("c3", "shell", map[string]any{"command": `printf '\033]52;c;ZXZpbA==\007\033[2J\233J\r\nFORGED-SHELL\n'; cat *.txt`}),
		textReply(map[string]any{"status": "completed", "output": hostile}))
	servers["m-r4a"].Push(textReply(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
		{"criterion": criterion, "verdict": "pass", "failure_class": nil, "evidence": hostile}}}))
	servers["m-r4b"].Push(textReply(map[string]any{"summary": hostile, "merged": hostile,
		"verdicts": []map[string]any{{"criterion": task, "verdict": "pass", "failure_class": nil, "evidence": hostile}}}))
	router := modelRouter(t, servers, nil)
	cfg := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(cfg, []byte("base_url: "+router.URL+"/v1\nmodel: m-r3\nroles:\n"+
		"  R1: {model: m-r1, tier: 1}\n  R2: {model: m-r2, tier: 2}\n  R3: {model: m-r3, tier: 1}\n"+
		"  R4a: {model: m-r4a, tier: 1}\n  R4b: {model: m-r4b, tier: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", runTestKey)
	trace, mem := filepath.Join(dir, "run.trace.jsonl"), filepath.Join(dir, "mem")

	out, errOut, code := cliCase(t, true, "run", "--config", cfg, "--workdir", work, "--trace", trace, "--memory", mem,
		"List the files \x1b]0;pwned\x07\nFORGED-TASK")
	if code != exitOK {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	wantShown(t, "run's live display", out, entries[:1])
	if _, err := os.Stat(filepath.Join(work, fileName)); err != nil {
		t.Fatalf("write_file did not write the hostile name: %v", err)
	}
	recorded, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// list_files shows the name as one entry.
	if !bytes.Contains(recorded, []byte(`notes.txt\\nFORGED-FILE\\x1b[2J.txt`)) {
		t.Errorf("list_files did not list the name escaped")
	}

	show, _, _ := cliCase(t, true, "trace", "show", trace)
	if !strings.Contains(show, "tool:list_files") || !strings.Contains(show, `write_file notes.txt\nFORGED-FILE\x1b[2J.txt`) {
		t.Errorf("trace show lacks the listing or the written file's name, escaped:\n%s", show)
	}
	cliCase(t, true, "trace", "show", "--all", trace)
	cliCase(t, true, "audit", trace)
	cliCase(t, true, "replay", "--check", trace)
	cliCase(t, true, "trace", "loss", trace)
	// The memory holds the pairs the run touched; their entities name the targets.
	ls, lsErr, _ := cliCase(t, true, "memory", "ls", "--db", mem)
	shown, jsonChecked := 0, 0
	for _, l := range strings.Split(ls, "\n") {
		if id, _, ok := strings.Cut(l, " "); ok && id != "ID" && !strings.HasSuffix(l, "megrams") {
			// A record's content is a block, each of its lines indented under "content:".
			cliCase(t, false, "memory", "show", "--db", mem, id)
			shown++
			// --json is for programs: the content's characters are there as written.
			js, _, _ := runCLI(t, "memory", "show", "--json", "--db", mem, id)
			if strings.Contains(js, "FORGED-NL") {
				jsonChecked++
				if !strings.Contains(js, "\u009b2J\u009bH | \u009d0;pwned\u009c | a\u0085FORGED-NEL | report\u202etxt.exe") {
					t.Errorf("memory show --json changed the content's characters:\n%s", js)
				}
			}
		}
	}
	if jsonChecked == 0 {
		t.Errorf("no record's content holds the text")
	}
	if shown == 0 {
		t.Errorf("memory ls listed no record:\n%s%s", ls, lsErr)
	}
}

// terminalFleetStatus: the status of tasks whose text, worker, error and summary hold
// the text shows one line per field.
func terminalFleetStatus(t *testing.T, hostile string) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := fleet.Status{
		Task:  fleet.Task{ID: "task-1\nFORGED-ID", Text: hostile, SubmittedAt: at},
		State: fleet.Finished,
		Attempts: []fleet.Attempt{{N: 1, Worker: "w\x1b]0;pwned\x07\nFORGED-WORKER", RunID: "run\u202e1", State: "failed" + hostile,
			Error: hostile}},
		Accepted: 1,
		Final:    &contract.FinalResult{Directive: "accept\nFORGED-DIRECTIVE", Summary: hostile, Reason: hostile},
		Error:    hostile,
	}
	var b bytes.Buffer
	fleettext.Status(&b, st)
	termSafe(t, "status of a task", b.String(), true)
	b.Reset()
	fleettext.Statuses(&b, []fleet.Status{st, st})
	termSafe(t, "status of the fleet", b.String(), true)
	if n := strings.Count(b.String(), "\n"); n != 3 {
		t.Errorf("the fleet's status has %d lines, want 3:\n%s", n, b.String())
	}
}
