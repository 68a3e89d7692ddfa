package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headerMeta reads the meta object of a trace's header line.
func headerMeta(t *testing.T, trace []byte) map[string]string {
	t.Helper()
	line, _, _ := bytes.Cut(trace, []byte("\n"))
	var h struct {
		Meta map[string]string `json:"meta"`
	}
	if err := json.Unmarshal(line, &h); err != nil {
		t.Fatalf("header: %v", err)
	}
	return h.Meta
}

// TestRunRecordsTheSandbox: the trace header says how tools were isolated, --no-sandbox
// included, and --no-sandbox is announced before the run starts.
func TestRunRecordsTheSandbox(t *testing.T) {
	t.Run("bubblewrap", func(t *testing.T) {
		ar := newAcceptRun(t, nil)
		_, trace := ar.run(t)
		if got := headerMeta(t, trace)["sandbox"]; !strings.HasPrefix(got, "bubblewrap ") {
			t.Errorf("meta.sandbox = %q, want bubblewrap and its version", got)
		}
	})
	t.Run("no-sandbox", func(t *testing.T) {
		ar := newAcceptRun(t, nil)
		var out, errOut bytes.Buffer
		code := Run(context.Background(), []string{"run", "--config", ar.cfg, "--workdir", filepath.Join(ar.dir, "work"),
			"--trace", ar.trace, "--no-sandbox", "What port does the app use?"}, strings.NewReader(""), &out, &errOut)
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
		}
		if !strings.Contains(errOut.String(), "warning: --no-sandbox: tools run UNCONFINED") {
			t.Errorf("stderr lacks the --no-sandbox warning:\n%s", errOut.String())
		}
		trace, err := os.ReadFile(ar.trace)
		if err != nil {
			t.Fatal(err)
		}
		if got := headerMeta(t, trace)["sandbox"]; got != "none (--no-sandbox)" {
			t.Errorf("meta.sandbox = %q", got)
		}
	})
}

// TestRunRefusesWithoutIsolation: with no bubblewrap to be found, `spine run` says what
// is missing and how to opt out, and no model is called.
func TestRunRefusesWithoutIsolation(t *testing.T) {
	calls := 0
	ar := newAcceptRun(t, func(string) { calls++ })
	t.Setenv("PATH", t.TempDir())
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"run", "--config", ar.cfg, "--workdir", filepath.Join(ar.dir, "work"),
		"--trace", ar.trace, "What port does the app use?"}, strings.NewReader(""), &out, &errOut)
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFail, out.String(), errOut.String())
	}
	want := "spine run: tools cannot be isolated on this machine: bubblewrap (bwrap) is not installed " +
		"(install it: apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)"
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr = %q\nwant it to contain %q", errOut.String(), want)
	}
	if calls != 0 {
		t.Errorf("%d model call(s) before the refusal", calls)
	}
}
