package replay

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

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	tr "github.com/agentspine/spine/spine/trace"
)

func replayFile(t *testing.T, path string, rs *ruleset.RuleSet) ([]byte, []byte, *Recording, trace.Halt, error) {
	t.Helper()
	recorded, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := tr.Read(path, bytes.NewReader(recorded))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording(path, tf)
	if err != nil {
		t.Fatal(err)
	}
	sink := &tr.MemorySink{}
	res, err := Run(context.Background(), rec, rs, sink)
	return recorded, sink.Bytes(), rec, res, err
}

// TestReplayGoldenTraces replays every recorded engine trace with its rule set and
// requires the new trace to be byte-identical: success, failure, cancellations, effector
// errors and every other path the engine tests recorded.
func TestReplayGoldenTraces(t *testing.T) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../engine/testdata/engine/*.jsonl")
	if len(files) < 5 {
		t.Fatalf("found only %d golden traces", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			recorded, replayed, _, _, _ := replayFile(t, f, rs)
			if d := CompareTraces(recorded, replayed, 0); d != nil {
				t.Fatalf("replay differs: %s", d)
			}
			if rep, err := tr.VerifyChain(bytes.NewReader(recorded)); err != nil || !rep.Chained {
				t.Fatalf("the golden's chain: %+v %v", rep, err)
			}
		})
	}
}

// TestReplayConcurrently replays all golden traces at once, several times over, under
// GOMAXPROCS 1 and 2: each replay is isolated and the output never depends on scheduling.
func TestReplayConcurrently(t *testing.T) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../engine/testdata/engine/*.jsonl")
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
	src, err := os.ReadFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The same rules with a different objective name change the mint request.
	edited := strings.ReplaceAll(string(src), "work", "labour")
	rs, err := engine.LoadRules("edited.yaml", []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, res, err := replayFile(t, "../engine/testdata/engine/success.jsonl", rs)
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
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile("../engine/testdata/engine/success.jsonl")
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
		if d := CompareTraces(recorded, replayed, len(rec.Events)); d != nil {
			t.Errorf("cut at %d: the intact part differs: %s", cut, d)
		}
		if cut == len(lines)/2 && !errors.Is(err, ErrRecordingEnded) {
			t.Errorf("cut at %d: want ErrRecordingEnded, got %v", cut, err)
		}
	}
}

func TestCompareTracesHashLast(t *testing.T) {
	a := "{\"seq\":1,\"kind\":\"x\",\"v\":1,\"h\":\"aa\"}\n"
	for _, tc := range []struct{ b, want string }{
		{"{\"seq\":1,\"kind\":\"x\",\"v\":2,\"h\":\"bb\"}\n", "line 1, field v: recorded 1, replayed 2"},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":1,\"h\":\"bb\"}\n", `line 1, field h: recorded "aa", replayed "bb"`},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":1}\n", `line 1: replayed has no field h, recorded has "aa"`},
		{"[1]\n", `line 1: recorded {"seq":1,"kind":"x","v":1,"h":"aa"}, replayed [1]`},
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

// TestReplayFailed: an error Run returns is the replay's own failure only for a
// divergence, a recording that ends too soon, or one it cannot use; a recorded run that
// ended in an error or a cancellation replays byte for byte and its error is not one.
func TestReplayFailed(t *testing.T) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file    string
		outcome string
		err     string // the run's own error, as recorded in the halt
	}{
		{"success.jsonl", engine.OutcomeSuccess, ""},
		{"failure.jsonl", engine.OutcomeFailure, ""},
		{"max_iterations.jsonl", engine.OutcomeMaxIterations, ""},
		{"no_rule.jsonl", engine.OutcomeNoRule, ""},
		{"canceled_between_states.jsonl", engine.OutcomeCanceled, "context canceled"},
		{"canceled_in_effector.jsonl", engine.OutcomeCanceled, "effector mint (iteration 1, objective work): context canceled"},
		{"gate_error.jsonl", engine.OutcomeError, "effector gate (iteration 1, objective work): judge timed out"},
		{"mint_error.jsonl", engine.OutcomeError, "effector mint (iteration 1, objective work): model unavailable"},
	} {
		recorded, replayed, _, res, err := replayFile(t, filepath.Join("../engine/testdata/engine", tc.file), rs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if res.Outcome != tc.outcome || got != tc.err || Failed(err) {
			t.Errorf("%s: outcome %s, error %q (replay failed: %v); want %s, %q, not failed", tc.file, res.Outcome, got, Failed(err), tc.outcome, tc.err)
		}
		if d := CompareTraces(recorded, replayed, 0); d != nil {
			t.Errorf("%s: %s", tc.file, d)
		}
	}

	full, err := os.ReadFile("../engine/testdata/engine/success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	labour, err := engine.LoadRules("labour.yaml", []byte(strings.ReplaceAll(mustRead(t, "../engine/testdata/engine/climb.yaml"), "work", "labour")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		rs   *ruleset.RuleSet
		want string
	}{
		{"other rules", "../engine/testdata/engine/success.jsonl", labour, `replay diverged at seq 10 (call 1, mint): request field objective: recorded "work", replay asked "labour"`},
		{"torn effector result", write("torn.jsonl", strings.Join(lines[:12], "")+lines[12][:50]),
			rs, "the recording ends here: the run asked for effector call 2 (gate), which the recording "},
		{"cut after a call", write("cut.jsonl", strings.Join(lines[:12], "")),
			rs, "the recording ends here: the run asked for effector call 2 (gate), which the recording "},
	} {
		_, _, _, _, err := replayFile(t, tc.path, tc.rs)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !Failed(err) {
			t.Errorf("%s: got %v (replay failed: %v), want a failed replay: %s", tc.name, err, Failed(err), tc.want)
		}
	}
}

// TestReplayUnusableRecording: a seeded fact the rules cannot take back is the
// recording's problem, a *RecordingError, not the run's.
func TestReplayUnusableRecording(t *testing.T) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The seeded mode fact, with a name of the wrong type.
	body := strings.Replace(mustRead(t, "../engine/testdata/engine/transition_observe.jsonl"), `"payload":{"name":"reobserve"}},"h"`, `"payload":{"name":5}},"h"`, 1)
	tf, err := tr.Read("seeded.jsonl", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording("seeded.jsonl", tf)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), rec, rs, &tr.MemorySink{})
	var re *RecordingError
	if !errors.As(err, &re) || !Failed(err) || !strings.HasPrefix(err.Error(), "seeded.jsonl:2: re-applying a seeded fact: ") {
		t.Fatalf("got %v, want a *RecordingError naming seeded.jsonl:2", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCompareTraces(t *testing.T) {
	a := "{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,2]}}\n{\"seq\":2}\n"
	for _, tc := range []struct{ b, want string }{
		{a, ""},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,3]}}\n{\"seq\":2}\n", "line 1, field v.b[1]: recorded 2, replayed 3"},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,2]}}\n", `line 2: recorded {"seq":2}, replayed (end of trace)`},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"b\":[1,2],\"a\":1}}\n{\"seq\":2}\n", `line 1: recorded {"seq":1,"kind":"x","v":{"a":1,"b":[1,2]}}, replayed {"seq":1,"kind":"x","v":{"b":[1,2],"a":1}}`},
		// h sorts before most fields and differs whenever anything does: the event's own
		// field is named; h only when nothing else differs.
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":2,\"b\":[1,2]},\"h\":\"01\"}\n{\"seq\":2}\n", "line 1, field v.a: recorded 1, replayed 2"},
		// A field one side lacks is absent, not null; a null field is null.
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"b\":[1,2]}}\n{\"seq\":2}\n", "line 1: replayed has no field v.a, recorded has 1"},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1,2],\"c\":null}}\n{\"seq\":2}\n", "line 1: recorded has no field v.c, replayed has null"},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":null,\"b\":[1,2]}}\n{\"seq\":2}\n", "line 1, field v.a: recorded 1, replayed null"},
		{"{\"seq\":1,\"kind\":\"x\",\"v\":{\"a\":1,\"b\":[1]}}\n{\"seq\":2}\n", "line 1: replayed has no element v.b[1], recorded has 2"},
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

// FuzzCompareTraces: any two traces give nil or a difference with a line number, never a
// panic; a trace never differs from itself.
func FuzzCompareTraces(f *testing.F) {
	f.Add([]byte("{\"seq\":1,\"h\":\"aa\"}\n"), []byte("{\"seq\":1,\"h\":\"bb\"}\n"))
	f.Add([]byte("{\"seq\":1,\"v\":[1,{\"a\":null}]}\n"), []byte("{\"seq\":1}\n{\"seq\":2}\n"))
	f.Add([]byte("null\n"), []byte("{}\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if d := CompareTraces(a, a, 0); d != nil {
			t.Fatalf("a trace differs from itself: %s", d)
		}
		if d := CompareTraces(a, b, 0); d != nil && d.Line < 1 {
			t.Fatalf("difference without a line: %+v", d)
		}
	})
}
