package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/rules"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// stripRulesSource makes a trace as the writer did before headers carried their rules:
// the header without rules.source, the hash chain sealed again.
func stripRulesSource(t *testing.T, trace []byte) []byte {
	t.Helper()
	plain := spinetrace.UnchainedTrace(trace)
	header, rest, _ := bytes.Cut(plain, []byte("\n"))
	header = bytes.Replace(header, []byte(spinetrace.FormatUnchained), []byte(spinetrace.Format), 1)
	// rules.source is the last field of rules, followed by the params.
	i, j := bytes.Index(header, []byte(`,"source":"`)), bytes.Index(header, []byte(`},"params":`))
	if i < 0 || j < i {
		t.Fatalf("no rules.source in the header: %.200s", header)
	}
	header = append(header[:i:i], header[j:]...)
	sealed, err := spinetrace.SealTrace(append(append(header, '\n'), rest...))
	if err != nil {
		t.Fatal(err)
	}
	return sealed
}

// TestReplayOldTraceByHash: a trace written before headers carried their rules, recorded
// with a copy of the shipped rules under another name that is gone, finds them among the
// shipped rule files by hash, not by name, and replays byte for byte.
func TestReplayOldTraceByHash(t *testing.T) {
	dir := t.TempDir()
	scenario, err := fixtures.FS.ReadFile("ggs/accept.yaml")
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := rules.FS.ReadFile(rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	for name, b := range map[string][]byte{"accept.yaml": scenario, "renamed.yaml": shipped} {
		if err := os.WriteFile(at(name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"play", "--quiet", "--rules", at("renamed.yaml"), "--trace", at("new.jsonl"), at("accept.yaml")}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("play: exit %d: %s%s", code, out.String(), errOut.String())
	}
	if err := os.Remove(at("renamed.yaml")); err != nil {
		t.Fatal(err)
	}
	recorded, err := os.ReadFile(at("new.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	old := stripRulesSource(t, recorded)
	if bytes.Contains(old, []byte(`"source"`)) || !bytes.Contains(old, []byte(`"path":"`+at("renamed.yaml")+`"`)) {
		t.Fatalf("the stripped header: %.300s", old)
	}
	if err := os.WriteFile(at("old.jsonl"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, trace := range []string{"new.jsonl", "old.jsonl"} {
		out.Reset()
		errOut.Reset()
		code := Run(context.Background(), []string{"replay", "--check", at(trace)}, nil, &out, &errOut)
		if code != exitOK || !strings.Contains(out.String(), "identical to the recording") {
			t.Errorf("%s: exit %d: %s%s", trace, code, out.String(), errOut.String())
		}
	}
}
