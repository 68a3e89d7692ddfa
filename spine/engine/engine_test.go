package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	tr "github.com/agentspine/spine/spine/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files")

// scriptedEffector is a test double for the control plane only: it makes nothing. Mint
// returns a construct named after the iteration; Gate reports the next scripted score as
// the score fact. Hooks replace either call for the cases that need errors or cancels.
type scriptedEffector struct {
	scores []float64 // one per gate call; the last one repeats
	mint   func(ctx context.Context, req MintRequest) (Construct, error)
	gate   func(ctx context.Context, req GateRequest) (Signals, error)
	calls  []string
}

var _ Effector = (*scriptedEffector)(nil)

func (e *scriptedEffector) Mint(ctx context.Context, req MintRequest) (Construct, error) {
	e.calls = append(e.calls, fmt.Sprintf("mint %d %s", req.Iteration, req.Objective))
	if e.mint != nil {
		return e.mint(ctx, req)
	}
	return Construct{ID: fmt.Sprintf("construct-%d", req.Iteration), Body: json.RawMessage(`{"draft":true}`)}, nil
}

func (e *scriptedEffector) Gate(ctx context.Context, req GateRequest) (Signals, error) {
	e.calls = append(e.calls, fmt.Sprintf("gate %d %s", req.Iteration, req.Construct.ID))
	if e.gate != nil {
		return e.gate(ctx, req)
	}
	return e.scoreSignals(req.Iteration), nil
}

func (e *scriptedEffector) scoreSignals(iteration int) Signals {
	v := e.scores[min(iteration, len(e.scores))-1]
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "score", Fields: ruleset.Fields{"value": v, "round": iteration}}}}
}

// flushSink is a MemorySink that remembers how much of the trace was flushed.
type flushSink struct {
	tr.MemorySink
	flushed int
}

func (s *flushSink) Flush() error {
	s.flushed = len(s.Bytes())
	return nil
}

type engineCase struct {
	name       string
	mode       string         // seeds the mode fact when not ""
	seedScore  ruleset.Fields // seeds the score fact when not nil
	opts       []Option
	eff        func(cancel context.CancelFunc) *scriptedEffector
	outcome    string
	iterations int
	objective  string
	err        string // substring of the error Run returns; "" for none
	calls      string // the effector calls, in order
}

