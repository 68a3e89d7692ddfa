package spine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func replayFile(t *testing.T, path string, rs *RuleSet) ([]byte, []byte, *Recording, Result, error) {
	t.Helper()
	recorded, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := ReadTrace(path, bytes.NewReader(recorded))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording(path, tf)
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	res, err := ReplayRun(context.Background(), rec, rs, sink)
	return recorded, sink.Bytes(), rec, res, err
}

// TestReplayGoldenTraces replays every recorded engine trace with its rule set and
// requires the new trace to be byte-identical: success, failure, cancellations, effector
// errors and every other path the engine tests recorded.
func TestReplayGoldenTraces(t *testing.T) {
	rs, err := LoadRulesFile("testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/engine/*.jsonl")
	if len(files) < 5 {
		t.Fatalf("found only %d golden traces", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			recorded, replayed, _, _, _ := replayFile(t, f, rs)
			if d := CompareTraces(recorded, replayed, 0); d != nil {
				t.Fatalf("replay differs: %s", d)
			}
			if rep, err := VerifyChain(bytes.NewReader(recorded)); err != nil || !rep.Chained {
				t.Fatalf("the golden's chain: %+v %v", rep, err)
			}
		})
	}
}

// TestReplayConcurrently replays all golden traces at once, several times over, under
// GOMAXPROCS 1 and 2: each replay is isolated and the output never depends on scheduling.
func TestReplayConcurrently(t *testing.T) {
	rs, err := LoadRulesFile("testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/engine/*.jsonl")
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		errs := make(chan string, len(files)*4)
		for i := 0; i < 4; i++ {
			for _, f := range files {
				wg.Add(1)
				go func(f string) {
					defer wg.Done()
					recorded, replayed, _, _, _ := replayFile(t, f, rs)
					if d := CompareTraces(recorded, replayed, 0); d != nil {
						errs <- f + ": " + d.String()
					}
				}(f)
			}
		}
		wg.Wait()
		runtime.GOMAXPROCS(prev)
		close(errs)
		for e := range errs {
			t.Errorf("GOMAXPROCS=%d: %s", procs, e)
		}
	}
}

func TestReplayDivergence(t *testing.T) {
	src, err := os.ReadFile("testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The same rules with a different objective name change the mint request.
	edited := strings.ReplaceAll(string(src), "work", "labour")
	rs, err := LoadRules("edited.yaml", []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, res, err := replayFile(t, "testdata/engine/success.jsonl", rs)
	var d *DivergenceError
	if !errors.As(err, &d) {
		t.Fatalf("want a divergence, got %v (%+v)", err, res)
	}
	want := `replay diverged at seq 10 (call 1, mint): request field objective: recorded "work", replay asked "labour"`
	if err.Error() != want || !strings.Contains(res.Reason, "") {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

func TestReplayTornRecording(t *testing.T) {
	rs, err := LoadRulesFile("testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile("testdata/engine/success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(full), "\n"), "\n")
	for _, cut := range []int{len(lines) - 1, len(lines) / 2} {
		torn := strings.Join(lines[:cut], "") + lines[cut][:len(lines[cut])/2]
		path := filepath.Join(t.TempDir(), "torn.jsonl")
		if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
			t.Fatal(err)
		}
		recorded, replayed, rec, _, err := replayFile(t, path, rs)
		if rec.Torn == nil || rec.Torn.Line != cut+1 {
			t.Fatalf("cut at %d: torn = %v", cut, rec.Torn)
		}
		if d := CompareTraces(recorded, replayed, len(rec.Lines)); d != nil {
			t.Errorf("cut at %d: the intact part differs: %s", cut, d)
		}
		if cut == len(lines)/2 && !errors.Is(err, ErrRecordingEnded) {
			t.Errorf("cut at %d: want ErrRecordingEnded, got %v", cut, err)
		}
	}
}

func TestCompareTraces(t *testing.T) {
	a := "{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,2]}}\n{\"seq\":2}\n"
	for _, tc := range []struct{ b, want string }{
		{a, ""},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,3]}}\n{\"seq\":2}\n", "line 1, field v.b[1]: recorded 2, replayed 3"},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,2]}}\n", `line 2: recorded {"seq":2}, replayed (end of trace)`},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"b\":[1,2],\"a\":1}}\n{\"seq\":2}\n", `line 1: recorded {"seq":1,"kind":"x","v":{"a":1,"b":[1,2]}}, replayed {"seq":1,"kind":"x","v":{"b":[1,2],"a":1}}`},
	} {
		got := ""
		if d := CompareTraces([]byte(a), []byte(tc.b), 0); d != nil {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// assertReplays replays trace with rs and requires the same bytes.
func assertReplays(t *testing.T, trace []byte, rs *RuleSet) {
	t.Helper()
	tf, err := ReadTrace("t", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording("t", tf)
	if err != nil {
		t.Fatal(err)
	}
	again := &MemorySink{}
	if _, err := ReplayRun(context.Background(), rec, rs, again); err != nil {
		t.Fatal(err)
	}
	if d := CompareTraces(trace, again.Bytes(), 0); d != nil {
		t.Fatalf("the replay differs: %s", d)
	}
	for _, b := range [][]byte{trace, again.Bytes()} {
		if rep, err := VerifyChain(bytes.NewReader(b)); err != nil || !rep.Chained {
			t.Fatalf("the chain: %+v %v", rep, err)
		}
	}
}
