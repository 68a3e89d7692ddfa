package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestREADMEExamples runs every command output the README marks with <!-- example -->
// (a fenced block: "$ spine ARGS" or "$ go run ./cmd/spine ARGS", then what it prints)
// from the repository's root and compares what it prints, stdout then stderr, line by
// line. A line "…" stands for any number of lines the README leaves out, so that an
// example can show the lines it is about.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(string(readme))
	if len(examples) == 0 {
		t.Fatal("README.md marks no example")
	}
	t.Chdir("../..")
	for _, ex := range examples {
		t.Run(strings.Join(ex.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			Run(context.Background(), ex.args, strings.NewReader(""), &out, &errb)
			got := strings.Split(strings.TrimRight(out.String()+errb.String(), "\n"), "\n")
			if !matchElided(ex.want, got) {
				t.Errorf("README.md line %d: spine %s prints\n%s\nthe README shows\n%s",
					ex.line, strings.Join(ex.args, " "), strings.Join(got, "\n"), strings.Join(ex.want, "\n"))
			}
		})
	}
}

type readmeExample struct {
	line int // of the command in README.md
	args []string
	want []string
}

// readmeExamples finds the marked blocks.
func readmeExamples(readme string) []readmeExample {
	lines := strings.Split(readme, "\n")
	var out []readmeExample
	for i := 0; i+2 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "<!-- example -->" || !strings.HasPrefix(lines[i+1], "```") {
			continue
		}
		cmd := lines[i+2]
		for _, p := range []string{"$ go run ./cmd/spine ", "$ spine "} {
			cmd = strings.TrimPrefix(cmd, p)
		}
		args := strings.Fields(cmd) // the examples quote nothing
		if cmd == lines[i+2] {
			args = []string{"not-a-spine-command: " + cmd}
		}
		ex := readmeExample{line: i + 3, args: args}
		for j := i + 3; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			ex.want = append(ex.want, lines[j])
		}
		out = append(out, ex)
	}
	return out
}

// matchElided says whether got is want, each "…" line in want standing for any number
// of lines of got.
func matchElided(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || (len(got) == 1 && got[0] == "")
	}
	if want[0] == "…" {
		for k := 0; k <= len(got); k++ {
			if matchElided(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchElided(want[1:], got[1:])
}
