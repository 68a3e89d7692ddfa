package roles

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/ggs"
)

// TestPlausibleCriteriaWeighD runs a plan whose subtask has two plausible and two
// verifiable criteria (one stated as a plain string, so its mode is missing) and a
// deadline, against scripted endpoints. R4a gets three attempts:
//
//	attempt  p1 (plausible)  v1 (verifiable)  p2 (plausible)  v2 (no mode)
//	1        fail            pass             pass            fail (environmental)
//	2        pass            pass             pass            fail (environmental)
//	3        fail            pass             fail            pass
//
// The subtask fails on attempt 3 with p1 and p2 failed. Seed 000's D weighs a failed
// plausible criterion by k/N over the gap trajectory: p1 failed on 2 of 3 attempts, p2 on
// 1 of 3, so D = (2/3 + 1/3) / 4 = 0.25 ≤ δ and GGS ends the task with success. Read as
// verifiable, the same verdicts give D = 2/4 = 0.5, which would replan.
func TestPlausibleCriteriaWeighD(t *testing.T) {
	r := newRig(t)
	r.cfg.RetryBudget = 2
	r.file("notes.txt", "the release ships on Friday; the notes name every change\n")
	const (
		p1 = "the summary is faithful to notes.txt"
		v1 = "notes.txt is read"
		p2 = "the summary names the release's main change"
		v2 = "the summary is one sentence"
		tc = "the user gets a faithful one-sentence summary of the notes"
	)
	plan := map[string]any{
		"task_criteria": []any{map[string]string{"criterion": tc, "mode": "plausible"}},
		"subtasks": []any{map[string]any{
			"intent": "Summarise notes.txt in one sentence",
			"success_criteria": []any{
				map[string]string{"criterion": p1, "mode": "plausible"},
				map[string]string{"criterion": v1, "mode": "verifiable"},
				map[string]string{"criterion": p2, "mode": "plausible"},
				v2,
			},
			"context": "notes.txt is in the working directory", "deadline": "2099-12-31T00:00:00Z", "sequence": 1,
			"tools": []string{"read_file"}, "targets": []string{"notes.txt"},
		}},
	}
	r.script(llm.R1, perceived("Summarise the release notes in one sentence"))
	r.script(llm.R2, jsonText(plan))
	for i := 0; i < 3; i++ {
		r.script(llm.R3, toolCall("c", "read_file", `{"path":"notes.txt"}`), done("completed", "The release ships on Friday."))
	}
	read := "read_file:notes.txt → the release ships on Friday"
	r.script(llm.R4a,
		judged("name the main change in one sentence",
			verdict(p1, "fail", "logical", "the summary leaves out that the notes list changes"),
			verdict(v1, "pass", "", read), verdict(p2, "pass", "", "Friday's release is named"),
			verdict(v2, "fail", "environmental", "the output was cut off")),
		judged("answer in one sentence", verdict(p1, "pass", "", "matches the notes"), verdict(v1, "pass", "", read),
			verdict(p2, "pass", "", "names the release"), verdict(v2, "fail", "environmental", "the output was cut off again")),
		judged("say what the release changes",
			verdict(p1, "fail", "logical", "the notes' changes are missing"), verdict(v1, "pass", "", read),
			verdict(p2, "fail", "logical", "no change is named"), verdict(v2, "pass", "", "one sentence")))

	got := r.run(context.Background(), "Summarise the release notes in one sentence")
	if got.err != nil {
		t.Fatal(got.err)
	}

	// D by hand: Σ weighted failures / Σ criteria.
	wantD := (2.0/3 + 1.0/3) / 4
	final := got.res.Final
	if final == nil || final.Directive != contract.DirectiveSuccess {
		t.Fatalf("final = %+v, want success at D = %v", final, wantD)
	}
	if math.Abs(final.Loss.D-wantD) > 1e-6 {
		t.Errorf("D = %v, want (2/3 + 1/3) / 4 = %v", final.Loss.D, wantD)
	}

	// The modes R2 stated travel with the subtask and are stamped on R4a's verdicts,
	// whatever R4a's model wrote; the criterion stated as a plain string has none.
	subs := messages(t, got.trace, contract.TypeSubTask)
	st := decode[contract.Assignment](t, subs[0])
	wantModes := []string{contract.ModePlausible, contract.ModeVerifiable, contract.ModePlausible, ""}
	for i, c := range st.SuccessCriteria {
		if c.Mode != wantModes[i] {
			t.Errorf("SubTask criterion %d mode %q, want %q", i, c.Mode, wantModes[i])
		}
	}
	if st.Deadline == nil || *st.Deadline != "2099-12-31T00:00:00Z" {
		t.Errorf("deadline %v", st.Deadline)
	}
	mf := decode[contract.DispatchManifest](t, messages(t, got.trace, contract.TypeDispatchManifest)[0])
	if len(mf.TaskCriteria) != 1 || !mf.TaskCriteria[0].Plausible() {
		t.Errorf("task criteria %+v", mf.TaskCriteria)
	}
	reqs := messages(t, got.trace, contract.TypeReplanRequest)
	if len(reqs) != 1 {
		t.Fatalf("%d ReplanRequests", len(reqs))
	}
	rq := decode[contract.ReplanRequest](t, reqs[0])
	o := rq.Outcomes[0]
	for i, v := range o.CriteriaVerdicts {
		if v.Mode != wantModes[i] {
			t.Errorf("verdict %d (%s) mode %q, want %q", i, v.Criterion, v.Mode, wantModes[i])
		}
	}
	if n := len(o.GapTrajectory); n != 3 {
		t.Fatalf("gap trajectory of %d attempts, want 3", n)
	}
	if got := ggs.TallyReplan(&rq).D(); math.Abs(got-wantD) > 1e-6 {
		t.Errorf("TallyReplan D = %v, want %v", got, wantD)
	}
	// The same verdicts without modes count as verifiable: 2 failures of 4.
	for i := range rq.Outcomes[0].CriteriaVerdicts {
		rq.Outcomes[0].CriteriaVerdicts[i].Mode = ""
	}
	if got := ggs.TallyReplan(&rq).D(); got != 0.5 {
		t.Errorf("without modes D = %v, want 0.5", got)
	}

	// R2 is asked for modes; R4a is told how to judge a plausible criterion, and from
	// its second attempt on it sees the subtask's trajectory so far.
	if sys := r.requests(llm.R2)[0].Chat.Messages[0].Content; !strings.Contains(sys, `"mode": "verifiable"`) || !strings.Contains(sys, `"plausible" when`) {
		t.Errorf("the planner's prompt does not ask for modes:\n%s", sys)
	}
	judges := r.requests(llm.R4a)
	if sys := judges[0].Chat.Messages[0].Content; !strings.Contains(sys, "verdict of a plausible criterion") {
		t.Errorf("R4a's prompt does not say how to judge a plausible criterion")
	}
	for i, want := range []int{0, 1, 2} {
		var body struct {
			SubTask struct {
				SuccessCriteria []json.RawMessage `json:"success_criteria"`
			} `json:"subtask"`
			GapTrajectory []contract.GapAttempt `json:"gap_trajectory"`
		}
		if err := json.Unmarshal([]byte(lastUser(judges[i])), &body); err != nil {
			t.Fatal(err)
		}
		if len(body.GapTrajectory) != want {
			t.Errorf("R4a request %d carries %d earlier attempts, want %d", i+1, len(body.GapTrajectory), want)
		}
		if s := string(body.SubTask.SuccessCriteria[0]); !strings.Contains(s, `"mode":"plausible"`) {
			t.Errorf("R4a request %d shows criterion 1 as %s", i+1, s)
		}
		if s := string(body.SubTask.SuccessCriteria[3]); s != `"`+v2+`"` {
			t.Errorf("R4a request %d shows the criterion without mode as %s", i+1, s)
		}
	}
}

// lastUser is the last user turn of a request.
func lastUser(req llmtest.Request) string {
	ms := req.Chat.Messages
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "user" {
			return ms[i].Content
		}
	}
	return ""
}
