package fleet

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// TestStateFile: the state directory follows $XDG_STATE_HOME, else $HOME; the state
// file is written whole and read back; a file without a URL is refused naming it.
func TestStateFile(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/spine"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/spine"},
		{map[string]string{}, ""},
	} {
		got, err := StateDir(env(tc.env))
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "spine", StateName)
	st := State{URL: "nats://127.0.0.1:4222", Dir: "/d", PID: 7}
	if err := WriteState(path, st); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadState(path); err != nil || got != st {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte(`{"dir":"/d"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(path); err == nil || err.Error() != path+` is not a fleet state file (want {"url": ...})` {
		t.Errorf("no URL: %v", err)
	}
}

// TestParseFlags: a server's HOST:PORT, a query's time bound and a file of tasks.
func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		listen string
		port   int
		err    string
	}{
		{"127.0.0.1:4222", 4222, ""},
		{"127.0.0.1:0", -1, ""},
		{"nohost", 0, `"nohost": expected HOST:PORT, e.g. 127.0.0.1:4222`},
		{"h:70000", 0, `"h:70000": the port must be a number from 0 to 65535`},
	} {
		var c ServerConfig
		err := c.ParseListen(tc.listen)
		if tc.err != "" && (err == nil || err.Error() != tc.err) || tc.err == "" && (err != nil || c.Port != tc.port) {
			t.Errorf("%s: port %d, %v", tc.listen, c.Port, err)
		}
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Time{"": {}, "2h": now.Add(-2 * time.Hour), "2026-01-02T03:04:05Z": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} {
		if got, err := ParseWhen(v, now); err != nil || !got.Equal(want) {
			t.Errorf("%q: %v, %v", v, got, err)
		}
	}
	if _, err := ParseWhen("-2h", now); err == nil {
		t.Error("a duration forward from now was taken")
	}
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.txt")
	if err := os.WriteFile(tasks, []byte("# batch\n one \n\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadTaskFile(tasks); err != nil || len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Errorf("tasks %q, %v", got, err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTaskFile(empty); err == nil {
		t.Error("a file of no task was taken")
	}
}

// TestTaskTexts: a submit's text is one task, --file's lines are many, both or neither
// is a TaskArgError.
func TestTaskTexts(t *testing.T) {
	tasks := filepath.Join(t.TempDir(), "tasks.txt")
	if err := os.WriteFile(tasks, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text, file string
		want       []string
		argErr     bool
	}{
		{"count the TODOs", "", []string{"count the TODOs"}, false},
		{"", tasks, []string{"one", "two"}, false},
		{"count", tasks, nil, true},
		{"  ", "", nil, true},
	} {
		got, err := TaskTexts(tc.text, tc.file)
		var ae *TaskArgError
		if errors.As(err, &ae) != tc.argErr || !slices.Equal(got, tc.want) {
			t.Errorf("TaskTexts(%q, %q) = %q, %v", tc.text, tc.file, got, err)
		}
	}
}

// TestAuditAnswerFailed: an answer fails its asker on an error finding or on drift only.
func TestAuditAnswerFailed(t *testing.T) {
	run := func(sev string) RunReport { return RunReport{Findings: []contract.AuditReport{{Severity: sev}}} }
	for _, tc := range []struct {
		ans  AuditAnswer
		want bool
	}{
		{AuditAnswer{}, false},
		{AuditAnswer{Runs: []RunReport{run("warning")}}, false},
		{AuditAnswer{Runs: []RunReport{run("warning"), run("error")}}, true},
		{AuditAnswer{Drift: []Drift{{Role: "R3"}}}, true},
	} {
		if got := tc.ans.Failed(); got != tc.want {
			t.Errorf("%+v: Failed %v, want %v", tc.ans, got, tc.want)
		}
	}
}

// TestConnectFromEnv: the secrets and the URL come from the environment, a URL given
// wins, and a user without a password is refused naming the variable.
func TestConnectFromEnv(t *testing.T) {
	env := map[string]string{EnvURL: "nats://env:4222", EnvPassword: "pw", EnvToken: "tok"}
	getenv := func(k string) string { return env[k] }
	o := ConnectOptions{}
	if err := o.FromEnv(getenv); err != nil || o.URL != "nats://env:4222" || o.Token != "tok" || o.Password != "" {
		t.Errorf("no user: %+v, %v", o, err)
	}
	o = ConnectOptions{URL: "nats://flag:4222", User: "op"}
	if err := o.FromEnv(getenv); err != nil || o.URL != "nats://flag:4222" || o.Password != "pw" || o.Token != "" {
		t.Errorf("a user: %+v, %v", o, err)
	}
	delete(env, EnvPassword)
	o = ConnectOptions{User: "op"}
	if err := o.FromEnv(getenv); err == nil || err.Error() != "op needs its password in $"+EnvPassword {
		t.Errorf("a user without a password: %v", err)
	}
	srv := ServerConfig{User: "op"}
	if err := srv.FromEnv(getenv); err == nil || err.Error() != "op needs its password in $"+EnvPassword {
		t.Errorf("a server's user without a password: %v", err)
	}
	srv = ServerConfig{}
	if err := srv.FromEnv(getenv); err != nil || srv.Token != "tok" {
		t.Errorf("a server's token: %+v, %v", srv, err)
	}
}
