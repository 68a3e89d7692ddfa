package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// climber is an effector with state of its own, as GGS's loop and the role pipeline
// have: each mint asks a model twice and adds the answers to a running total that
// only the effector holds. Its model client asks the run's Exchanges first, as a
// production client would.
type climber struct {
	total  float64
	prompt string
	asked  int // live model calls
}

func (c *climber) ask(ctx context.Context, what string) (float64, error) {
	req := map[string]string{"prompt": c.prompt + what}
	j := engine.JournalFrom(ctx)
	rec, ok, err := ExchangesFrom(ctx).Serve("llm:climb", req)
	if err != nil {
		return 0, err
	}
	var v float64
	if ok {
		j.Record(Journalled(rec))
		return v, json.Unmarshal(rec.Response, &v)
	}
	c.asked++
	v = 0.25
	if what == "check" {
		v = 0.025
	}
	j.Record(engine.Exchange{Name: "llm:climb", Request: req, Response: v, DurationMS: 3})
	return v, nil
}

func (c *climber) Mint(ctx context.Context, r engine.MintRequest) (engine.Construct, error) {
	for _, what := range []string{"step", "check"} {
		v, err := c.ask(ctx, what)
		if err != nil {
			return engine.Construct{}, err
		}
		c.total += v
	}
	body, _ := json.Marshal(c.total)
	return engine.Construct{ID: fmt.Sprintf("c%d", r.Iteration), Body: body}, nil
}

func (c *climber) Gate(_ context.Context, r engine.GateRequest) (engine.Signals, error) {
	var total float64
	if err := json.Unmarshal(r.Construct.Body, &total); err != nil {
		return engine.Signals{}, err
	}
	return engine.Signals{Changes: []engine.Change{{Op: engine.ChangePut, Kind: "score", Fields: ruleset.Fields{"value": total, "round": r.Iteration}}}}, nil
}

var durations = regexp.MustCompile(`"duration_ms":\d+`)

// TestRerunEveryCut records a run of the stateful climber, cuts it after every line,
// and resumes each cut with Rerun: the climber's state is rebuilt from the recorded
// model answers, the model is asked exactly the calls the cut lost, the run succeeds
// as recorded, and the resumed trace starts with the cut's lines and replays.
func TestRerunEveryCut(t *testing.T) {
	rs, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sink := &tr.MemorySink{}
	orig := &climber{}
	if res, err := engine.NewEngine(rs, orig, engine.WithTrace(sink)).Run(context.Background()); err != nil || res.Outcome != engine.OutcomeSuccess || orig.asked != 6 {
		t.Fatalf("the recorded run: %+v, %v, %d model calls", res, err, orig.asked)
	}
	data := sink.Bytes()
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1]
	norm := func(b []string) []string {
		out := slices.Clone(b)
		for i := range out {
			out[i] = durations.ReplaceAllString(out[i], `"duration_ms":0`)
		}
		return out
	}
	want := norm(bodies(t, data))
	dir := t.TempDir()
	for cut := 1; cut < len(lines)-1; cut++ {
		for _, torn := range []bool{false, true} {
			cutData := bytes.Join(lines[:cut], nil)
			if torn {
				cutData = append(bytes.Clone(cutData), lines[cut][:len(lines[cut])/2]...)
			}
			where := fmt.Sprintf("cut after line %d (torn %v)", cut, torn)
			path := filepath.Join(dir, fmt.Sprintf("cut%d-%v.jsonl", cut, torn))
			os.WriteFile(path, cutData, 0o644)
			c, err := tr.OpenContinuation(path)
			if err != nil {
				t.Fatal(err)
			}
			rec, _ := NewRecording(path, c.File)
			cont, _ := NewContinue(rec, ContinueOptions{Rerun: true, Stopped: c.Stopped()})
			out := filepath.Join(dir, fmt.Sprintf("resumed%d-%v.jsonl", cut, torn))
			sink, err := c.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			eff := &climber{}
			eng := engine.NewEngine(rs, eff, cont.Option(), engine.WithTrace(sink),
				engine.WithClock(clock.NewStep(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond)))
			res, err := eng.Run(context.Background())
			if cerr := sink.Close(); err == nil {
				err = cerr
			}
			if err != nil || res.Outcome != engine.OutcomeSuccess {
				t.Fatalf("%s: %+v, %v", where, res, err)
			}
			held := bytes.Count(cutData[:len(bytes.Join(lines[:cut], nil))], []byte(`"kind":"exchange"`))
			if eff.asked != 6-held {
				t.Fatalf("%s: the model was asked %d times; the cut holds %d of the 6 answers", where, eff.asked, held)
			}
			got, _ := os.ReadFile(out)
			if sw, ok := cont.Switched(); !ok || !bytes.HasPrefix(got, bytes.Join(lines[:sw.Line], nil)) {
				t.Fatalf("%s: switch %+v %v, or the resumed trace does not start with the cut", where, sw, ok)
			}
			if g := norm(bodies(t, got)); !slices.Equal(g, want) {
				t.Fatalf("%s: the resumed run's events differ from the recorded run's:\n%v\n%v", where, g, want)
			}
			replayCheck(t, got)
		}
	}

	// A re-run that asks the model something else before the switch is refused.
	c, _ := tr.OpenContinuation(writeFile(t, dir, "half.jsonl", bytes.Join(lines[:len(lines)/2], nil)))
	rec, _ := NewRecording("half", c.File)
	cont, _ := NewContinue(rec, ContinueOptions{Rerun: true})
	_, err = engine.NewEngine(rs, &climber{prompt: "please "}, cont.Option(), engine.WithTrace(&tr.MemorySink{})).Run(context.Background())
	if d, ok := errors.AsType[*ExchangeDivergenceError](err); !ok || d.Field != "prompt" {
		t.Fatalf("a departing re-run: %v", err)
	}
	if _, live := cont.Switched(); live {
		t.Fatal("a departing re-run went live")
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
