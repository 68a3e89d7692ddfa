package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/cli"
)

// TestCommandLineErrors: a wrong command line exits 2 with a message on stderr that names
// the command, the flag as written, the bad value and what was expected, then where the
// help is; nothing is written on stdout. Flag errors are found before a command runs, so
// the files named need not exist.
func TestCommandLineErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // stderr
	}{
		{[]string{"run", "task", "--wrokdir", "w"},
			"spine run: unknown flag --wrokdir\nRun 'spine run --help' for its flags.\n"},
		{[]string{"run", "--a task that starts with dashes"},
			"spine run: unknown flag --a task that starts with dashes\nRun 'spine run --help' for its flags.\n"},
		{[]string{"run", "task", "--trace"},
			"spine run: flag --trace needs a value\nRun 'spine run --help' for its flags.\n"},
		{[]string{"replay", "a.jsonl", "--jobs", "many"},
			"spine replay: --jobs=\"many\": expected an integer\nRun 'spine replay --help' for its flags.\n"},
		{[]string{"replay", "a.jsonl", "--jobs"},
			"spine replay: flag --jobs needs a value: expected an integer\nRun 'spine replay --help' for its flags.\n"},
		{[]string{"replay", "--jobs=x", "--nope"}, // the first error wins
			"spine replay: --jobs=\"x\": expected an integer\nRun 'spine replay --help' for its flags.\n"},
		{[]string{"trace", "show", "a.jsonl", "--all=maybe"},
			"spine trace show: --all=\"maybe\": expected true or false\nRun 'spine trace show --help' for its flags.\n"},
		{[]string{"trace", "show", "a.jsonl", "-all=maybe"}, // one dash: the same flag
			"spine trace show: --all=\"maybe\": expected true or false\nRun 'spine trace show --help' for its flags.\n"},
		{[]string{"audit", "-nope=1"},
			"spine audit: unknown flag -nope\nRun 'spine audit --help' for its flags.\n"},
		{[]string{"audit", "-x"},
			"spine audit: unknown flag -x\nRun 'spine audit --help' for its flags.\n"},
		{[]string{"audit", "---json"},
			"spine audit: bad flag syntax \"---json\": write --name or --name=value\nRun 'spine audit --help' for its flags.\n"},
		{[]string{"audit", "--=x"},
			"spine audit: bad flag syntax \"--=x\": write --name or --name=value\nRun 'spine audit --help' for its flags.\n"},
		{[]string{"audit", "--replan-cap", "-1x"},
			"spine audit: --replan-cap=\"-1x\": expected an integer\nRun 'spine audit --help' for its flags.\n"},
		{[]string{"memory", "ls", "--db", "m", "--now"},
			"spine memory ls: flag --now needs a value\nRun 'spine memory ls --help' for its flags.\n"},
		{[]string{"memory", "show", "--db", "m", "--space", "s", "x1"},
			"spine memory show: unknown flag --space\nRun 'spine memory show --help' for its flags.\n"},
		{[]string{"memory"},
			"spine memory: expected a verb: dream, export, gc, import, ls, potentials, repair, show, verify\nRun 'spine memory --help' for its commands.\n"},
		{[]string{"memory", "frob"},
			"spine memory: unknown verb \"frob\": want one of dream, export, gc, import, ls, potentials, repair, show, verify\nRun 'spine memory --help' for its commands.\n"},
		{[]string{"nosuch"},
			"spine: unknown command \"nosuch\"\nRun 'spine --help' for its commands.\n"},
		{[]string{"replya", "a.jsonl"},
			"spine: unknown command \"replya\"; did you mean replay?\nRun 'spine --help' for its commands.\n"},
		{[]string{"version", "extra"},
			"spine version: unknown command \"extra\" for \"spine version\"\nRun 'spine version --help' for its flags.\n"},
		{[]string{"help", "nosuch"},
			"spine help: unknown command \"nosuch\"\nRun 'spine help' for the commands.\n"},
		{[]string{"completion", "tcsh"},
			"spine completion: unknown shell \"tcsh\": want one of bash, fish, powershell, zsh\nRun 'spine completion --help' for its commands.\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, tc.args...)
			if code != exitUsage || errOut != tc.want || out != "" {
				t.Errorf("spine %q: exit %d, stdout %q, stderr\n%s\nwant exit 2, no stdout, stderr\n%s", tc.args, code, out, errOut, tc.want)
			}
		})
	}
}

