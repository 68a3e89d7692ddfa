package roles

import (
	"context"
	"errors"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
)

var (
	outCriteria = []string{"config/out.yaml holds the merged settings"}
	writeOut    = sub{Intent: "Write the merged settings to config/out.yaml", Criteria: outCriteria, Sequence: 1,
		Tools: []string{"write_file", "read_file"}, Targets: []string{"config/out.yaml"}}
)

// evidenceRun runs one round in which R4a passes the subtask whatever R3 did, with a
// clock that spends the time budget in that round, so that GGS decides at once. It
// returns the run and the one SubTaskOutcome.
func evidenceRun(t *testing.T, r *rig, r3 ...any) (run, contract.SubTaskOutcome) {
	t.Helper()
	r.cfg.Clock = clock.NewStep(epoch, 3*time.Minute)
	r.script(llm.R1, perceived("Merge the settings into config/out.yaml"))
	r.script(llm.R2, planned([]string{"config/out.yaml holds the merged settings"}, writeOut))
	for _, x := range r3 {
		switch x := x.(type) {
		case [2]string:
			r.script(llm.R3, toolCall("c", x[0], x[1]))
		case string:
			r.script(llm.R3, done("completed", x))
		}
	}
	r.script(llm.R4a, judged("", verdict(outCriteria[0], "pass", "", "the settings were written")))
	got := r.run(context.Background(), "Merge the settings into config/out.yaml")
	if got.err != nil {
		t.Fatal(got.err)
	}
	outs := messages(t, got.trace, contract.TypeSubTaskOutcome)
	if len(outs) != 1 {
		t.Fatalf("%d SubTaskOutcomes, want 1", len(outs))
	}
	return got, decode[contract.SubTaskOutcome](t, outs[0])
}

// assertEvidenceFailure: the passing verdict was turned to an environmental failure
// with exactly why, the outcome failed, and R4b's fan-in gate sent a ReplanRequest to
// GGS without calling its model; the task was not accepted.
func assertEvidenceFailure(t *testing.T, r *rig, got run, o contract.SubTaskOutcome, why string) {
	t.Helper()
	env := contract.FailureEnvironmental
	want := []contract.CriterionVerdict{{Criterion: outCriteria[0], Verdict: contract.VerdictFail, FailureClass: &env, Evidence: why}}
	if o.Status != contract.OutcomeFailed || !reflect.DeepEqual(o.CriteriaVerdicts, want) {
		t.Errorf("outcome = %s %+v, want failed with evidence %q", o.Status, o.CriteriaVerdicts, why)
	}
	reason := `"` + outCriteria[0] + `" failed (environmental) after 1 attempt(s): ` + why
	if o.FailureReason == nil || *o.FailureReason != reason {
		t.Errorf("failure_reason = %v, want %q", o.FailureReason, reason)
	}
	gap := []contract.GapAttempt{{Attempt: 1, FailedCriteria: []contract.FailedCriterion{{Criterion: outCriteria[0], FailureClass: env}}}}
	if !reflect.DeepEqual(o.GapTrajectory, gap) {
		t.Errorf("gap_trajectory = %+v, want %+v", o.GapTrajectory, gap)
	}
	rqs := messages(t, got.trace, contract.TypeReplanRequest)
	if len(rqs) != 1 || len(messages(t, got.trace, contract.TypeOutcomeSummary)) != 0 {
		t.Fatalf("%d ReplanRequests and some OutcomeSummary; want one ReplanRequest", len(rqs))
	}
	rq := decode[contract.ReplanRequest](t, rqs[0])
	if strings.Join(rq.FailedSubTasks, ",") != o.SubTaskID || len(rq.Outcomes) != 1 || rq.Outcomes[0].CriteriaVerdicts[0].Evidence != why {
		t.Errorf("ReplanRequest = %+v", rq)
	}
	if n := len(r.requests(llm.R4b)); n != 0 {
		t.Errorf("R4b's model was called %d times after the subtask failed", n)
	}
	if d := finalDirective(got); d == contract.DirectiveAccept || d == contract.DirectiveSuccess {
		t.Errorf("the task ended in %s", d)
	}
}

