package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	tr "github.com/agentspine/spine/spine/trace"
)

// TestCheck: the verdict on one recording, as a host gets it from Check: a whole trace
// replays identical; one cut mid-line reproduces its complete lines; an edited line
// breaks the chain; an edited header, a file that is not there and a trace of another
// rule set are named; a run that failed replays as a good replay that says how it ended.
func TestCheck(t *testing.T) {
	const dir = "../engine/testdata/engine/"
	success, err := os.ReadFile(dir + "success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	climb, err := os.ReadFile(dir + "climb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	other, err := engine.LoadRules("other.yaml", bytes.Replace(climb, []byte("good: 0.8"), []byte("good: 0.5"), 1))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := bytes.SplitAfter(success, []byte("\n"))
	torn := bytes.Join(lines[:len(lines)-2], nil)
	torn = append(torn, lines[len(lines)-2][:10]...)
	edited := bytes.Replace(success, []byte(`"iteration":1`), []byte(`"iteration":7`), 1)
	for _, tc := range []struct {
		name, path string
		o          CheckOptions
		ok         bool
		check      func(Outcome) string // "" when the outcome is as expected
	}{
		{"identical", dir + "success.jsonl", CheckOptions{Compare: true}, true, func(o Outcome) string {
			if !o.Identical || o.Incomplete != "" || o.Ending() != engine.OutcomeSuccess || o.ChainNote() != "hash chain intact" {
				return "not identical"
			}
			return ""
		}},
		{"replayed", dir + "failure.jsonl", CheckOptions{}, true, func(o Outcome) string {
			if o.Identical || !strings.HasPrefix(o.ReplayedEnding(), "failure (objective ") {
				return "ending " + o.ReplayedEnding()
			}
			return ""
		}},
		{"torn", write("torn.jsonl", torn), CheckOptions{Compare: true}, true, func(o Outcome) string {
			if o.Incomplete == "" || o.Lines != len(lines)-2 {
				return "not incomplete"
			}
			return ""
		}},
		{"edited line", write("edited.jsonl", edited), CheckOptions{Compare: true}, false, func(o Outcome) string {
			var ce *tr.ChainError
			if !errors.As(o.ChainErr, &ce) {
				return "chain not broken"
			}
			return ""
		}},
		{"missing", filepath.Join(tmp, "none.jsonl"), CheckOptions{}, false, func(o Outcome) string {
			if !errors.Is(o.Failed, os.ErrNotExist) {
				return "not failed"
			}
			return ""
		}},
		{"other rules", dir + "success.jsonl", CheckOptions{Rules: other, Compare: true}, false, func(o Outcome) string {
			if !strings.HasPrefix(o.OtherRules, "replayed with --rules other.yaml (") || o.Diff == nil && o.ReplayErr == nil {
				return "not named as other rules"
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Check(context.Background(), tc.path, tc.o)
			if o.OK() != tc.ok {
				t.Errorf("OK() = %v, want %v: failed %v, replay %v, diff %v, chain %v", o.OK(), tc.ok, o.Failed, o.ReplayErr, o.Diff, o.ChainErr)
			}
			if msg := tc.check(o); msg != "" {
				t.Errorf("%s: failed %v, replay %v, diff %v, chain %v, incomplete %q", msg, o.Failed, o.ReplayErr, o.Diff, o.ChainErr, o.Incomplete)
			}
		})
	}
}

// TestSummary sums up several replays in one line, with and without comparison.
func TestSummary(t *testing.T) {
	rs := []Outcome{{Compare: true, Identical: true}, {Compare: true, Identical: true, Incomplete: "torn"}, {Compare: true}}
	if got, want := Summary(rs, true), "3 trace(s) replayed: 2 identical (1 incomplete: their complete lines), 1 not"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	rs = []Outcome{{}, {Failed: errors.New("x")}}
	if got, want := Summary(rs, false), "2 trace(s) replayed: 1 ran, 1 failed"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
