package ggs

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/golden"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files of testdata/scenarios")

// Each testdata/scenarios/NAME.jsonl is a stream of bus messages; NAME.golden holds the
// solver's output lines for it, byte for byte. Run with -rewrite to regenerate them after
// an intended change, and read the diff.
func TestScenarios(t *testing.T) {
	inputs, err := filepath.Glob("testdata/scenarios/*.jsonl")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		t.Run(name, func(t *testing.T) {
			got := runScenario(t, in)
			if again := runScenario(t, in); !bytes.Equal(got, again) {
				t.Fatalf("two runs differ:\n%s\n%s", got, again)
			}
			goldenPath := strings.TrimSuffix(in, ".jsonl") + ".golden"
			golden.Check(t, goldenPath, got, *rewrite)
		})
	}
}

func runScenario(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := newSolver(t)
	var out []byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		m, err := DecodeMessage(sc.Bytes())
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		o, err := s.Handle(context.Background(), m)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if out, err = AppendOutput(out, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