// TestEvidenceEveryCallRefused: R4a passes the subtask, but R3's calls were all refused
// (a tool outside the plan, a path outside the root) or failed (a file that is not there).
func TestEvidenceEveryCallRefused(t *testing.T) {
	r := newRig(t)
	got, o := evidenceRun(t, r,
		[2]string{"shell", `{"command":"cp a.yaml config/out.yaml"}`},
		[2]string{"write_file", `{"path":"/etc/out.yaml","content":"x: 1"}`},
		[2]string{"read_file", `{"path":"config/base.yaml"}`},
		"wrote config/out.yaml")
	if len(o.ToolCalls) != 3 {
		t.Fatalf("tool_calls = %q", o.ToolCalls)
	}
	assertEvidenceFailure(t, r, got, o, "no successful action: every tool call was refused or failed (2 refused, 1 failed)")
}

// TestEvidenceNoToolCalled: the plan named tools, R3 called none and said it was done.
func TestEvidenceNoToolCalled(t *testing.T) {
	r := newRig(t)
	got, o := evidenceRun(t, r, "wrote config/out.yaml")
	assertEvidenceFailure(t, r, got, o, "no successful action: the plan named write_file, read_file, and no tool was called")
}

// TestEvidenceNamedFileAbsent: R3 wrote config/out.yml, R4a passes a criterion on
// config/out.yaml, which is not there.
func TestEvidenceNamedFileAbsent(t *testing.T) {
	r := newRig(t)
	got, o := evidenceRun(t, r, [2]string{"write_file", `{"path":"config/out.yml","content":"x: 1\n"}`}, "wrote the settings")
	if sandbox.ReadEntry(o.ToolCalls[0]) != sandbox.EntrySucceeded {
		t.Fatalf("the write did not succeed: %q", o.ToolCalls)
	}
	assertEvidenceFailure(t, r, got, o, "the file config/out.yaml that the criterion names does not exist in the work dir")
}

// TestEvidenceFineChangesNothing: the write happened and the file is there; R4a's
// verdict stands and the task is accepted.
func TestEvidenceFineChangesNothing(t *testing.T) {
	r := newRig(t)
	r.script(llm.R1, perceived("Merge the settings into config/out.yaml"))
	r.script(llm.R2, planned(outCriteria, writeOut))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/missing.yaml"}`),
		toolCall("c2", "write_file", `{"path":"config/out.yaml","content":"x: 1\n"}`), done("completed", "wrote config/out.yaml"))
	r.script(llm.R4a, judged("", verdict(outCriteria[0], "pass", "", "write_file:config/out.yaml → wrote")))
	r.script(llm.R4b, merged("merged", "x: 1", verdict(outCriteria[0], "pass", "", "config/out.yaml written")))
	got := r.run(context.Background(), "Merge the settings into config/out.yaml")
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	o := decode[contract.SubTaskOutcome](t, messages(t, got.trace, contract.TypeSubTaskOutcome)[0])
	want := []contract.CriterionVerdict{{Criterion: outCriteria[0], Verdict: contract.VerdictPass, Evidence: "write_file:config/out.yaml → wrote"}}
	if o.Status != contract.OutcomeMatched || o.FailureReason != nil || !reflect.DeepEqual(o.CriteriaVerdicts, want) {
		t.Errorf("outcome = %+v", o)
	}
}

// fakeDir is a work dir holding the listed paths (and their parent directories).
type fakeDir []string

func (d fakeDir) Exists(rel string) (bool, error) {
	rel = path.Clean(rel)
	if rel == "broken" || strings.HasPrefix(rel, "broken/") {
		return false, errors.New("cannot look")
	}
	for _, p := range d {
		if p == rel || strings.HasPrefix(p, rel+"/") {
			return true, nil
		}
	}
	return false, nil
}

// fakeBox is a toolbox that is a work dir too.
type fakeBox struct {
	sandbox.Toolbox
	fakeDir
}

