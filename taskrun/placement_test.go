package taskrun

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRunPlacement(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	for _, d := range []string{filepath.Join(work, "sub"), filepath.Join(root, "outside"), filepath.Join(root, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link outside the work dir that leads into it, and one inside that leads out.
	if err := os.Symlink(filepath.Join(work, "sub"), filepath.Join(root, "into")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(work, "out")); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	home := func() (string, error) { return filepath.Join(root, "home"), nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	outside := filepath.Join(root, "outside")
	for _, tc := range []struct {
		name                        string
		workdir, config, trace, mem string
		rules                       string
		vars                        map[string]string
		home                        func() (string, error)
		wantDir, wantErr            string
	}{
		{name: "everything outside", workdir: work, config: outside + "/m.yaml", trace: outside + "/t.jsonl", mem: outside + "/mem", home: home},
		{name: "default trace dir under home", workdir: work, home: home, wantDir: root + "/home/.local/state/spine/traces"},
		{name: "XDG_STATE_HOME", workdir: work, vars: map[string]string{"XDG_STATE_HOME": root + "/state"}, home: home,
			wantDir: root + "/state/spine/traces"},
		{name: "SPINE_TRACE_DIR first", workdir: work, vars: map[string]string{"XDG_STATE_HOME": root + "/state", EnvTraceDir: outside},
			home: home, wantDir: outside},
		{name: "config inside", workdir: work, config: work + "/spine.yaml", trace: outside + "/t.jsonl", home: home,
			wantErr: "--config " + work + "/spine.yaml is inside the work dir " + work + ", where the executor's tools could read the API key in it; move it out of " + work + ", or choose another --workdir"},
		{name: "trace inside, in a directory not made yet", workdir: work, trace: work + "/traces/new/t.jsonl", home: home,
			wantErr: "--trace " + work + "/traces/new/t.jsonl is inside the work dir " + work + ", where the executor's tools could rewrite the run's record; move it out of " + work + ", or choose another --workdir"},
		{name: "memory is the work dir", workdir: work, mem: work, trace: outside + "/t.jsonl", home: home,
			wantErr: "--memory " + work + " is inside the work dir " + work + ", where the executor's tools could read or rewrite what memory has learnt; move it out of " + work + ", or choose another --workdir"},
		{name: "watched rules inside", workdir: work, rules: work + "/ggs.yaml", trace: outside + "/t.jsonl", home: home,
			wantErr: "--rules (with --watch) " + work + "/ggs.yaml is inside the work dir " + work + ", where the executor's tools could rewrite the rules the run obeys; move it out of " + work + ", or choose another --workdir"},
		{name: "a symlink into the work dir", workdir: work, config: root + "/into/m.yaml", trace: outside + "/t.jsonl", home: home,
			wantErr: "--config " + root + "/into/m.yaml (" + work + "/sub/m.yaml) is inside the work dir " + work + ", where the executor's tools could read the API key in it; move it out of " + work + ", or choose another --workdir"},
		{name: "a symlink out of the work dir", workdir: work, config: work + "/out/m.yaml", trace: outside + "/t.jsonl", home: home},
		{name: "a work dir reached through a symlink", workdir: root + "/into", config: work + "/sub/m.yaml", trace: outside + "/t.jsonl", home: home,
			wantErr: "--config " + work + "/sub/m.yaml is inside the work dir " + work + "/sub, where the executor's tools could read the API key in it; move it out of " + work + "/sub, or choose another --workdir"},
		{name: "SPINE_TRACE_DIR inside", workdir: work, vars: map[string]string{EnvTraceDir: work + "/traces"}, home: home,
			wantErr: "SPINE_TRACE_DIR " + work + "/traces is inside the work dir " + work + ", where the executor's tools could rewrite the run's record; move it out of " + work + ", or choose another --workdir"},
		{name: "default trace dir inside (home is the work dir)", workdir: work, home: func() (string, error) { return work, nil },
			wantErr: "the trace directory " + work + "/.local/state/spine/traces is inside the work dir " + work + ", where the executor's tools could rewrite the run's record; move it out of " + work + ", or choose another --workdir"},
		{name: "no place for the trace", workdir: work, home: noHome,
			wantErr: "no directory for the trace: $SPINE_TRACE_DIR, $XDG_STATE_HOME and $HOME are unset; set one of them or pass --trace FILE (outside the work dir)"},
		{name: "a missing work dir is the sandbox's to report", workdir: root + "/nowhere", config: root + "/nowhere/m.yaml", home: home,
			wantDir: root + "/home/.local/state/spine/traces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := runPlacement(tc.workdir, tc.config, tc.trace, tc.mem, tc.rules, env(tc.vars), tc.home)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("error\n got %v\nwant %s", err, tc.wantErr)
			case dir != tc.wantDir:
				t.Errorf("trace dir %q, want %q", dir, tc.wantDir)
			}
		})
	}
}

func TestInside(t *testing.T) {
	for _, tc := range []struct {
		dir, p string
		want   bool
	}{
		{"/w", "/w", true}, {"/w", "/w/a", true}, {"/w", "/w/a/b", true}, {"/w", "/w2", false}, {"/w", "/", false},
		{"/w", "/x/w", false}, {"/w", "/w/..a", true}, {"/", "/anything", true},
	} {
		if got := inside(tc.dir, tc.p); got != tc.want {
			t.Errorf("inside(%q, %q) = %v, want %v", tc.dir, tc.p, got, tc.want)
		}
	}
}
