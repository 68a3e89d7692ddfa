package roles

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestJournalledModelKeepsAttemptsAndNamesTheRole: a call retried through a 429 and a
// 500 is journalled with every attempt, and the retry hook on the context hears the
// role's name with each retry.
func TestJournalledModelKeepsAttemptsAndNamesTheRole(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.RateLimited("2"), llmtest.Fail(500, "boom"), llmtest.Text("ok"))
	chat, err := llm.NewOpenAIModel(llm.OpenAIOptions{BaseURL: srv.URL(), APIKey: testKey, MaxAttempts: 4,
		Sleep: func(context.Context, time.Duration) error { return nil }, Jitter: zeroJitter{}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &buffer{}
	jm := journalledModel{role: llm.R2, m: Model{Chat: chat, Name: "model-r2"}, rec: rec,
		clock: clock.NewStep(epoch, time.Second), meter: &usageMeter{}}
	var heard []string
	ctx := llm.WithRetryHook(context.Background(), func(r llm.Retry) {
		heard = append(heard, string(r.Role)+" "+r.Cause())
	})
	if _, err := jm.Complete(ctx, contract.ModelRequest{Messages: []contract.ModelMessage{{Role: llm.RoleUser, Content: "plan"}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(heard, "; "), "R2 HTTP 429 (Retry-After 2s); R2 HTTP 500"; got != want {
		t.Errorf("hook heard %q, want %q", got, want)
	}
	if len(rec.events) != 1 || rec.events[0].x == nil {
		t.Fatalf("journalled %d events, want one exchange", len(rec.events))
	}
	b, err := json.Marshal(rec.events[0].x.Response)
	if err != nil {
		t.Fatal(err)
	}
	want := `"attempts":3,"attempt_log":[{"n":1,"status":429,"retry_after_ms":2000,"wait_ms":2000,"error":"status 429 Too Many Requests: rate limit reached"},` +
		`{"n":2,"status":500,"wait_ms":1000,"error":"status 500 Internal Server Error: boom"},{"n":3,"status":200}]`
	if !strings.Contains(string(b), want) {
		t.Errorf("journalled response\n%s\nlacks\n%s", b, want)
	}
}

// TestWithRetryRoleLeavesAContextWithoutHook: no hook, nothing added.
func TestWithRetryRoleLeavesAContextWithoutHook(t *testing.T) {
	ctx := context.Background()
	if withRetryRole(ctx, llm.R3) != ctx {
		t.Error("a context without a retry hook was wrapped")
	}
}
