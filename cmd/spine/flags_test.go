package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// evenValue is a flag type with its own Set error, as --allow-net has.
type evenValue int

func (e *evenValue) String() string { return fmt.Sprint(int(*e)) }
func (e *evenValue) Set(s string) error {
	if len(s)%2 != 0 {
		return errors.New("want an even number of characters")
	}
	*e = evenValue(len(s))
	return nil
}

// testFlags is a flag set with one flag of each kind the commands use.
func testFlags() (*flag.FlagSet, func() string) {
	fs := flag.NewFlagSet("spine test", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	trace := fs.String("trace", "", "")
	workdir := fs.String("workdir", ".", "")
	all := fs.Bool("all", false, "")
	check := fs.Bool("check", false, "")
	jobs := fs.Int("jobs", 1, "")
	timeout := fs.Duration("timeout", 0, "")
	var even evenValue
	fs.Var(&even, "even", "")
	return fs, func() string {
		return fmt.Sprintf("trace=%q workdir=%q all=%v check=%v jobs=%d timeout=%s even=%d args=%q",
			*trace, *workdir, *all, *check, *jobs, *timeout, even, fs.Args())
	}
}

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // the flags and positionals after parsing, or "error: ..."
	}{
		{"flags first", []string{"--workdir", "w", "--trace", "t", "do it"},
			`trace="t" workdir="w" all=false check=false jobs=1 timeout=0s even=0 args=["do it"]`},
		{"flags after the positional", []string{"do it", "--workdir", "w", "--trace", "t"},
			`trace="t" workdir="w" all=false check=false jobs=1 timeout=0s even=0 args=["do it"]`},
		{"flags between positionals keep their order", []string{"a", "--all", "b", "-jobs", "3", "c"},
			`trace="" workdir="." all=true check=false jobs=3 timeout=0s even=0 args=["a" "b" "c"]`},
		{"a boolean does not take the next argument", []string{"--all", "FILE"},
			`trace="" workdir="." all=true check=false jobs=1 timeout=0s even=0 args=["FILE"]`},
		{"a boolean takes an inline value", []string{"FILE", "--all=false", "--check=true"},
			`trace="" workdir="." all=false check=true jobs=1 timeout=0s even=0 args=["FILE"]`},
		{"inline values", []string{"--trace=a=b", "x", "--jobs=4", "--timeout=2m"},
			`trace="a=b" workdir="." all=false check=false jobs=4 timeout=2m0s even=0 args=["x"]`},
		{"a value may start with a dash", []string{"--trace", "-odd-name", "x"},
			`trace="-odd-name" workdir="." all=false check=false jobs=1 timeout=0s even=0 args=["x"]`},
		{"an empty inline value", []string{"--trace=", "x"},
			`trace="" workdir="." all=false check=false jobs=1 timeout=0s even=0 args=["x"]`},
		{"-- ends the flags", []string{"--check", "--", "--a task that starts with dashes", "--all"},
			`trace="" workdir="." all=false check=true jobs=1 timeout=0s even=0 args=["--a task that starts with dashes" "--all"]`},
		{"a lone dash is a positional", []string{"-", "--all"},
			`trace="" workdir="." all=true check=false jobs=1 timeout=0s even=0 args=["-"]`},
		{"the last of a repeated flag wins", []string{"--jobs", "2", "x", "--jobs", "5"},
			`trace="" workdir="." all=false check=false jobs=5 timeout=0s even=0 args=["x"]`},
		{"no arguments", nil,
			`trace="" workdir="." all=false check=false jobs=1 timeout=0s even=0 args=[]`},
		{"custom value", []string{"--even", "ab"},
			`trace="" workdir="." all=false check=false jobs=1 timeout=0s even=2 args=[]`},

		{"unknown flag after a positional", []string{"task", "--wrokdir", "w"}, `error: unknown flag --wrokdir`},
		{"unknown flag with a value", []string{"-nope=1"}, `error: unknown flag -nope`},
		{"help", []string{"task", "--help"}, `error: flag: help requested`},
		{"short help", []string{"-h"}, `error: flag: help requested`},
		{"missing value at the end", []string{"task", "--trace"}, `error: flag --trace needs a value`},
		{"missing typed value", []string{"--jobs"}, `error: flag --jobs needs a value: expected an integer`},
		{"bad integer", []string{"--jobs", "many", "x"}, `error: --jobs="many": expected an integer`},
		{"duration without a unit", []string{"x", "--timeout=120"}, `error: --timeout="120": expected a duration with a unit, e.g. 120s or 2m`},
		{"bad boolean", []string{"--all=maybe"}, `error: --all="maybe": expected true or false`},
		{"a custom type's own error", []string{"--even=abc"}, `error: --even="abc": want an even number of characters`},
		{"three dashes", []string{"---all"}, `error: bad flag syntax "---all": write --name or --name=value`},
		{"no name", []string{"--=x"}, `error: bad flag syntax "--=x": write --name or --name=value`},
		{"the first error wins", []string{"--jobs=x", "--nope"}, `error: --jobs="x": expected an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, show := testFlags()
			got := ""
			if err := parseArgs(fs, tc.args); err != nil {
				got = "error: " + err.Error()
			} else {
				got = show()
			}
			if got != tc.want {
				t.Errorf("parseArgs(%q)\n got %s\nwant %s", tc.args, got, tc.want)
			}
		})
	}
}

// TestParseFlagsStatus checks the exit statuses and that a usage error names the flag
// and points to --help.
func TestParseFlagsStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		done bool
		err  string
	}{
		{[]string{"x", "--all"}, exitOK, false, ""},
		{[]string{"x", "--help"}, exitOK, true, "Usage: test\n"},
		{[]string{"x", "--bogus"}, exitUsage, true, "spine test: unknown flag --bogus\nRun 'spine test --help' for its flags.\n"},
	} {
		fs, _ := testFlags()
		var out bytes.Buffer
		fs.SetOutput(&out)
		fs.Usage = func() { fmt.Fprintln(&out, "Usage: test") }
		code, done := parseFlags(fs, tc.args)
		if code != tc.code || done != tc.done || out.String() != tc.err {
			t.Errorf("parseFlags(%q) = %d, %v, %q; want %d, %v, %q", tc.args, code, done, out.String(), tc.code, tc.done, tc.err)
		}
	}
}

// FuzzParseArgs checks that any command line parses or fails without a panic, and that
// the positionals are exactly the non-flag arguments, in order, when no "--" and no
// value-taking flag is involved.
func FuzzParseArgs(f *testing.F) {
	f.Add("do it\x00--all\x00x")
	f.Add("--trace\x00t\x00--\x00-x")
	f.Add("---\x00-\x00--=\x00--jobs=1")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		fs, _ := testFlags()
		err := parseArgs(fs, args)
		if err != nil {
			return
		}
		simple := true
		var want []string
		for _, a := range args {
			if a == "--" || strings.HasPrefix(a, "--trace") || strings.HasPrefix(a, "-trace") ||
				strings.HasPrefix(a, "--workdir") || strings.HasPrefix(a, "-workdir") ||
				strings.HasPrefix(a, "--jobs") || strings.HasPrefix(a, "-jobs") ||
				strings.HasPrefix(a, "--timeout") || strings.HasPrefix(a, "-timeout") ||
				strings.HasPrefix(a, "--even") || strings.HasPrefix(a, "-even") {
				simple = false
			}
			if !isFlagArg(a) {
				want = append(want, a)
			}
		}
		if simple && strings.Join(fs.Args(), "\x00") != strings.Join(want, "\x00") {
			t.Errorf("parseArgs(%q): positionals %q, want %q", args, fs.Args(), want)
		}
	})
}
