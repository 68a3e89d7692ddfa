package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipelineDemoRefusesAnExistingTrace: a trace is never overwritten, and nothing runs.
func TestPipelineDemoRefusesAnExistingTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"demo", "--pipeline", "--trace", path}, nil, &out, &errOut)
	if code != exitFail || !strings.Contains(errOut.String(), path+" already exists; a trace is never overwritten") {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if b, _ := os.ReadFile(path); string(b) != "keep\n" {
		t.Errorf("the file now holds %q", b)
	}
}
