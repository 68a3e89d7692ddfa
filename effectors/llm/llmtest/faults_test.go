package llmtest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestFaultServerActsOutFaults(t *testing.T) {
	s := NewFaultServer(t, Dropped(), CutShort("a long enough answer"), Text("whole"))
	ctx := context.Background()
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

	if resp, got := post(t, ctx, s.URL(), body); resp != nil || !strings.Contains(got, "EOF") {
		t.Errorf("dropped: got a response %v %q, want the connection closed", resp, got)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("cut short: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err == nil || !strings.HasPrefix(string(b), `{"id":"chatcmpl-llmtest-2"`) || strings.HasSuffix(string(b), "}") {
		t.Errorf("cut short: status %d, %d bytes %q, err %v; want half a completion and an error", resp.StatusCode, len(b), b, err)
	}

	if resp, got := post(t, ctx, s.URL(), body); resp == nil || resp.StatusCode != 200 || !strings.Contains(got, `"content":"whole"`) {
		t.Errorf("plain reply after the faults: %q", got)
	}
	if log := s.Requests(); len(log) != 3 || log[0].Chat.Model != "m" || log[1].Chat.Messages[0].Content != "hi" {
		t.Errorf("log = %+v", log)
	}
}

func TestPrependQueuesAhead(t *testing.T) {
	s := NewServer(t, Text("scripted first"))
	s.Prepend(Fail(500, "before"), RateLimited("0"))
	ctx := context.Background()
	body := `{"model":"m","messages":[]}`
	var got []int
	for range 3 {
		resp, _ := post(t, ctx, s.URL(), body)
		got = append(got, resp.StatusCode)
	}
	if got[0] != 500 || got[1] != 429 || got[2] != 200 || s.Pending() != 0 {
		t.Errorf("statuses %v, %d pending; want 500 429 200", got, s.Pending())
	}
}