// TestCheckEvidence holds outcomes to the evidence directly: which passes turn to fails,
// with what evidence, and what stays.
func TestCheckEvidence(t *testing.T) {
	dir := fakeDir{"config/app.yaml", "src/main.go", "notes.txt", "broken"}
	const (
		read    = "read_file:config/app.yaml → port: 8080"
		refused = "read_file:/etc/x → refused: the path is outside the sandbox root"
		failed  = "shell:ls nope → ls: nope: No such file [exit status 2]"
		noCalls = "no successful action: the plan named read_file, and no tool was called"
	)
	for _, tc := range []struct {
		name     string
		tools    []string
		targets  []string
		calls    []string
		criteria []string
		verdicts []string // pass or fail, per criterion
		want     []string // evidence after the check, "" when the verdict stands
	}{
		{"read and present", []string{"read_file"}, nil, []string{read}, []string{"the port is read from config/app.yaml"}, []string{"pass"}, []string{""}},
		{"one success is enough", []string{"read_file", "shell"}, nil, []string{refused, failed, read}, []string{"the port is given"}, []string{"pass"}, []string{""}},
		{"all refused or failed", []string{"read_file", "shell"}, nil, []string{refused, failed}, []string{"the port is given", "it is a number"}, []string{"pass", "pass"},
			[]string{"no successful action: every tool call was refused or failed (1 refused, 1 failed)", "no successful action: every tool call was refused or failed (1 refused, 1 failed)"}},
		{"an unreadable entry is no success", []string{"read_file"}, nil, []string{"garbage"}, []string{"the port is given"}, []string{"pass"},
			[]string{"no successful action: every tool call was refused or failed (0 refused, 1 failed)"}},
		{"no tool called", []string{"read_file"}, nil, nil, []string{"the port is given"}, []string{"pass"}, []string{noCalls}},
		{"no tool planned, none called", nil, nil, nil, []string{"the answer is polite"}, []string{"pass"}, []string{""}},
		{"a failed verdict stays as it is", []string{"read_file"}, nil, nil, []string{"the port is given"}, []string{"fail"}, []string{""}},
		{"named file absent", []string{"read_file"}, nil, []string{read}, []string{"config/out.yaml lists the keys of config/app.yaml"}, []string{"pass"},
			[]string{"the file config/out.yaml that the criterion names does not exist in the work dir"}},
		{"named directory absent", []string{"read_file"}, nil, []string{read}, []string{"the report is under reports/."}, []string{"pass"},
			[]string{"the directory reports/ that the criterion names does not exist in the work dir"}},
		{"extensionless path under a present directory", []string{"read_file"}, nil, []string{read}, []string{"the binary is built at src/cmd"}, []string{"pass"},
			[]string{"the file src/cmd that the criterion names does not exist in the work dir"}},
		{"prose slashes are words", []string{"read_file"}, nil, []string{read}, []string{"reads and/or writes I/O over TCP/IP, 3/4 done"}, []string{"pass"}, []string{""}},
		{"a bare name the plan targets", []string{"read_file"}, []string{"port.txt"}, []string{read}, []string{"port.txt holds the port"}, []string{"pass"},
			[]string{"the file port.txt that the criterion names does not exist in the work dir"}},
		{"a bare name a shell call writes", []string{"shell"}, nil, []string{"shell:echo 8080 > port.txt → (no output)"}, []string{"port.txt holds the port."}, []string{"pass"},
			[]string{"the file port.txt that the criterion names does not exist in the work dir"}},
		{"a bare name nobody targets is a word", []string{"read_file"}, nil, []string{read}, []string{"the service runs on Node.js, see example.com"}, []string{"pass"}, []string{""}},
		{"a bare name present", []string{"read_file"}, []string{"notes.txt"}, []string{read}, []string{"notes.txt is read"}, []string{"pass"}, []string{""}},
		{"absence is the point", []string{"shell"}, nil, []string{"shell:rm old.log → (no output)"}, []string{"config/old.yaml is deleted", "logs/old.log does not exist", "tmp/x.txt isn't there anymore"}, []string{"pass", "pass", "pass"}, []string{"", "", ""}},
		{"outside paths are not checked", []string{"read_file"}, nil, []string{read}, []string{"/etc/hosts and ~/x.txt and ../up.txt and https://example.com/a.txt are untouched"}, []string{"pass"}, []string{""}},
		{"a path the work dir cannot answer for", []string{"read_file"}, nil, []string{read}, []string{"broken/x.txt is read"}, []string{"pass"}, []string{""}},
		{"abbreviations and versions", []string{"read_file"}, nil, []string{read}, []string{"e.g. version v1.2.3 or 3.14, i.e. fine."}, []string{"pass"}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Pipeline{cfg: Config{Tools: fakeBox{fakeDir: dir}}}
			a := contract.Assignment{Tools: tc.tools, Targets: tc.targets}
			a.SuccessCriteria = contract.Verifiable(tc.criteria...)
			out := contract.SubTaskOutcome{Status: contract.OutcomeMatched, ToolCalls: tc.calls,
				GapTrajectory: []contract.GapAttempt{{Attempt: 1, FailedCriteria: []contract.FailedCriterion{}}}}
			for i, c := range tc.criteria {
				v := contract.CriterionVerdict{Criterion: c, Verdict: tc.verdicts[i], Evidence: "R4a's word"}
				if v.Failed() {
					logical := contract.FailureLogical
					v.FailureClass = &logical
					out.Status = contract.OutcomeFailed
				}
				out.CriteriaVerdicts = append(out.CriteriaVerdicts, v)
			}
			before := out.Status
			p.checkEvidence(a, &out)
			var flipped []string
			for i, v := range out.CriteriaVerdicts {
				switch {
				case tc.want[i] == "" && v.Evidence != "R4a's word":
					t.Errorf("criterion %q: evidence %q, want R4a's verdict to stand", v.Criterion, v.Evidence)
				case tc.want[i] != "" && (v.Evidence != tc.want[i] || v.Verdict != contract.VerdictFail || v.Class() != contract.FailureEnvironmental):
					t.Errorf("criterion %q: %s (%s) %q, want fail (environmental) %q", v.Criterion, v.Verdict, v.Class(), v.Evidence, tc.want[i])
				case tc.want[i] != "":
					flipped = append(flipped, v.Criterion)
				}
			}
			var gap []string
			for _, f := range out.GapTrajectory[0].FailedCriteria {
				gap = append(gap, f.Criterion)
			}
			if !slices.Equal(gap, flipped) {
				t.Errorf("gap trajectory names %q, want %q", gap, flipped)
			}
			if want := before; len(flipped) > 0 {
				want = contract.OutcomeFailed
				if out.Status != want || out.FailureReason == nil || !strings.Contains(*out.FailureReason, tc.want[slices.IndexFunc(tc.want, func(s string) bool { return s != "" })]) {
					t.Errorf("status %s, reason %v", out.Status, out.FailureReason)
				}
			} else if out.Status != want {
				t.Errorf("status %s, want %s", out.Status, want)
			}
		})
	}
}

