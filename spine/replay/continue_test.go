package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	tr "github.com/agentspine/spine/spine/trace"
)

// world stands in for the live side of a continued run: it answers effector calls as
// the full recording did (journalling the recorded nested exchanges and messages), and
// counts the calls it is asked, so a test sees which calls a continuation made again.
type world struct {
	rec   *Recording
	next  int // the recorded call index it expects next
	asked []int
}

func (w *world) serve(ctx context.Context, op string, req any, into any) error {
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	rc := w.rec.calls[w.next]
	if rc == nil || rc.body.Op != op || rc.body.RequestHash != ruleset.HashOf(raw) {
		return fmt.Errorf("world: call %d (%s) is not the recording's next call %d", len(w.asked)+1, op, w.next)
	}
	w.asked = append(w.asked, w.next)
	w.next++
	j := engine.JournalFrom(ctx)
	for _, e := range rc.nested {
		switch b := e.Body.(type) {
		case tr.Exchange:
			x := engine.Exchange{Name: b.Name, Request: b.Request, Error: b.Error, Usage: b.Usage, DurationMS: b.DurationMS}
			if b.Response != nil {
				x.Response = b.Response
			}
			j.Record(x)
		case tr.Message:
			j.Message(b)
		}
	}
	if rc.result.Error != "" {
		return errors.New(rc.result.Error)
	}
	return json.Unmarshal(rc.result.Result, into)
}

func (w *world) Mint(ctx context.Context, r engine.MintRequest) (c engine.Construct, err error) {
	return c, w.serve(ctx, "mint", r, &c)
}
func (w *world) Gate(ctx context.Context, r engine.GateRequest) (s engine.Signals, err error) {
	return s, w.serve(ctx, "gate", r, &s)
}

type observingWorld struct{ *world }

func (w observingWorld) Observe(ctx context.Context, r engine.ObserveRequest) (s engine.Signals, err error) {
	return s, w.serve(ctx, "observe", r, &s)
}

type finishingWorld struct{ *world }

func (w finishingWorld) Finish(ctx context.Context, r engine.FinishRequest) (c engine.Construct, err error) {
	return c, w.serve(ctx, "finish", r, &c)
}

// newWorld answers from full from call from on, offering the optional calls (observe,
// finish) the recorded effector offered.
func newWorld(full *Recording, from int) (engine.Effector, *world) {
	w := &world{rec: full, next: from}
	for _, rc := range full.calls {
		switch rc.body.Op {
		case "observe":
			return observingWorld{w}, w
		case "finish":
			return finishingWorld{w}, w
		}
	}
	return w, w
}

func fixtureTraces(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("../../fixtures/*/*.trace.jsonl")
	if len(paths) < 10 {
		t.Fatalf("found only %d fixture traces", len(paths))
	}
	return paths
}