func engineCases() []engineCase {
	scores := func(s ...float64) func(context.CancelFunc) *scriptedEffector {
		return func(context.CancelFunc) *scriptedEffector { return &scriptedEffector{scores: s} }
	}
	return []engineCase{
		{
			name: "success", eff: scores(0.5, 0.9),
			outcome: OutcomeSuccess, iterations: 2, objective: "done",
			calls: "mint 1 work, gate 1 construct-1, mint 2 work, gate 2 construct-2",
		},
		{
			name: "failure", eff: scores(0.5, 0.05),
			outcome: OutcomeFailure, iterations: 2, objective: "give_up",
			calls: "mint 1 work, gate 1 construct-1, mint 2 work, gate 2 construct-2",
		},
		{
			name: "max_iterations", eff: scores(0.5), opts: []Option{WithMaxIterations(3)},
			outcome: OutcomeMaxIterations, iterations: 3, objective: "work",
			calls: "mint 1 work, gate 1 construct-1, mint 2 work, gate 2 construct-2, mint 3 work, gate 3 construct-3",
		},
		{
			name: "no_rule", eff: scores(0.5), seedScore: ruleset.Fields{"value": 0.5, "round": 0},
			outcome: OutcomeNoRule, iterations: 1, objective: "",
		},
		{
			name: "terminal_at_select", eff: scores(0.5), seedScore: ruleset.Fields{"value": 0.95, "round": 1},
			outcome: OutcomeSuccess, iterations: 1, objective: "done",
		},
		{
			name: "transition_observe", eff: scores(0.9), mode: "reobserve",
			outcome: OutcomeSuccess, iterations: 1, objective: "done",
			calls: "mint 1 work, gate 1 construct-1",
		},
		{
			name: "transition_terminate", eff: scores(0.9), mode: "skip", opts: []Option{WithMaxIterations(2)},
			outcome: OutcomeMaxIterations, iterations: 2, objective: "work",
		},
		{
			name: "mint_error",
			eff: func(context.CancelFunc) *scriptedEffector {
				return &scriptedEffector{mint: func(context.Context, MintRequest) (Construct, error) {
					return Construct{}, errors.New("model unavailable")
				}}
			},
			outcome: OutcomeError, iterations: 1, objective: "work",
			err:   "effector mint (iteration 1, objective work): model unavailable",
			calls: "mint 1 work",
		},
		{
			name: "gate_error",
			eff: func(context.CancelFunc) *scriptedEffector {
				return &scriptedEffector{gate: func(context.Context, GateRequest) (Signals, error) {
					return Signals{}, errors.New("judge timed out")
				}}
			},
			outcome: OutcomeError, iterations: 1, objective: "work",
			err:   "effector gate (iteration 1, objective work): judge timed out",
			calls: "mint 1 work, gate 1 construct-1",
		},
		{
			name: "gate_changes_builtin",
			eff: func(context.CancelFunc) *scriptedEffector {
				return &scriptedEffector{gate: func(context.Context, GateRequest) (Signals, error) {
					return Signals{Changes: []Change{{Op: ChangePut, Kind: ruleset.KindObjective, Fields: ruleset.Fields{"name": "done"}}}}, nil
				}}
			},
			outcome: OutcomeError, iterations: 1, objective: "work",
			err:   `effector gate (iteration 1): change 1: the built-in kind "objective" is not the gate's to change`,
			calls: "mint 1 work, gate 1 construct-1",
		},
		{
			name: "gate_bad_change",
			eff: func(context.CancelFunc) *scriptedEffector {
				return &scriptedEffector{gate: func(context.Context, GateRequest) (Signals, error) {
					return Signals{Changes: []Change{
						{Op: ChangePut, Kind: "score", Fields: ruleset.Fields{"value": 0.5, "round": 1}},
						{Op: "upsert", Kind: "score"},
					}}, nil
				}}
			},
			outcome: OutcomeError, iterations: 1, objective: "work",
			err:   `effector gate (iteration 1): change 2: unknown op "upsert" (expected put or retract)`,
			calls: "mint 1 work, gate 1 construct-1",
		},
		{
			name: "canceled_between_states",
			eff: func(cancel context.CancelFunc) *scriptedEffector {
				e := &scriptedEffector{scores: []float64{0.5}}
				e.gate = func(ctx context.Context, req GateRequest) (Signals, error) {
					if req.Iteration == 2 {
						cancel() // the loop notices at the next state boundary
					}
					return e.scoreSignals(req.Iteration), nil
				}
				return e
			},
			outcome: OutcomeCanceled, iterations: 2, objective: "work",
			err:   "context canceled",
			calls: "mint 1 work, gate 1 construct-1, mint 2 work, gate 2 construct-2",
		},
		{
			name: "canceled_in_effector",
			eff: func(cancel context.CancelFunc) *scriptedEffector {
				return &scriptedEffector{scores: []float64{0.5}, mint: func(ctx context.Context, req MintRequest) (Construct, error) {
					cancel()
					return Construct{}, ctx.Err()
				}}
			},
			outcome: OutcomeCanceled, iterations: 1, objective: "work",
			err:   "effector mint (iteration 1, objective work): context canceled",
			calls: "mint 1 work",
		},
	}
}

func loadEngineRules(tb testing.TB) *ruleset.RuleSet {
	tb.Helper()
	rs, err := LoadRulesFile("testdata/engine/climb.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return rs
}

// runEngineCase runs one case and returns its result, trace, effector calls and error.
func runEngineCase(t *testing.T, rs *ruleset.RuleSet, c engineCase) (trace.Halt, *flushSink, []string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eff := c.eff(cancel)
	sink := &flushSink{}
	opts := append([]Option{WithTrace(sink), WithRunID("engine-" + c.name)}, c.opts...)
	e := NewEngine(rs, eff, opts...)
	if c.mode != "" {
		if _, err := e.Session().Put("mode", "", ruleset.Fields{"name": c.mode}); err != nil {
			t.Fatal(err)
		}
	}
	if c.seedScore != nil {
		if _, err := e.Session().Put("score", "", c.seedScore); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("Run panicked: %v\ntrace so far:\n%s", p, sink.Bytes())
		}
	}()
	res, err := e.Run(ctx)
	return res, sink, eff.calls, err
}

