package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// commandPaths lists every command of the tree, as the words after spine.
func commandPaths() [][]string {
	root := newRoot(testStdio())
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Hidden {
				continue
			}
			p := append(append([]string{}, path...), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	walk(root, nil)
	return paths
}

// TestHelpOnStdout: every command's help, asked for as --help, -h, -help or with
// `spine help`, is written on stdout with exit 0 and nothing on stderr, and begins with
// its usage line.
func TestHelpOnStdout(t *testing.T) {
	paths := commandPaths()
	if len(paths) < 20 {
		t.Fatalf("only %d commands found: %q", len(paths), paths)
	}
	for _, p := range paths {
		name := strings.Join(p, " ")
		for _, args := range [][]string{
			append(append([]string{}, p...), "--help"),
			append(append([]string{}, p...), "-h"),
			append(append([]string{}, p...), "-help"),
			append([]string{"help"}, p...),
		} {
			out, errOut, code := runCLI(t, args...)
			if code != exitOK || errOut != "" || !strings.HasPrefix(out, "Usage: spine "+name) {
				t.Errorf("spine %q: exit %d, stderr %q, stdout\n%s", args, code, errOut, out)
			}
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errOut, code := runCLI(t, args...)
		if code != exitOK || errOut != "" || !strings.HasPrefix(out, "spine: a deterministic control spine") ||
			!strings.Contains(out, "\n  completion ") || !strings.Contains(out, "\n  memory ") {
			t.Errorf("spine %q: exit %d, stderr %q, stdout\n%s", args, code, errOut, out)
		}
	}
}

// TestHelpNamesFlags: a command's help lists its flags with their types and defaults, and
// a subcommand's help the flags it takes from its parent.
func TestHelpNamesFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--help"}, []string{"Usage: spine run [flags] \"task text\"\n",
			"\n      --workdir DIR ", "(default \".\")", "\n      --allow-net HOST[:PORT] "}},
		{[]string{"memory", "ls", "--help"}, []string{"Usage: spine memory ls [flags]\n",
			"\n      --space SPACE ", "\nFlags of spine memory:\n      --db DIR "}},
		{[]string{"replay", "--help"}, []string{"\n      --jobs N ", "\n      --what-if "}},
	} {
		out, _, _ := runCLI(t, tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("spine %q: no %q in\n%s", tc.args, w, out)
			}
		}
	}
}

// TestCompletion: the completion script for each shell is written on stdout, and the
// completions it asks for name subcommands and flags.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct{ shell, want string }{
		{"bash", "# bash completion V2 for spine"},
		{"zsh", "#compdef spine"},
		{"fish", "complete -c spine "},
	} {
		out, errOut, code := runCLI(t, "completion", tc.shell)
		if code != exitOK || errOut != "" || !strings.Contains(out, tc.want) {
			t.Errorf("spine completion %s: exit %d, stderr %q, no %q in %d bytes", tc.shell, code, errOut, tc.want, len(out))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "trace", "s"}, "\nshow\t"},
		{[]string{"__complete", "memory", "p"}, "\npotentials\t"},
		{[]string{"__complete", "run", "--wo"}, "\n--workdir\t"},
		{[]string{"__complete", "memory", "ls", "--d"}, "\n--db\t"},
	} {
		out, _, _ := runCLI(t, tc.args...)
		if !strings.Contains("\n"+out, tc.want) {
			t.Errorf("spine %q: no %q in\n%s", tc.args, tc.want, out)
		}
	}
}

// testStdio is a Run's streams over buffers, for tests that build the command tree.
func testStdio() stdio {
	s, _ := newStdio(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	return s
}
