package taskrun

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

// traceOf builds an unchained trace body from message events (from, to, type, task,
// payload JSON).
func traceOf(msgs ...[5]string) string {
	var b strings.Builder
	b.WriteString(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header","format":"spine-trace/1","run":"x","meta":{"intent":"From the header"}}` + "\n")
	for i, m := range msgs {
		fmt.Fprintf(&b, `{"seq":%d,"t":"2026-01-01T00:00:00Z","kind":"message","from":%q,"to":%q,"type":%q,"task_id":%q,"payload":%s}`+"\n",
			i+2, m[0], m[1], m[2], m[3], m[4])
	}
	return b.String()
}

func TestFindFinishedTask(t *testing.T) {
	final := func(task, dir string) [5]string {
		return [5]string{"R7", "User", "FinalResult", task, fmt.Sprintf(`{"task_id":%q,"directive":%q}`, task, dir)}
	}
	spec := [5]string{"R1", "R2", "TaskSpec", "a", `{"task_id":"a","intent":"Fix the failing tests"}`}
	mg := func(task, space, state string) [5]string {
		return [5]string{"R7", "R5", "Megram", task, fmt.Sprintf(`{"id":"%s-%s","space":%q,"entity":"env:local","state":%q}`, task, state, space, state)}
	}
	for _, tc := range []struct {
		name, want string
		msgs       [][5]string
		task       string // expected task, intent and Megram ids when want is ""
		intent     string
		megrams    string
	}{
		{name: "one task", msgs: [][5]string{spec, mg("a", "tool:x", "change_path"), mg("a", "intent:fix_the_failing", "accept"),
			mg("a", "intent.full:fix_the_failing_tests", "accept"), final("a", "accept")},
			task: "a", intent: "Fix the failing tests", megrams: "a-accept a-accept"},
		{name: "intent from the header", msgs: [][5]string{final("b", "abandon")}, task: "b", intent: "From the header"},
		{name: "no FinalResult", msgs: [][5]string{spec}, want: "t.jsonl: no FinalResult: the task did not finish, so there is no outcome to judge"},
		{name: "several tasks", msgs: [][5]string{final("b", "accept"), final("a", "accept")},
			want: "t.jsonl: FinalResults of 2 tasks (a, b); name one with --task"},
		{name: "a FinalResult not from GGS", msgs: [][5]string{{"R2", "User", "FinalResult", "a", `{}`}},
			want: "t.jsonl: no FinalResult: the task did not finish, so there is no outcome to judge"},
		{name: "bad payload", msgs: [][5]string{{"R7", "User", "FinalResult", "a", `{"loss":"x"}`}},
			want: "t.jsonl:2: FinalResult payload: json: cannot unmarshal string into Go struct field FinalResult.loss of type contract.Loss"},
	} {
		tf, err := trace.Read("t.jsonl", strings.NewReader(traceOf(tc.msgs...)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := FindFinishedTask("t.jsonl", tf, "")
		if tc.want != "" {
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var ids []string
		for _, m := range got.Megrams {
			ids = append(ids, m.Megram.ID)
		}
		if got.ID != tc.task || got.Intent != tc.intent || strings.Join(ids, " ") != tc.megrams {
			t.Errorf("%s: task %q intent %q megrams %q, want %q %q %q", tc.name, got.ID, got.Intent, ids, tc.task, tc.intent, tc.megrams)
		}
	}
}

// FuzzFeedbackTrace feeds arbitrary traces to the feedback reader: an error or a task,
// never a panic.
func FuzzFeedbackTrace(f *testing.F) {
	if b, err := os.ReadFile("../fixtures/ggs/accept.trace.jsonl"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(traceOf([5]string{"R7", "User", "FinalResult", "a", `{"task_id":"a","directive":"accept"}`})))
	f.Add([]byte(`{"seq":1,"kind":"message","type":"Megram","from":"R7","payload":null}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tf, err := trace.Read("f.jsonl", bytes.NewReader(b))
		if err != nil {
			return
		}
		ft, err := FindFinishedTask("f.jsonl", tf, "")
		if err == nil && (ft == nil || ft.FinalLine == 0) {
			t.Fatalf("no error and no finished task: %+v", ft)
		}
	})
}