// TestEngine runs each case against its golden trace in testdata/engine/<case>.jsonl.
func TestEngine(t *testing.T) {
	rs := loadEngineRules(t)
	for _, c := range engineCases() {
		t.Run(c.name, func(t *testing.T) {
			res, sink, calls, err := runEngineCase(t, rs, c)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("Run: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("Run error %v, want one containing %q", err, c.err)
			}
			if res.Outcome != c.outcome || res.Iterations != c.iterations || res.Objective != c.objective || res.Run != "engine-"+c.name {
				t.Errorf("result %+v; want outcome %s, %d iterations, objective %q", res, c.outcome, c.iterations, c.objective)
			}
			if got := strings.Join(calls, ", "); got != c.calls {
				t.Errorf("effector calls: %s\nwant: %s", got, c.calls)
			}
			trace := sink.Bytes()
			if sink.flushed != len(trace) {
				t.Errorf("Run returned with %d of %d trace bytes flushed", sink.flushed, len(trace))
			}
			checkHalt(t, trace, res, err)
			golden := filepath.Join("testdata", "engine", c.name+".jsonl")
			if *rewrite {
				if err := os.WriteFile(golden, trace, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, rerr := os.ReadFile(golden)
			if rerr != nil {
				t.Fatalf("%v (run with -rewrite to create it)", rerr)
			}
			if !bytes.Equal(trace, want) {
				t.Errorf("trace differs from %s:\n%s", golden, firstDiff(trace, want))
			}
		})
	}
}

// checkHalt checks the trace's shape: seq counts up from 1, and the last event is the
// halt event carrying the result and, on failure, the error.
func checkHalt(t *testing.T, trace []byte, res trace.Halt, runErr error) {
	t.Helper()
	f, err := tr.Read("trace", bytes.NewReader(trace))
	if err != nil || len(f.Events) == 0 {
		t.Fatalf("reading the trace: %v (%d events)", err, len(f.Events))
	}
	for i, e := range f.Events {
		if e.Seq != int64(i+1) {
			t.Fatalf("line %d: seq %d, want %d", e.Line, e.Seq, i+1)
		}
	}
	last := &f.Events[len(f.Events)-1]
	halt, ok := tr.As[tr.Halt](last)
	if !ok || halt.Outcome != res.Outcome || halt.Iterations != res.Iterations || halt.Firings != res.Firings {
		t.Errorf("last event %s, want a halt event with %+v", last.Raw, res)
	}
	if runErr != nil && halt.Reason != runErr.Error() {
		t.Errorf("halt reason %q, want the error %q", halt.Reason, runErr)
	}
}

// firstDiff describes the first line where two traces differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return "no difference"
}

// TestEngineDeterministic runs the same case many times, one after another and in
// parallel goroutines over one shared RuleSet: every trace is the same, byte for byte.
// Run with -race, this also shows that sessions share a RuleSet safely.
func TestEngineDeterministic(t *testing.T) {
	rs := loadEngineRules(t)
	var c engineCase
	for _, ec := range engineCases() {
		if ec.name == "max_iterations" {
			c = ec
		}
	}
	_, first, _, _ := runEngineCase(t, rs, c)
	_, second, _, _ := runEngineCase(t, rs, c)
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("two sequential runs differ:\n%s", firstDiff(second.Bytes(), first.Bytes()))
	}
	const n = 8
	traces := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			sink := &tr.MemorySink{}
			e := NewEngine(rs, c.eff(func() {}), WithTrace(sink), WithRunID("engine-"+c.name), WithMaxIterations(3))
			if _, err := e.Run(ctx); err != nil {
				t.Errorf("goroutine %d: %v", i, err)
			}
			traces[i] = sink.Bytes()
		}()
	}
	wg.Wait()
	for i, tr := range traces {
		if !bytes.Equal(tr, first.Bytes()) {
			t.Errorf("goroutine %d's trace differs:\n%s", i, firstDiff(tr, first.Bytes()))
		}
	}
}

// TestEngineSeesStateFact checks that the FSM state is a fact: rules read it, and its
// changes are in the trace as fact events next to the transitions.
func TestEngineSeesStateFact(t *testing.T) {
	rs := loadEngineRules(t)
	sink := &tr.MemorySink{}
	e := NewEngine(rs, &scriptedEffector{scores: []float64{0.9}}, WithTrace(sink))
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, l := range strings.Split(string(sink.Bytes()), "\n") {
		if strings.Contains(l, `"kind":"state"`) {
			var ev struct {
				Fact struct {
					Payload struct {
						Name      string `json:"name"`
						Iteration int    `json:"iteration"`
					} `json:"payload"`
				} `json:"fact"`
			}
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatal(err)
			}
			states = append(states, fmt.Sprintf("%s/%d", ev.Fact.Payload.Name, ev.Fact.Payload.Iteration))
		}
	}
	const want = "observe/1,select_objective/1,act/1,evaluate/1,terminate_or_iterate/1"
	if strings.Join(states, ",") != want {
		t.Errorf("state facts %v, want %s", states, want)
	}
	if f, ok := e.Session().Get(ruleset.KindState, ""); !ok || field(t, f, "name") != ruleset.StateTerminate {
		t.Errorf("final state fact %+v", f)
	}
}

