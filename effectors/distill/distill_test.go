package distill

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/memory"
)

// store holds six abandons of one tag pair: attention 5.7, decision −5.7, so a pass
// consolidates a constraint.
func store(t *testing.T, d memory.Distiller) *memory.Service {
	t.Helper()
	clock := clock.NewStep(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 0)
	svc, err := memory.NewInMemory(memory.Options{Clock: clock, IDs: &memory.SequentialIDs{Prefix: "m"}, Distiller: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	w, err := svc.WriterFor(memory.RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		m := memory.BlockedTargetMegram("shell", "rm -rf /var/lib/app", memory.Quantum{F: 0.95, Sigma: -1, K: 0.05},
			fmt.Sprintf("abandon %d: the deletion destroyed the data", i+1))
		m.State = contract.DirectiveAbandon
		w.Write(m)
	}
	if err := svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return svc
}

func cEntries(t *testing.T, svc *memory.Service) string {
	t.Helper()
	var b strings.Builder
	err := svc.List(context.Background(), memory.ListFilter{Level: contract.LevelC}, func(r memory.Record) error {
		fmt.Fprintf(&b, "%s %s (%s, %s) σ=%g: %s\n", r.ID, r.Level, r.Space, r.Entity, r.Sigma, r.Content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func model(t *testing.T, replies ...llmtest.Reply) Model {
	srv := llmtest.NewServer(t, replies...)
	chat, err := llm.NewOpenAIModel(llm.OpenAIOptions{BaseURL: srv.URL(), APIKey: "k", Timeout: 5 * time.Second, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return Model{Chat: chat, Name: "distiller"}
}

// TestRecordedPassReplaysWithoutTheModel: a pass distils with the model (the first answer
// breaks the contract and is corrected) and journals it; the same pass over the same
// store replays from the journal alone and writes the same C entry.
func TestRecordedPassReplaysWithoutTheModel(t *testing.T) {
	var journal bytes.Buffer
	m := model(t, llmtest.Text(`{"content": ""}`),
		llmtest.Text("```json\n{\"content\": \"Never run rm -rf on /var/lib/app: it destroyed the data six times.\"}\n```"))
	live := store(t, NewRecorder(m, &journal))
	rep, err := live.DreamOnce(context.Background())
	if err != nil || rep.Consolidated != 1 {
		t.Fatalf("live pass: %+v %v", rep, err)
	}
	want := cEntries(t, live)
	if !strings.Contains(want, "Never run rm -rf on /var/lib/app") {
		t.Fatalf("C entries: %q", want)
	}
	rp, err := ReadJournal("journal.jsonl", bytes.NewReader(journal.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	again := store(t, rp)
	if rep, err := again.DreamOnce(context.Background()); err != nil || rep.Consolidated != 1 {
		t.Fatalf("replayed pass: %+v %v", rep, err)
	}
	if got := cEntries(t, again); got != want {
		t.Errorf("replayed C entries differ:\n got %s\nwant %s", got, want)
	}
	if rp.Remaining() != 0 {
		t.Errorf("%d recorded calls unused", rp.Remaining())
	}
}

func TestReplayDivergesOnAnotherRequest(t *testing.T) {
	req := memory.DistilRequest{Kind: memory.KindConstraint, Space: "tool:shell", Entity: "path:x", Attention: 5.7, Decision: -5.7}
	var journal bytes.Buffer
	rec := NewRecorder(fixed("do not"), &journal)
	if _, err := rec.Distil(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rp, err := ReadJournal("j.jsonl", &journal)
	if err != nil {
		t.Fatal(err)
	}
	req.Entity = "path:y"
	_, err = rp.Distil(context.Background(), req)
	want := `distill replay diverged at call 1 of j.jsonl: field entity: recorded "path:x", replayed "path:y"`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	_, err = rp.Distil(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "the distiller journal holds no more calls (j.jsonl has 1; call 2 asked for tool:shell, path:y)") {
		t.Errorf("past the end: %v", err)
	}
}

type fixed string

func (f fixed) Distil(context.Context, memory.DistilRequest) (memory.DistilResponse, error) {
	return memory.DistilResponse{Content: string(f)}, nil
}

func TestReadJournalErrors(t *testing.T) {
	good, _ := json.Marshal(Entry{Call: 1, RequestHash: requestHash(memory.DistilRequest{}), Response: &memory.DistilResponse{Content: "x"}})
	for _, tc := range []struct{ name, in, want string }{
		{"not json", "{oops\n", "j:1: not a distiller journal entry: invalid character 'o' looking for beginning of object key string"},
		{"unknown field", `{"call":1,"colour":"red"}` + "\n", `j:1: not a distiller journal entry: json: unknown field "colour"`},
		{"wrong call", strings.Replace(string(good), `"call":1`, `"call":2`, 1) + "\n", "j:1: call 2, expected call 1"},
		{"both", strings.Replace(string(good), `}}`, `},"error":"e"}`, 1) + "\n", "j:1: an entry holds exactly one of response and error"},
		{"hash", strings.Replace(string(good), "sha256:", "sha256:0", 1) + "\n", "j:1: request_hash does not match the request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJournal("j", strings.NewReader(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func FuzzReadJournal(f *testing.F) {
	good, _ := json.Marshal(Entry{Call: 1, RequestHash: requestHash(memory.DistilRequest{}), Response: &memory.DistilResponse{Content: "x"}})
	f.Add(append(good, '\n'))
	f.Add([]byte("{oops\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rp, err := ReadJournal("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		for i, e := range rp.entries {
			if e.Call != i+1 || (e.Response == nil) == (e.Error == "") {
				t.Fatalf("accepted a bad entry: %+v", e)
			}
		}
	})
}