// TestNoArguments: spine alone is a usage error that lists the commands on stderr.
func TestNoArguments(t *testing.T) {
	out, errOut, code := runCLI(t)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "\nCommands:\n") || !strings.Contains(errOut, "\n  run ") {
		t.Errorf("spine: exit %d, stdout %q, stderr\n%s", code, out, errOut)
	}
}

// TestNormalizeArgs: one-dash long flags become two-dash ones, a flag before the
// subcommand that has it moves after it, and values and everything after "--" stay.
func TestNormalizeArgs(t *testing.T) {
	root := newRoot(testStdio())
	for _, tc := range []struct{ in, want []string }{
		{[]string{"trace", "-all", "show", "f"}, []string{"trace", "show", "--all", "f"}},
		{[]string{"trace", "--all", "show", "f"}, []string{"trace", "show", "--all", "f"}},
		{[]string{"trace", "show", "f", "-all"}, []string{"trace", "show", "f", "--all"}},
		{[]string{"run", "t", "-workdir", "w", "-json"}, []string{"run", "t", "--workdir", "w", "--json"}},
		{[]string{"run", "--trace", "-json", "t"}, []string{"run", "--trace", "-json", "t"}},
		{[]string{"run", "--", "-workdir", "-json"}, []string{"run", "--", "-workdir", "-json"}},
		{[]string{"memory", "-db", "m", "ls", "-now=x"}, []string{"memory", "--db", "m", "ls", "--now=x"}},
		{[]string{"memory", "--db", "ls", "ls"}, []string{"memory", "--db", "ls", "ls"}},
		{[]string{"replay", "-help"}, []string{"replay", "--help"}},
		{[]string{"replay", "-h", "-nope"}, []string{"replay", "-h", "-nope"}},
		{[]string{"trace", "-nope", "show"}, []string{"trace", "show", "-nope"}},
		{[]string{"-", "run"}, []string{"-", "run"}},
	} {
		if got := cli.NormalizeArgs(root, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzNormalizeArgs: any command line is rearranged without a panic, keeping every
// argument (at most one dash added) and everything from "--" on in place.
func FuzzNormalizeArgs(f *testing.F) {
	f.Add("trace\x00-all\x00show\x00f")
	f.Add("memory\x00--db\x00-\x00ls\x00--\x00-x")
	f.Add("run\x00-h\x00--trace\x00-\x00---\x00-=\x00--=")
	root := newRoot(testStdio())
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		got := cli.NormalizeArgs(root, args)
		if len(got) != len(args) {
			t.Fatalf("normalizeArgs(%q) = %q: %d arguments, want %d", args, got, len(got), len(args))
		}
		if i := slices.Index(args, "--"); i >= 0 {
			j := slices.Index(got, "--")
			if j < 0 || !slices.Equal(got[j:], args[i:]) {
				t.Fatalf("normalizeArgs(%q) = %q: the arguments from -- on moved", args, got)
			}
		}
		// Every argument is kept, as written or with one dash added.
		left := map[string]int{}
		for _, a := range args {
			left[a]++
		}
		for _, g := range got {
			switch {
			case left[g] > 0:
				left[g]--
			case strings.HasPrefix(g, "--") && left[g[1:]] > 0:
				left[g[1:]]--
			default:
				t.Fatalf("normalizeArgs(%q) = %q: %q is not an argument given", args, got, g)
			}
		}
	})
}
