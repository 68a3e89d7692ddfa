package bus

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// watchingLog is a Log that, at the moment it records a message, checks that the
// addressee cannot read it yet: a message is recorded before it is delivered.
type watchingLog struct {
	Log
	post *Post
	t    *testing.T
}

func (w *watchingLog) Message(m trace.Message) int64 {
	if got, ok := w.post.boxes(m.To).peek(m.To); ok {
		w.t.Errorf("%s's mailbox already holds a %s while the %s is being recorded", m.To, got.Type, m.Type)
	}
	return w.Log.Message(m)
}

func TestSendRecordsThenDelivers(t *testing.T) {
	w := &watchingLog{t: t}
	post := NewPost(w)
	w.post = post
	sent, err := post.Send("R4a", "R3", contract.TypeCorrectionSignal, "t1", &contract.CorrectionSignal{SubTaskID: "s1", AttemptNumber: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Seq != 1 {
		t.Errorf("seq = %d, want 1 (the recorder's number)", sent.Seq)
	}
	rec := w.Messages()
	if len(rec) != 1 || rec[0].From != "R4a" || rec[0].To != "R3" || rec[0].TaskID != "t1" {
		t.Fatalf("record = %+v", rec)
	}
	got, m, err := Receive[contract.CorrectionSignal](post, "R3", contract.TypeCorrectionSignal)
	if err != nil {
		t.Fatal(err)
	}
	if got.SubTaskID != "s1" || got.AttemptNumber != 1 || m.Seq != 1 {
		t.Errorf("R3 read %+v (seq %d)", got, m.Seq)
	}
	if string(m.Payload) != string(rec[0].Payload) {
		t.Errorf("R3 read %s, the record holds %s", m.Payload, rec[0].Payload)
	}
}

// TestReceiverGetsASnapshot: what a role reads is the encoding made at Send, so a
// sender changing its value afterwards cannot reach the receiver.
func TestReceiverGetsASnapshot(t *testing.T) {
	post := NewPost(&Log{})
	st := &contract.SubTask{SubTaskID: "s1", SuccessCriteria: contract.Verifiable("a")}
	if _, err := post.Send("R2", "R3", contract.TypeSubTask, "t1", st); err != nil {
		t.Fatal(err)
	}
	st.SubTaskID, st.SuccessCriteria[0].Criterion = "changed", "changed"
	got, _, err := Receive[contract.SubTask](post, "R3", contract.TypeSubTask)
	if err != nil {
		t.Fatal(err)
	}
	if got.SubTaskID != "s1" || got.SuccessCriteria[0].Criterion != "a" {
		t.Errorf("R3 read %+v; the sender's later change reached it", got)
	}
}

func TestReceiveErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		send func(*Post)
		want string
	}{
		{"empty mailbox", func(*Post) {},
			"bus: R2 expected a PlanDirective, and its mailbox is empty"},
		{"another type first", func(p *Post) {
			_, _ = p.Send("R1", "R2", contract.TypeTaskSpec, "t", contract.TaskSpec{TaskID: "t"})
		}, "bus: R2 expected a PlanDirective, and its next message is a TaskSpec from R1"},
		{"payload of another shape", func(p *Post) {
			_, _ = p.Send("R7", "R2", contract.TypePlanDirective, "t", map[string]int{"colour": 1})
		}, `bus: PlanDirective from R7 to R2: the payload is not a PlanDirective: json: unknown field "colour"`},
		{"article", func(p *Post) {
			_, _ = p.Send("R4b", "R2", contract.TypeOutcomeSummary, "t", contract.OutcomeSummary{})
		}, "bus: R2 expected a PlanDirective, and its next message is an OutcomeSummary from R4b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			post := NewPost(&Log{})
			tc.send(post)
			_, _, err := Receive[contract.PlanDirective](post, "R2", contract.TypePlanDirective)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestWrongTypeStaysInTheMailbox(t *testing.T) {
	post := NewPost(&Log{})
	if _, err := post.Send("R1", "R2", contract.TypeTaskSpec, "t", contract.TaskSpec{TaskID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Receive[contract.PlanDirective](post, "R2", contract.TypePlanDirective); err == nil {
		t.Fatal("a TaskSpec was read as a PlanDirective")
	}
	if got, _, err := Receive[contract.TaskSpec](post, "R2", contract.TypeTaskSpec); err != nil || got.TaskID != "t" {
		t.Errorf("the TaskSpec is gone: %+v, %v", got, err)
	}
}

func TestSendNeedsAnAddressAndAnEncodablePayload(t *testing.T) {
	post := NewPost(&Log{})
	for _, tc := range []struct {
		from, to, typ string
		payload       any
		want          string
	}{
		{"", "R3", "SubTask", 1, `bus: a "SubTask" message from "" to "R3" cannot be posted; every message names from, to and type`},
		{"R2", "", "SubTask", 1, `bus: a "SubTask" message from "R2" to "" cannot be posted; every message names from, to and type`},
		{"R2", "R3", "", 1, `bus: a "" message from "R2" to "R3" cannot be posted; every message names from, to and type`},
		{"R2", "R3", "SubTask", func() {}, "bus: encoding SubTask payload from R2 to R3: json: unsupported type: func()"},
	} {
		if _, err := post.Send(tc.from, tc.to, tc.typ, "t", tc.payload); err == nil || err.Error() != tc.want {
			t.Errorf("got  %v\nwant %s", err, tc.want)
		}
	}
	if left := post.Unread(); len(left) != 0 {
		t.Errorf("a refused message was delivered: %q", left)
	}
}

// TestDecodeKeepsNumbers: a payload decoded into an interface encodes to the same bytes
// it was recorded as.
func TestDecodeKeepsNumbers(t *testing.T) {
	post := NewPost(&Log{})
	in := json.RawMessage(`{"big":12345678901234567890,"f":0.1,"n":3}`)
	if _, err := post.Send("R3", "R4a", "X", "t", in); err != nil {
		t.Fatal(err)
	}
	m, _ := post.Next("R4a")
	var v any
	if err := Decode(m, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	if string(out) != string(in) {
		t.Errorf("re-encoded %s, recorded %s", out, in)
	}
}

// TestBranchesKeepPrivateMailboxes: each branch's R3 is its own; mail for a shared role
// from every branch reaches the one mailbox, and each branch records into its own
// recorder. Run under -race.
func TestBranchesKeepPrivateMailboxes(t *testing.T) {
	root := NewPost(&Log{})
	const n = 8
	logs := make([]Log, n)
	var wg sync.WaitGroup
	for i := range n {
		br := root.Branch(&logs[i], "R3", "R4a")
		br.Deliver("R3", trace.Message{From: "R2", To: "R3", Type: contract.TypeSubTask,
			Payload: json.RawMessage(fmt.Sprintf(`{"subtask_id":"s%d"}`, i))})
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, err := Receive[contract.SubTask](br, "R3", contract.TypeSubTask)
			if err != nil || st.SubTaskID != fmt.Sprintf("s%d", i) {
				t.Errorf("branch %d's R3 read %+v, %v", i, st, err)
				return
			}
			if _, err := br.Send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", contract.SubTaskOutcome{SubTaskID: st.SubTaskID}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for {
		o, _, err := Receive[contract.SubTaskOutcome](root, "R4b", contract.TypeSubTaskOutcome)
		if err != nil {
			break
		}
		seen[o.SubTaskID] = true
	}
	if len(seen) != n {
		t.Errorf("R4b received %d outcomes, want %d", len(seen), n)
	}
	for i := range logs {
		if got := logs[i].Messages(); len(got) != 1 || got[0].To != "R4b" {
			t.Errorf("branch %d recorded %+v", i, got)
		}
	}
	if _, ok := root.Next("R3"); ok {
		t.Error("a branch's private R3 mail reached the shared R3 mailbox")
	}
}

func TestUnreadListsWhatNobodyRead(t *testing.T) {
	root := NewPost(&Log{})
	br := root.Branch(&Log{}, "R3")
	_, _ = br.Send("R4a", "R3", contract.TypeCorrectionSignal, "t", contract.CorrectionSignal{})
	_, _ = root.Send("R2", "R5", contract.TypeMegram, "t", contract.Megram{})
	_, _ = root.Send("R7", "R2", contract.TypePlanDirective, "t", contract.PlanDirective{})
	if got, want := strings.Join(root.Unread(), "; "), "R2: a PlanDirective from R7; R5: a Megram from R2"; got != want {
		t.Errorf("root unread = %q, want %q", got, want)
	}
	if got, want := strings.Join(br.Unread(), "; "), "R2: a PlanDirective from R7; R3: a CorrectionSignal from R4a; R5: a Megram from R2"; got != want {
		t.Errorf("branch unread = %q, want %q", got, want)
	}
	if got, want := strings.Join(br.UnreadOwn(), "; "), "R3: a CorrectionSignal from R4a"; got != want {
		t.Errorf("branch's own unread = %q, want %q", got, want)
	}
	if got := root.UnreadOwn(); got != nil {
		t.Errorf("the root has no private mailboxes, yet UnreadOwn = %q", got)
	}
}

// discardRecorder numbers messages and keeps none.
type discardRecorder struct{ n int64 }

func (d *discardRecorder) Message(trace.Message) int64 { d.n++; return d.n }

// BenchmarkPostRoundTrip is what one message between roles costs: encoding the payload
// at Send, delivery to the mailbox, and decoding at Receive (the recorder keeps nothing).
func BenchmarkPostRoundTrip(b *testing.B) {
	post := NewPost(&discardRecorder{})
	res := contract.ExecutionResult{SubTaskID: "s1", Status: contract.ExecCompleted, Output: "port 8080",
		ToolCalls: []string{"read_file:config/app.yaml → port: 8080"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := post.Send("R3", "R4a", contract.TypeExecutionResult, "t1", &res); err != nil {
			b.Fatal(err)
		}
		if _, _, err := Receive[contract.ExecutionResult](post, "R4a", contract.TypeExecutionResult); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBranchOfABranch: a branch of a branch keeps its parent's private mailboxes for
// the roles it does not name.
func TestBranchOfABranch(t *testing.T) {
	root := NewPost(&Log{})
	parent := root.Branch(&Log{}, "R3")
	child := parent.Branch(&Log{}, "R4a")
	_, _ = child.Send("R4a", "R3", contract.TypeCorrectionSignal, "t", contract.CorrectionSignal{SubTaskID: "s1"})
	_, _ = parent.Send("R3", "R4a", contract.TypeExecutionResult, "t", contract.ExecutionResult{SubTaskID: "s1"})
	if _, ok := root.Next("R3"); ok {
		t.Error("the parent's private R3 mail reached the shared mailbox")
	}
	if _, _, err := Receive[contract.CorrectionSignal](parent, "R3", contract.TypeCorrectionSignal); err != nil {
		t.Errorf("the child's mail for R3 did not reach the parent's R3: %v", err)
	}
	if got := strings.Join(child.UnreadOwn(), "; "); got != "" {
		t.Errorf("the child's own R4a got mail sent on the parent: %q", got)
	}
	if got := strings.Join(parent.Unread(), "; "); got != "R4a: an ExecutionResult from R3" {
		t.Errorf("parent unread = %q", got)
	}
}
