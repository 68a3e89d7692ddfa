package replay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	tr "github.com/agentspine/spine/spine/trace"
)

// pollSpy is the recorded exchanger noting where the engine polls for rules.
type pollSpy struct {
	*Exchanger
	polls []int64
}

func (p *pollSpy) PollRules(t engine.Tape) (bool, error) {
	p.polls = append(p.polls, t.Next())
	return p.Exchanger.PollRules(t)
}

func allTraces(t *testing.T) []string {
	golden, _ := filepath.Glob("../engine/testdata/engine/*.jsonl")
	return append(fixtureTraces(t), golden...)
}

// TestBoundaries holds Boundaries, read from the trace, to where the engine polls for
// rules in a replay of every fixture and engine golden.
func TestBoundaries(t *testing.T) {
	climb, err := engine.LoadRulesFile("../engine/testdata/engine/climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range allTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, _ := os.ReadFile(path)
			rec := recordingOf(t, path, data)
			rs := climb
			if rec.Header.Rules.Source != "" {
				rs = rulesOf(t, rec)
			}
			spy := &pollSpy{Exchanger: &Exchanger{rec: rec}}
			h := rec.Header
			eng := engine.NewEngine(rs, nil, engine.WithExchanger(spy), engine.WithMeta(h.Meta),
				engine.WithMaxIterations(h.Limits.MaxIterations), engine.WithMaxFirings(h.Limits.MaxFirings),
				engine.WithTrace(&tr.MemorySink{}))
			if err := spy.seed(eng.Session()); err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Run(context.Background()); Failed(err) {
				t.Fatal(err)
			}
			bs := Boundaries(rec)
			var seqs []int64
			for _, b := range bs {
				seqs = append(seqs, b.Seq)
				ev := &rec.Events[b.Line-1]
				cs, isCycle := tr.As[tr.ConflictSet](ev)
				if ev.Seq != b.Seq || b.Cycle == 0 || isCycle && (cs.Cycle != b.Cycle || cs.Stage != engine.StateSelect) {
					t.Errorf("boundary %+v: its line is %s seq %d", b, ev.Kind, ev.Seq)
				}
			}
			if len(seqs) == 0 || !slices.Equal(seqs, spy.polls) {
				t.Fatalf("Boundaries at seqs %v; the engine polled at %v", seqs, spy.polls)
			}
		})
	}
}

func TestForkPoint(t *testing.T) {
	path := "../../fixtures/ggs/change_path_then_success.trace.jsonl"
	data, _ := os.ReadFile(path)
	rec := recordingOf(t, path, data)
	bs := Boundaries(rec)
	last := rec.Events[len(rec.Events)-1].Seq
	for seq := int64(0); seq <= last+1; seq++ {
		b, err := ForkPoint(rec, seq)
		switch {
		case seq < bs[0].Seq:
			if err == nil || !strings.Contains(err.Error(), "before the first cycle boundary") {
				t.Errorf("seq %d: %v", seq, err)
			}
		case seq > last:
			if err == nil || !strings.Contains(err.Error(), "past the recording's last line") {
				t.Errorf("seq %d: %v", seq, err)
			}
		default:
			i := len(bs) - 1
			for bs[i].Seq > seq {
				i--
			}
			if err != nil || b != bs[i] {
				t.Errorf("seq %d: %+v, %v; want %+v", seq, b, err, bs[i])
			}
		}
	}
}

// TestForkEveryBoundary forks every fixture at each of its cycle boundaries with its
// own rules: the fork's lines before its resumed line are the recording's, the live
// world is asked every call after the boundary and no other, the run's events are the
// recording's once the resumed and reload lines are set aside, and the fork replays.
func TestForkEveryBoundary(t *testing.T) {
	for _, path := range fixtureTraces(t) {
		data, _ := os.ReadFile(path)
		full := recordingOf(t, path, data)
		lines := bytes.SplitAfter(data, []byte("\n"))
		want := bodies(t, data)
		h := full.Header
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, b := range Boundaries(full) {
				out, cont, w, _, err := continued(t, path, full, ContinueOptions{Mode: "fork", Fork: &b, RulesName: h.Rules.Path, Rules: []byte(h.Rules.Source)})
				where := fmt.Sprintf("fork at %+v", b)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				var after []int
				for n := 1; full.calls[n] != nil; n++ {
					if full.calls[n].call.Seq >= b.Seq {
						after = append(after, n)
					}
				}
				if !slices.Equal(w.asked, after) {
					t.Fatalf("%s: the world was asked %v, want %v", where, w.asked, after)
				}
				if sw, ok := cont.Switched(); !ok || sw.Seq != b.Seq || sw.Line != b.Line-1 {
					t.Fatalf("%s: switched %+v", where, sw)
				}
				if !bytes.HasPrefix(out, bytes.Join(lines[:b.Line-1], nil)) {
					t.Fatalf("%s: the fork does not start with the recording's first %d lines", where, b.Line-1)
				}
				if got := bodies(t, out, tr.KindRulesReloaded); !slices.Equal(got, want) {
					t.Fatalf("%s: the fork's events differ from the recording's", where)
				}
				replayCheck(t, out)
			}
		})
	}
}

// TestForkEditedRules forks with an edited threshold: the fork holds the edit as a
// recorded reload, its first event that differs from the recording's is the decision
// of the boundary's cycle, and it replays byte for byte.
func TestForkEditedRules(t *testing.T) {
	path := "../../fixtures/ggs/change_path_then_success.trace.jsonl"
	data, _ := os.ReadFile(path)
	full := recordingOf(t, path, data)
	h := full.Header
	// Round 1 measured D = 1: with δ = 1 it is a success at cycle 3, not a change of path.
	edited := strings.Replace(h.Rules.Source, "delta: 0.3 ", "delta: 1.0 ", 1)
	if edited == h.Rules.Source {
		t.Fatal("the rules have no delta: 0.3 to edit")
	}
	bs := Boundaries(full)
	b := bs[1]
	out, _, _, _, _ := continued(t, path, full, ContinueOptions{Mode: "fork", Fork: &b, RulesName: "edited.yaml", Rules: []byte(edited)})
	f, err := tr.Read("fork", bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	reloaded := false
	for i := range f.Events {
		if r, ok := tr.As[tr.Reload](&f.Events[i]); ok && f.Events[i].Kind == tr.KindRulesReloaded && r.Source == edited {
			reloaded = true
		}
	}
	if !reloaded {
		t.Fatal("the fork does not record the edited rules")
	}
	got, want := bodies(t, out, tr.KindRulesReloaded), bodies(t, data)
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	if i == len(want) {
		t.Fatal("the edited fork decided as the recording did")
	}
	if !strings.HasPrefix(got[i], tr.KindConflictSet+` {"cycle":`+fmt.Sprint(b.Cycle)+",") || !strings.Contains(got[i], `"fired":"success_within_delta"`) {
		t.Fatalf("the first difference is not the decision of the boundary's cycle %d:\n%s\nrecorded\n%s", b.Cycle, got[i], want[i])
	}
	replayCheck(t, out)
}
