package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodes holds every command that reads a file to the README's exit-code table:
// a missing, an empty, a directory and a wrong-kind argument are each an input error,
// status 1, said once on stderr as "spine COMMAND: FILE: why"; no argument at all is a
// usage error, status 2. The commands are the ones the README names under the table.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	ok := "../../fixtures/ggs/refine_then_accept.trace.jsonl"
	rules := "../../rules/ggs.yaml"
	bad := map[string]string{
		"missing":   filepath.Join(dir, "missing.jsonl"),
		"empty":     filepath.Join(dir, "empty.jsonl"),
		"dir":       filepath.Join(dir, "adir"),
		"notatrace": filepath.Join(dir, "notes.txt"),
	}
	writeFile(t, bad["empty"], "")
	writeFile(t, bad["notatrace"], "hello\n")
	if err := os.Mkdir(bad["dir"], 0o755); err != nil {
		t.Fatal(err)
	}
	// why is what stderr says after "spine COMMAND: FILE" for each kind of bad input; a
	// rule file and a scenario are not traces, so their readers say what they expected.
	traceWhy := map[string]string{
		"missing":   ": no such file or directory",
		"empty":     ": the file is empty; expected a spine trace",
		"dir":       ": a directory", // "a directory, not a regular file" or "a directory with no .jsonl trace under it"
		"notatrace": ":1: invalid JSON",
	}
	commands := []struct {
		name  string   // as the README names it
		args  []string // before the file
		after []string // after it
		why   map[string]string
		bare  string // the kinds said as a compiler says a load error, "FILE:LINE:COL: …", not headed "spine COMMAND: FILE"
	}{
		{"audit", []string{"audit"}, nil, traceWhy, ""},
		{"replay", []string{"replay", "--check"}, nil, traceWhy, ""},
		{"what-if", []string{"what-if", "--rules", rules}, nil, traceWhy, ""},
		{"feedback", []string{"feedback", "--bad", "wrong", "--memory", filepath.Join(dir, "mem")}, nil, traceWhy, ""},
		{"resume", []string{"resume"}, nil, traceWhy, ""},
		{"trace show", []string{"trace", "show"}, nil, traceWhy, ""},
		{"trace loss", []string{"trace", "loss"}, nil, traceWhy, ""},
		{"trace html", []string{"trace", "html", "-o", "-"}, nil, traceWhy, ""},
		{"trace diff", []string{"trace", "diff", ok}, nil, traceWhy, ""},
		{"trace otlp", []string{"trace", "otlp", "--endpoint", "http://127.0.0.1:9/"}, nil, traceWhy, ""},
		{"check", []string{"check"}, nil, map[string]string{
			"missing": ": no such file or directory", "dir": ": a directory, not a regular file",
			"empty": ":1:1: empty rule file", "notatrace": `:1:1: expected a mapping with params, facts, objectives and rules, got "hello"`,
		}, "empty notatrace"},
		{"play", []string{"play"}, nil, map[string]string{
			"missing": ": no such file or directory", "dir": ": a directory, not a regular file",
			"empty": ": the file is empty; expected a scenario", "notatrace": ": line 1: ",
		}, ""},
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := string(readme)
	i := strings.Index(table, "<!-- exit-codes:")
	if i < 0 {
		t.Fatal("README.md has no exit-code table (<!-- exit-codes: … -->)")
	}
	table = table[i:]
	para := strings.Index(table, "A file named")
	table = table[:para+strings.Index(table[para:], "\n\n")]
	for _, row := range []string{"\n| 0 |", "\n| 1 |", "\n| 2 |", "\n| 3 |"} {
		if !strings.Contains(table, row) {
			t.Errorf("README's exit-code table has no row %q", strings.TrimSpace(row))
		}
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z -]+)`").FindAllStringSubmatch(table[strings.Index(table, "every command that reads"):], -1) {
		named[m[1]] = true
	}
	for _, c := range commands {
		if !named[c.name] {
			t.Errorf("README's list of commands that read a file does not name %s", c.name)
		}
		delete(named, c.name)
		for _, kind := range []string{"missing", "empty", "dir", "notatrace"} {
			args := append(append(append([]string{}, c.args...), bad[kind]), c.after...)
			code, _, errs := runSpine(t, args...)
			head := bad[kind]
			if !strings.Contains(c.bare, kind) {
				head = "spine " + c.name + ": " + head
			}
			want := head + c.why[kind]
			if code != exitFail || !strings.HasPrefix(errs, want) {
				t.Errorf("spine %s (%s): exit %d, stderr:\n%s\nwant exit 1, stderr starting %q", strings.Join(args, " "), kind, code, errs, want)
			}
			if strings.Count(errs, bad[kind]+": "+bad[kind]) > 0 || strings.Count(errs, filepath.Base(bad[kind])) > strings.Count(errs, "\n") {
				t.Errorf("spine %s (%s): the file is named more than once a line:\n%s", strings.Join(args, " "), kind, errs)
			}
		}
		if c.name == "trace diff" {
			continue // its first argument is the good trace: one argument is still too few
		}
		if code, _, errs := runSpine(t, c.args...); code != exitUsage {
			t.Errorf("spine %s with no file: exit %d, want 2 (usage)\n%s", strings.Join(c.args, " "), code, errs)
		}
	}
	for n := range named {
		if n != "" && n != ".jsonl" {
			t.Errorf("README names %q as reading a file, and TestExitCodes does not check it", n)
		}
	}
}