func recordingOf(t *testing.T, name string, data []byte) *Recording {
	t.Helper()
	f, err := tr.Read(name, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

var compiled sync.Map // rule hash → *ruleset.RuleSet: compiling ggs.yaml per cut would dominate

// rulesOf is the recording's embedded rule set, compiled once per rule file.
func rulesOf(t *testing.T, rec *Recording) *ruleset.RuleSet {
	t.Helper()
	if rs, ok := compiled.Load(rec.Header.Rules.Hash); ok {
		return rs.(*ruleset.RuleSet)
	}
	rs, err := rec.EmbeddedRules()
	if err != nil {
		t.Fatal(err)
	}
	compiled.Store(rec.Header.Rules.Hash, rs)
	return rs
}

// continued runs a continuation of the recording at path (already cut or whole) with
// the world answering live, writing through the continuation's sink.
func continued(t *testing.T, path string, full *Recording, opts ContinueOptions) (out []byte, cont *Continue, w *world, res trace.Halt, err error) {
	t.Helper()
	c, err := tr.OpenContinuation(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecording(path, c.File)
	if err != nil {
		t.Fatal(err)
	}
	rs := rulesOf(t, rec)
	opts.Stopped = c.Stopped()
	if cont, err = NewContinue(rec, opts); err != nil {
		t.Fatal(err)
	}
	// The live side starts at the first call the continuation will not serve.
	from := 1
	for n := 1; ; n++ {
		rc := rec.calls[n]
		if rc == nil || rc.result == nil || (opts.Fork != nil && rc.call.Seq >= opts.Fork.Seq) {
			from = n
			break
		}
	}
	eff, w := newWorld(full, from)
	newPath := filepath.Join(t.TempDir(), "continued.jsonl")
	sink, err := c.Create(newPath)
	if err != nil {
		t.Fatal(err)
	}
	h := rec.Header
	eng := engine.NewEngine(rs, eff, cont.Option(),
		engine.WithClock(clock.NewStep(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond)),
		engine.WithMeta(h.Meta), engine.WithMaxIterations(h.Limits.MaxIterations), engine.WithMaxFirings(h.Limits.MaxFirings),
		engine.WithTrace(sink), engine.WithRecordedRules(h.Rules.Path, h.Rules.Source != ""))
	// The host seeds its facts as in the recorded run (the cut may have lost them).
	if err := (&Exchanger{rec: full}).seed(eng.Session()); err != nil {
		t.Fatal(err)
	}
	res, err = eng.Run(context.Background())
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	out, _ = os.ReadFile(newPath)
	return out, cont, w, res, err
}

// bodies is every line's event without its envelope (seq, t, h), the resumed line and
// any kinds in skip left out, up to the halt: what the control plane and the world did.
func bodies(t *testing.T, data []byte, skip ...string) []string {
	t.Helper()
	f, err := tr.Read("bodies", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range f.Events {
		e := &f.Events[i]
		if e.Kind == tr.KindResumed || slices.Contains(skip, e.Kind) {
			continue
		}
		b, err := e.BodyJSON()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Kind+" "+string(b))
		if e.Kind == tr.KindHalt {
			break
		}
	}
	return out
}

// replayCheck is `spine replay --check` of a continued trace: its replay with its
// recorded rules is byte-identical.
func replayCheck(t *testing.T, data []byte) {
	t.Helper()
	rec := recordingOf(t, "continued", data)
	rs := rulesOf(t, rec)
	sink := &tr.MemorySink{}
	if _, err := Run(context.Background(), rec, rs, sink); Failed(err) {
		t.Fatalf("replay of the continued trace: %v", err)
	}
	if d := CompareTraces(data, sink.Bytes(), 0); d != nil {
		t.Fatalf("replay of the continued trace differs: %s", d)
	}
}

// TestContinueEveryCut cuts every fixture after every other line (and inside some),
// continues it, and checks what a resume promises: the run ends as the recorded one
// did, the world is asked exactly the calls whose results the cut lost, the new trace's
// lines before its resumed line are the cut's, and it replays byte for byte.
func TestContinueEveryCut(t *testing.T) {
	for _, path := range fixtureTraces(t) {
		data, _ := os.ReadFile(path)
		full := recordingOf(t, path, data)
		lines := bytes.SplitAfter(data, []byte("\n"))
		lines = lines[:len(lines)-1]
		var halt tr.Halt
		for i := range full.Events {
			if h, ok := tr.As[tr.Halt](&full.Events[i]); ok {
				halt = h
			}
		}
		want := bodies(t, data)
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			for cut := 1; cut < len(lines); cut++ {
				for _, torn := range []bool{false, true} {
					// Every other line (odd ones), and a torn line at every fourth (it is dropped before
					// anything else happens).
					if cut%2 == 0 && cut > 2 || torn && cut%4 != 1 {
						continue
					}
					cutData := bytes.Join(lines[:cut], nil)
					if torn {
						cutData = append(bytes.Clone(cutData), lines[cut][:len(lines[cut])/2]...)
					}
					if full.Events[cut-1].Kind == tr.KindHalt {
						continue // the run ended: a host says so and continues nothing
					}
					cutPath := filepath.Join(dir, fmt.Sprintf("cut%d-%v.jsonl", cut, torn))
					os.WriteFile(cutPath, cutData, 0o644)
					out, cont, w, res, err := continued(t, cutPath, full, ContinueOptions{})
					where := fmt.Sprintf("cut after line %d (torn %v)", cut, torn)
					if err != nil || res.Outcome != halt.Outcome {
						t.Fatalf("%s: %v, outcome %s (recorded %s)", where, err, res.Outcome, halt.Outcome)
					}
					// Every call whose result the cut holds is served, none made again.
					var lost []int
					for n := 1; full.calls[n] != nil; n++ {
						if full.calls[n].result == nil || resultLine(full, n) > cut {
							lost = append(lost, n)
						}
					}
					if !slices.Equal(w.asked, lost) {
						t.Fatalf("%s: the world was asked calls %v, want exactly the lost ones %v", where, w.asked, lost)
					}
					sw, ok := cont.Switched()
					if !ok || sw.Line > cut {
						t.Fatalf("%s: switch %+v, %v", where, sw, ok)
					}
					if !bytes.HasPrefix(out, bytes.Join(lines[:sw.Line], nil)) {
						t.Fatalf("%s: the continued trace does not start with the recording's %d lines", where, sw.Line)
					}
					if got := bodies(t, out); !slices.Equal(got, want) {
						t.Fatalf("%s: the continued run's events differ from the recorded run's", where)
					}
					replayCheck(t, out)
				}
			}
		})
	}
}

// resultLine is the line of call n's result in the recording.
func resultLine(rec *Recording, n int) int {
	for i := range rec.Events {
		if r, ok := tr.As[tr.EffectorResult](&rec.Events[i]); ok && r.Call == n {
			return rec.Events[i].Line
		}
	}
	return 1 << 30
}

// TestContinueRefusesDeparture: a run that asks, before the switch, for an effector
// call other than the recorded one is refused, whether the recording holds the call
// whole or only its start.
func TestContinueRefusesDeparture(t *testing.T) {
	path := "../../fixtures/ggs/change_path_then_success.trace.jsonl"
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	rec := recordingOf(t, path, data)
	rs, _ := rec.EmbeddedRules()
	// The same rules with the first rule renamed: the mint request names it.
	src := strings.Replace(rs.Source(), "name: plan_first_round", "name: plan_round_one", 1)
	edited, err := engine.LoadRules("ggs.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	callLine := 0
	for i := range rec.Events {
		if rec.Events[i].Kind == tr.KindEffectorCall {
			callLine = rec.Events[i].Line
			break
		}
	}
	for _, cut := range []int{callLine, len(lines) - 2} { // the first call in flight; all but the end
		r := recordingOf(t, path, bytes.Join(lines[:cut], nil))
		cont, _ := NewContinue(r, ContinueOptions{})
		eff, _ := newWorld(rec, 1)
		eng := engine.NewEngine(edited, eff, cont.Option(), engine.WithTrace(&tr.MemorySink{}))
		cont.Seed(eng.Session())
		_, err := eng.Run(context.Background())
		d, ok := errors.AsType[*DivergenceError](err)
		if !ok || d.Field != "rule" || d.Recorded != `"plan_first_round"` {
			t.Fatalf("cut %d: %v, want a divergence on the request's rule", cut, err)
		}
		if _, live := cont.Switched(); live {
			t.Fatalf("cut %d: went live after a departure", cut)
		}
	}
}
