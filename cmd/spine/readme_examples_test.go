package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestREADMEExamples runs every command output the README marks with <!-- example -->:
// a fenced block of "$ COMMAND" lines, each followed by what it prints, stdout then
// stderr. A command is "spine ARGS" or "go run ./cmd/spine ARGS" (with "< FILE" for
// stdin), "sed 's/RE/TEXT/' IN > OUT" (to make an edited copy of a shipped file), and may
// start with "cd DIR && ". A fenced block marked <!-- example-file: NAME --> is a file the
// examples read. Each example runs in its own temporary copy of the repository's tree
// (its files linked, not copied), so what a command writes stays there.
//
// A line "…" of the expected output stands for any number of lines the README leaves
// out, and "…" inside a line for any text (a run id, a time, a hash), so that an example
// can show the lines it is about.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples, files := readmeExamples(string(readme))
	if len(examples) == 0 {
		t.Fatal("README.md marks no example")
	}
	for _, ex := range examples {
		t.Run(fmt.Sprintf("line_%d", ex.line), func(t *testing.T) {
			dir := t.TempDir()
			if err := linkTree(root, dir); err != nil {
				t.Fatal(err)
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			for _, c := range ex.commands {
				got, err := runExampleCommand(c.text)
				if err != nil {
					t.Fatalf("README.md line %d: %s: %v", c.line, c.text, err)
				}
				if !matchElided(c.want, got) {
					t.Errorf("README.md line %d: %s prints\n%s\nthe README shows\n%s",
						c.line, c.text, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
				}
			}
		})
	}
}

type readmeExample struct {
	line     int // of the block's first command in README.md
	commands []exampleCommand
}

type exampleCommand struct {
	line int    // in README.md
	text string // after "$ "
	want []string
}

var exampleFileMark = regexp.MustCompile(`^<!-- example-file: (\S+) -->$`)

// readmeExamples finds the marked blocks: the examples, and the files they read by name.
func readmeExamples(readme string) ([]readmeExample, map[string]string) {
	lines := strings.Split(readme, "\n")
	var out []readmeExample
	files := map[string]string{}
	for i := 0; i+2 < len(lines); i++ {
		mark := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(lines[i+1], "```") {
			continue
		}
		if m := exampleFileMark.FindStringSubmatch(mark); m != nil {
			var body []string
			for j := i + 2; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
				body = append(body, lines[j])
			}
			files[m[1]] = strings.Join(body, "\n") + "\n"
			continue
		}
		if mark != "<!-- example -->" {
			continue
		}
		ex := readmeExample{line: i + 3}
		for j := i + 2; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			if cmd, ok := strings.CutPrefix(lines[j], "$ "); ok {
				ex.commands = append(ex.commands, exampleCommand{line: j + 1, text: cmd})
				continue
			}
			if len(ex.commands) == 0 { // output before any command: fails as such
				ex.commands = append(ex.commands, exampleCommand{line: j + 1, text: lines[j]})
				continue
			}
			c := &ex.commands[len(ex.commands)-1]
			c.want = append(c.want, lines[j])
		}
		out = append(out, ex)
	}
	return out, files
}

// linkTree makes dst a copy of src's directories whose files are symbolic links to
// src's, leaving out .git.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return os.Symlink(path, filepath.Join(dst, rel))
	})
}

// runExampleCommand runs one "$" line of an example in the current directory and
// returns what it printed, stdout then stderr, as lines.
func runExampleCommand(text string) ([]string, error) {
	if i := strings.Index(text, "  #"); i >= 0 { // a comment for the reader
		text = strings.TrimSpace(text[:i])
	}
	if dir, rest, ok := strings.Cut(text, " && "); ok {
		d, ok := strings.CutPrefix(dir, "cd ")
		if !ok {
			return nil, fmt.Errorf("only \"cd DIR && COMMAND\" may chain commands")
		}
		if err := os.Chdir(strings.TrimSpace(d)); err != nil {
			return nil, err
		}
		text = rest
	}
	words, err := shellWords(text)
	if err != nil {
		return nil, err
	}
	var stdin []byte
	if n := len(words); n >= 2 && words[n-2] == "<" {
		if stdin, err = os.ReadFile(words[n-1]); err != nil {
			return nil, err
		}
		words = words[:n-2]
	}
	var args []string
	switch {
	case len(words) >= 1 && words[0] == "spine":
		args = words[1:]
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/spine":
		args = words[3:]
	case len(words) == 5 && words[0] == "sed" && words[3] == ">":
		return nil, sedSubstitute(words[1], words[2], words[4])
	default:
		return nil, fmt.Errorf("not a command the README's examples run")
	}
	var out, errb bytes.Buffer
	Run(context.Background(), args, bytes.NewReader(stdin), &out, &errb)
	return strings.Split(strings.TrimRight(out.String()+errb.String(), "\n"), "\n"), nil
}