// kindLog is a sink that records the kind of every event and every flush, in order.
type kindLog struct {
	tr.MemorySink
	log []string
}

func (s *kindLog) Write(e *tr.Event) error {
	s.log = append(s.log, e.Kind)
	return s.MemorySink.Write(e)
}

func (s *kindLog) Flush() error {
	s.log = append(s.log, "flush")
	return nil
}

// TestEngineFlushesEachCycle checks that the trace is flushed at every cycle boundary:
// after each conflict set (and the firing that follows it) and before the engine moves
// on to another state or calls an effector.
func TestEngineFlushesEachCycle(t *testing.T) {
	sink := &kindLog{}
	e := NewEngine(loadEngineRules(t), &scriptedEffector{scores: []float64{0.5, 0.9}}, WithTrace(sink))
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	cycles := 0
	for i, k := range sink.log {
		if k != tr.KindConflictSet {
			continue
		}
		cycles++
		j := i + 1
		for j < len(sink.log) && sink.log[j] != "flush" {
			if k := sink.log[j]; k == tr.KindTransition || k == tr.KindEffectorCall || k == tr.KindHalt {
				t.Errorf("event %d (%s) follows the conflict set of event %d before any flush: %v", j, k, i, sink.log)
			}
			j++
		}
		if j == len(sink.log) {
			t.Errorf("no flush after the conflict set of event %d", i)
		}
	}
	if cycles != 4 || sink.log[len(sink.log)-1] != "flush" || sink.log[len(sink.log)-2] != tr.KindHalt {
		t.Errorf("%d cycles; the log must end with halt, flush: %v", cycles, sink.log)
	}
}

// TestEngineTraceFile runs the engine into a trace file with an injected clock and id
// source, reads the file back, and checks the header, seq, times, that an existing trace
// is never opened again, and that a torn last line is reported, not fatal.
func TestEngineTraceFile(t *testing.T) {
	rs := loadEngineRules(t)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	sink, err := tr.CreateFileSink(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	e := NewEngine(rs, &scriptedEffector{scores: []float64{0.9}},
		WithTrace(sink), WithClock(clock.NewStep(start, time.Second)),
		WithIDs(&SeqIDs{Prefix: "job"}), WithMeta(map[string]string{"task": "climb"}))
	res, err := e.Run(context.Background())
	if err != nil || res.Outcome != OutcomeSuccess || res.Run != "job-1" {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	tf, err := tr.ReadFile(path)
	if err != nil || tf.Torn != nil || tf.ChainErr != nil {
		t.Fatalf("reading the trace: %v (torn %v, chain %v)", err, tf.Torn, tf.ChainErr)
	}
	hdr, _ := tf.Header()
	var params map[string]float64
	if err := json.Unmarshal(hdr.Params, &params); err != nil {
		t.Fatal(err)
	}
	if hdr.Format != tr.Format || hdr.Run != "job-1" || hdr.Rules.Hash != rs.Hash() ||
		hdr.Rules.Name != "climb" || params["good"] != 0.8 || params["bad"] != 0.1 || hdr.Meta["task"] != "climb" {
		t.Errorf("header: %s", tf.Events[0].Raw)
	}
	for i, e := range tf.Events {
		want := start.Add(time.Duration(i) * time.Second)
		if e.Seq != int64(i+1) || !e.Time.Equal(want) {
			t.Errorf("line %d: seq %d time %s; want seq %d time %s", i+1, e.Seq, e.Time, i+1, want)
		}
	}
	if last := tf.Events[len(tf.Events)-1]; last.Kind != tr.KindHalt {
		t.Errorf("last event %s, want halt", last.Kind)
	}

	before, _ := os.ReadFile(path)
	if _, err := tr.CreateFileSink(path); !errors.Is(err, tr.ErrExists) {
		t.Errorf("opening an existing trace: %v, want ErrTraceExists", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Errorf("a refused open changed the trace")
	}

	// A process that stops mid-write leaves a torn last line.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"seq":999,"t":"2031-`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	torn, err := tr.ReadFile(path)
	if err != nil || torn.Torn == nil || torn.Torn.Line != len(tf.Events)+1 || len(torn.Events) != len(tf.Events) {
		t.Errorf("torn trace: err %v, torn %v, %d lines (want %d)", err, torn.Torn, len(torn.Events), len(tf.Events))
	}
}