// A toolbox that cannot answer for the work dir leaves the file half of the check off;
// the tool-call half still runs.
func TestCheckEvidenceWithoutWorkDir(t *testing.T) {
	p := &Pipeline{cfg: Config{Tools: struct{ sandbox.Toolbox }{}}}
	v := func() contract.SubTaskOutcome {
		return contract.SubTaskOutcome{Status: contract.OutcomeMatched, ToolCalls: []string{"read_file:a.txt → alpha"},
			CriteriaVerdicts: []contract.CriterionVerdict{{Criterion: "config/out.yaml is written", Verdict: contract.VerdictPass}}}
	}
	out := v()
	p.checkEvidence(contract.Assignment{Tools: []string{"read_file"}}, &out)
	if !reflect.DeepEqual(out, v()) {
		t.Errorf("outcome changed: %+v", out)
	}
	out.ToolCalls = []string{"read_file:a.txt → refused: no"}
	p.checkEvidence(contract.Assignment{Tools: []string{"read_file"}}, &out)
	if out.Status != contract.OutcomeFailed || len(out.GapTrajectory) != 1 {
		t.Errorf("outcome = %+v", out)
	}
}

func TestPathTokens(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"config/out.yaml holds the merged settings.", []string{"config/out.yaml"}},
		{"`config/app.yaml`'s port, then (src/main.go), \"notes.txt\".", []string{"config/app.yaml", "src/main.go", "notes.txt"}},
		{"./build/ and config/.env and .gitignore", []string{"./build/", "config/.env", ".gitignore"}},
		{"and/or I/O 3/4", []string{"and/or", "I/O", "3/4"}},
		{"/etc/hosts ~/x.txt ../up.txt a/../b.txt http://h/a.txt", nil},
		{"e.g. i.e. a.k.a. v1.2.3 3.14 x.", nil},
		{"read a.txt, then a.txt again", []string{"a.txt"}},
		{"Дані/звіт.csv", []string{"Дані/звіт.csv"}},
	} {
		if got := pathTokens(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("pathTokens(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzPathTokens: criteria come from a model, so any text must tokenize without a panic
// into relative paths without "..", and the check must not panic on them.
func FuzzPathTokens(f *testing.F) {
	for _, s := range []string{"config/out.yaml is written", "and/or", "../x.txt", "~/a", "a//b.c", "é/ü.txt", ".", "./", "x./y", "\xff/\xfe.go"} {
		f.Add(s)
	}
	dir := fakeDir{"config/app.yaml"}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range pathTokens(s) {
			if tok == "" || strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "~") || hasDotDotSegment(tok) || path.Clean(tok) == "." {
				t.Fatalf("pathTokens(%q) gave %q", s, tok)
			}
			if strings.IndexFunc(tok, func(r rune) bool { return !isPathRune(r) }) >= 0 {
				t.Fatalf("pathTokens(%q) gave %q, which has a character that is not a path's", s, tok)
			}
		}
		_ = missingFile(dir, s, plannedPaths([]string{s}, []string{s}))
		_ = speaksOfAbsence(s)
	})
}
