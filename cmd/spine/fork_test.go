package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

// newIDs are what a fork's live part makes afresh where the original had others: subtask
// ids, and the loss's time-derived terms (Ω counts the time the run took).
var newIDs = regexp.MustCompile(`[0-9a-f]{32}|[0-9]+\.[0-9]+`)

// forkRun runs spine in this process with the kill test's environment and returns its
// exit code and output.
func forkRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String() + errOut.String()
}

// forkSetup is the two-round scripted task of the kill test, run once uninterrupted.
func forkSetup(t *testing.T) (dir, work, cfg, full, want string, e *bodyEndpoint) {
	dir = t.TempDir()
	for _, kv := range resumeEnv(dir)[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	work = filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 8080\n")
	e, url := newBodyEndpoint(t)
	e.keyOf = func(body []byte) []byte {
		return newIDs.ReplaceAll(body, []byte("N"))
	}
	cfg = filepath.Join(dir, "models.yaml")
	writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: 1m\nroles:\n"+
		"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
		"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", url, fmKey))
	full = filepath.Join(dir, "full.trace.jsonl")
	code, out := forkRun(t, "run", "--json", "--config", cfg, "--workdir", work, "--trace", full, fmTask)
	want = finalOf([]byte(out))
	if code != exitOK || !strings.Contains(want, "accept") {
		t.Fatalf("the original run: exit %d, final %s\n%s", code, want, out)
	}
	return dir, work, cfg, full, want, e
}

