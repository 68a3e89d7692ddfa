package scripted

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/trace"
)

const okRound = `{type: OutcomeSummary, payload: {task_id: t, summary: done, output: null, elapsed_ms: 1}}`

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no name", "task: {task_id: t}\nrounds: [{report: " + okRound + "}]", "x.yaml: missing name"},
		{"no task", "name: n\nrounds: [{report: " + okRound + "}]", "x.yaml: missing task.task_id"},
		{"no rounds", "name: n\ntask: {task_id: t}", "x.yaml: no rounds: a scenario needs at least one report"},
		{"bad final", "name: n\nfinal: refine\ntask: {task_id: t}\nrounds: [{report: " + okRound + "}]",
			`x.yaml: final "refine" is not a terminal directive (accept, success or abandon)`},
		{"unknown top key", "name: n\ntask: {task_id: t}\nround: []", `x.yaml: line 3: unknown key "round"`},
		{"round not mapping", "name: n\ntask: {task_id: t}\nrounds:\n  - 42", "x.yaml:4:5: round 1: expected a mapping with report (and optionally expect)"},
		{"unknown round key", "name: n\ntask: {task_id: t}\nrounds:\n  - {report: " + okRound + ", expected: accept}", `x.yaml:4:5: round 1: unknown key "expected" (expected expect or report)`},
		{"missing report", "name: n\ntask: {task_id: t}\nrounds:\n  - {expect: accept}", "x.yaml:4:5: round 1: missing report"},
		{"wrong task", "name: n\ntask: {task_id: other}\nrounds:\n  - {report: " + okRound + "}", `x.yaml:4:5: round 1: report is for task "t", the scenario's task is "other"`},
		{"bad report", "name: n\ntask: {task_id: t}\nrounds:\n  - {report: {type: OutcomeSummary, payload: {task_id: t, colour: red}}}",
			`x.yaml:4:5: round 1: report: OutcomeSummary payload: unknown field "colour"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestPlantChecksExpectations(t *testing.T) {
	src := "name: n\ntask: {task_id: t}\nrounds:\n  - {report: " + okRound + "}\n  - {expect: refine, report: " + okRound + "}\n"
	sc, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlant(sc)
	ctx := context.Background()
	post := bus.NewPost(&bus.Log{})
	if err := p.Round(ctx, post, ggs.RoundInput{TaskID: "t", Round: 1}); err != nil {
		t.Fatal(err)
	}
	if m, ok := post.Next("R7"); !ok || m.From != "R4b" || m.Type != contract.TypeOutcomeSummary || m.TaskID != "t" {
		t.Fatalf("round 1 posted %+v (ok %v), want R4b's OutcomeSummary to R7 for task t", m, ok)
	}
	if _, err := post.Send("R7", "R2", contract.TypePlanDirective, "t", &contract.PlanDirective{Directive: "change_path"}); err != nil {
		t.Fatal(err)
	}
	err = p.Round(ctx, post, ggs.RoundInput{TaskID: "t", Round: 2})
	want := `scenario "n" round 2 (line 5) expects directive refine, GGS gave change_path`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	err = p.Round(ctx, post, ggs.RoundInput{TaskID: "t", Round: 3})
	if err == nil || err.Error() != `the scenario "n" holds 2 rounds; the rules asked for a 3rd` {
		t.Errorf("past the end: %v", err)
	}
}

// TestPlantWithoutDirective: a second round with no PlanDirective in R2's mailbox is an
// error that says what R2 was waiting for.
func TestPlantWithoutDirective(t *testing.T) {
	src := "name: n\ntask: {task_id: t}\nrounds:\n  - {report: " + okRound + "}\n  - {report: " + okRound + "}\n"
	sc, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlant(sc)
	post := bus.NewPost(&bus.Log{})
	if err := p.Round(context.Background(), post, ggs.RoundInput{TaskID: "t", Round: 1}); err != nil {
		t.Fatal(err)
	}
	err = p.Round(context.Background(), post, ggs.RoundInput{TaskID: "t", Round: 2})
	if want := "bus: R2 expected a PlanDirective, and its mailbox is empty"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestShippedScenariosEndAsDesigned plays every GGS fixture; each checks its own
// directives round by round and its final directive.
func TestShippedScenariosEndAsDesigned(t *testing.T) {
	rs := loadGGS(t)
	seen := map[string]bool{}
	err := fs.WalkDir(fixtures.FS, "ggs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		src, err := fs.ReadFile(fixtures.FS, path)
		if err != nil {
			return err
		}
		sc, err := Parse(path, src)
		if err != nil {
			return err
		}
		_, final, err := Play(context.Background(), sc, rs, trace.Discard, nil)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		seen[final.Directive] = true
		for _, r := range sc.Rounds {
			if r.Expect != "" {
				seen[r.Expect] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"accept", "success", "abandon", "break_symmetry", "change_approach", "change_path", "refine"} {
		if !seen[want] {
			t.Errorf("no shipped GGS scenario reaches %s", want)
		}
	}
}

func FuzzParse(f *testing.F) {
	_ = fs.WalkDir(fixtures.FS, "ggs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			if src, rerr := fs.ReadFile(fixtures.FS, path); rerr == nil {
				f.Add(src)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, err := Parse("fuzz.yaml", src)
		if err != nil {
			return
		}
		if sc.Name == "" || sc.Task.TaskID == "" || len(sc.Rounds) == 0 {
			t.Fatalf("accepted an incomplete scenario: %+v", sc)
		}
		for _, r := range sc.Rounds {
			if (r.Report.Replan == nil) == (r.Report.Outcome == nil) {
				t.Fatalf("round without exactly one report: %+v", r)
			}
		}
	})
}