// sedSubstitute does what "sed '[N]s/RE/TEXT/' in > out" does for the README's examples:
// the first match of RE (which holds no "/" and no "\") on each line, or on line N
// alone, becomes TEXT (which holds no "&").
func sedSubstitute(script, in, out string) error {
	only := 0
	if i := strings.IndexFunc(script, func(r rune) bool { return r < '0' || r > '9' }); i > 0 {
		only, _ = strconv.Atoi(script[:i])
		script = script[i:]
	}
	parts := strings.Split(script, "/")
	if len(parts) != 4 || parts[0] != "s" || parts[3] != "" || strings.Contains(script, `\`) || strings.Contains(parts[2], "&") {
		return fmt.Errorf("sed script %q: want [N]s/RE/TEXT/ with no \\ and no & in TEXT", script)
	}
	re, err := regexp.Compile(parts[1])
	if err != nil {
		return err
	}
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if only != 0 && i+1 != only {
			continue
		}
		if loc := re.FindStringIndex(l); loc != nil {
			lines[i] = l[:loc[0]] + parts[2] + l[loc[1]:]
		}
	}
	return os.WriteFile(out, []byte(strings.Join(lines, "")), 0o644)
}

// shellWords splits a command line at blanks, keeping what is inside '…' or "…" whole.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// matchElided says whether got is want, each "…" line in want standing for any number
// of lines of got and each "…" inside a line for any text.
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
	return len(got) > 0 && lineMatches(want[0], got[0]) && matchElided(want[1:], got[1:])
}

// lineMatches says whether got is want, each "…" in want standing for any text.
func lineMatches(want, got string) bool {
	if !strings.Contains(want, "…") {
		return want == got
	}
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

func TestMatchElided(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"a\n…\nd", "a\nb\nc\nd", true},
		{"a\n…\nd", "a\nd", true},
		{"a\n…", "a\nb\nc", true},
		{"…\nd", "a\nb", false},
		{"run-…: success", "run-01HZX: success", true},
		{"run-…: success", "run-01HZX: abandon", false},
		{"sha256:8c7c…)", "sha256:8c7c0123)", true},
		{"x (…) y", "x (a.b) y", true},
		{"x…", "y", false},
	} {
		if got := matchElided(strings.Split(c.want, "\n"), strings.Split(c.got, "\n")); got != c.ok {
			t.Errorf("matchElided(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`sed 's/^  a: 1 /  a: 2 /' in.yaml > "out file"`)
	want := []string{"sed", "s/^  a: 1 /  a: 2 /", "in.yaml", ">", "out file"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("shellWords = %q, %v; want %q", got, err, want)
	}
	if _, err := shellWords(`a 'b`); err == nil {
		t.Error("shellWords accepted an unclosed quote")
	}
}

// TestREADMECommandTable checks that the README's command table has a row for every
// command "spine --help" lists ("help" aside).
func TestREADMECommandTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Commands\n")
	if !ok {
		t.Fatal("README.md has no \"## Commands\" section")
	}
	table, _, _ = strings.Cut(table, "\n\n") // the table ends at the first blank line after it
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("spine --help: status %d: %s", code, errb.String())
	}
	_, list, _ := strings.Cut(out.String(), "\nCommands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	n := 0
	for _, l := range strings.Split(list, "\n") {
		name := strings.Fields(l)[0]
		n++
		if name == "help" {
			continue
		}
		if !regexp.MustCompile("(^|\n)\\|[^\n]*`spine " + regexp.QuoteMeta(name) + "[ `]").MatchString(table) {
			t.Errorf("spine --help lists %q; the README's command table has no row for it", name)
		}
	}
	if n < 10 {
		t.Fatalf("spine --help lists %d commands:\n%s", n, out.String())
	}
}