func recordingAt(t *testing.T, path string) *replay.Recording {
	t.Helper()
	rec, err := replay.ReadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestForkOwnRules forks a live two-round run at each of its cycle boundaries with its
// own rules: each fork ends as the original did, asks the endpoint nothing the original
// did not ask, begins with the original's lines before the boundary, and replays.
func TestForkOwnRules(t *testing.T) {
	dir, work, cfg, full, want, e := forkSetup(t)
	rec := recordingAt(t, full)
	own := filepath.Join(dir, "own.yaml")
	writeFile(t, own, rec.Header.Rules.Source)
	data, _ := os.ReadFile(full)
	lines := bytes.SplitAfter(data, []byte("\n"))
	bs := replay.Boundaries(rec)
	if len(bs) < 2 {
		t.Fatalf("the run has %d cycle boundaries, want a run of several rounds", len(bs))
	}
	for i, b := range bs {
		fork := filepath.Join(dir, fmt.Sprintf("fork-%d.trace.jsonl", i))
		asked := len(e.order["m-R3"]) + len(e.order["m-R4b"]) + len(e.order["m-R2"])
		code, out := forkRun(t, "fork", "--json", "--config", cfg, "--workdir", work, "--at", fmt.Sprint(b.Seq), "--rules", own, "--trace", fork, full)
		if got := finalOf([]byte(out)); code != exitOK || got != want {
			t.Fatalf("fork at %+v: exit %d, final %s, want %s\n%s", b, code, got, want, out)
		}
		if n := len(e.order["m-R3"]) + len(e.order["m-R4b"]) + len(e.order["m-R2"]); n != asked {
			t.Errorf("fork at %+v: the endpoint was asked %d request(s) the original did not ask", b, n-asked)
		}
		fb, _ := os.ReadFile(fork)
		if !bytes.HasPrefix(fb, bytes.Join(lines[:b.Line-1], nil)) {
			t.Errorf("fork at %+v: does not begin with the original's first %d lines", b, b.Line-1)
		}
		if code, out := forkRun(t, "replay", "--check", fork); code != exitOK {
			t.Errorf("fork at %+v: replay --check exit %d\n%s", b, code, out)
		}
	}
}

// TestForkEditedRulesAsWhatIfSays forks the live run with an edited threshold at the
// seq what-if names for the edit: the fork's first decision that differs from the
// original's is the one what-if predicted (cycle and rule).
func TestForkEditedRulesAsWhatIfSays(t *testing.T) {
	dir, work, cfg, full, _, _ := forkSetup(t)
	rec := recordingAt(t, full)
	// The first round is found wanting; with δ = 1 its D is close enough.
	src := strings.Replace(rec.Header.Rules.Source, "delta: 0.3 ", "delta: 1.0 ", 1)
	if src == rec.Header.Rules.Source {
		t.Fatal("the rules have no delta: 0.3 to edit")
	}
	edited := filepath.Join(dir, "edited.yaml")
	writeFile(t, edited, src)
	rs, err := engine.LoadRulesFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	wi, err := analysis.WhatIf(rec, rs)
	if err != nil {
		t.Fatal(err)
	}
	changes := wi.Changes()
	if len(changes) == 0 {
		t.Fatal("what-if predicts no change for δ = 1")
	}
	first := changes[0]
	if _, out := forkRun(t, "what-if", "--rules", edited, full); !strings.Contains(out, fmt.Sprintf("first change: cycle %d at seq %d; to branch the run there: spine fork %s --at %d", first.Cycle, first.Seq, full, first.Seq)) {
		t.Errorf("what-if does not name the seq to fork at:\n%s", out)
	}
	fork := filepath.Join(dir, "fork.trace.jsonl")
	code, out := forkRun(t, "fork", "--config", cfg, "--workdir", work, "--at", fmt.Sprint(first.Seq), "--rules", edited, "--trace", fork, full)
	if code != exitOK {
		t.Fatalf("fork: exit %d\n%s", code, out)
	}
	decisions := func(path string) []trace.ConflictSet {
		f, err := trace.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cs []trace.ConflictSet
		for i := range f.Events {
			if c, ok := trace.As[trace.ConflictSet](&f.Events[i]); ok {
				cs = append(cs, c)
			}
		}
		return cs
	}
	orig, forked := decisions(full), decisions(fork)
	i := 0
	for i < len(orig) && i < len(forked) && orig[i].Cycle == forked[i].Cycle && orig[i].Fired == forked[i].Fired {
		i++
	}
	if i == len(forked) {
		t.Fatalf("the fork decided as the original did\n%s", out)
	}
	if got := forked[i]; got.Cycle != first.Cycle || got.Fired != first.Edited {
		t.Errorf("the fork's first different decision is cycle %d %q; what-if predicted cycle %d %q", got.Cycle, got.Fired, first.Cycle, first.Edited)
	}
	if code, out := forkRun(t, "replay", "--check", fork); code != exitOK {
		t.Errorf("replay --check exit %d\n%s", code, out)
	}
	code, out = forkRun(t, "fork", "--config", cfg, "--at", "1", full)
	if code != exitUsage || !strings.Contains(out, "fork at a seq from ") {
		t.Errorf("--at 1: exit %d, want %d and the valid range\n%s", code, exitUsage, out)
	}
}

// TestForkTraceDiff: trace diff of a run and its fork says which lines they share and
// where and how the fork parts, with the rules it reloaded.
func TestForkTraceDiff(t *testing.T) {
	dir, work, cfg, full, _, _ := forkSetup(t)
	rec := recordingAt(t, full)
	own := filepath.Join(dir, "own.yaml")
	writeFile(t, own, rec.Header.Rules.Source)
	b := replay.Boundaries(rec)[1]
	fork := filepath.Join(dir, "fork.trace.jsonl")
	if code, out := forkRun(t, "fork", "--config", cfg, "--workdir", work, "--at", fmt.Sprint(b.Seq), "--rules", own, "--trace", fork, full); code != exitOK {
		t.Fatalf("fork: exit %d\n%s", code, out)
	}
	code, out := forkRun(t, "trace", "diff", full, fork)
	for _, want := range []string{
		fmt.Sprintf("B continues A's first %d lines (shared byte for byte), then parts: fork (fork at cycle %d", b.Line-1, b.Cycle),
		"with the rules reloaded there: " + own + " (" + rec.Header.Rules.Hash + ")",
		"decisions: A 3, B 3; the same sequence",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace diff lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Errorf("trace diff: exit %d, want %d", code, exitFail)
	}
}
