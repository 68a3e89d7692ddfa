package llmtest

import (
	"context"
	"strings"
	"testing"
)

func TestRouterAnswersEachModelFromItsScript(t *testing.T) {
	r := NewRouter(t, map[string][]Reply{
		"a": {Text("a1"), Text("a2")},
		"b": {Dropped(), Text("b2")},
	})
	ctx := context.Background()
	ask := func(model string) (int, string) {
		resp, got := post(t, ctx, r.URL(), `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`)
		if resp == nil {
			return 0, got
		}
		return resp.StatusCode, got
	}
	if code, got := ask("a"); code != 200 || !strings.Contains(got, `"content":"a1"`) {
		t.Errorf("a, first: %d %s", code, got)
	}
	// The drop is the router's own connection closing, not a proxy's 502.
	if code, got := ask("b"); code != 0 || !strings.Contains(got, "EOF") {
		t.Errorf("b, dropped: %d %s; want the connection closed", code, got)
	}
	if code, got := ask("b"); code != 200 || !strings.Contains(got, `"content":"b2"`) {
		t.Errorf("b, second: %d %s", code, got)
	}
	if u := strings.Join(r.Unused(), ", "); u != "a: 1" {
		t.Errorf("unused = %q, want a: 1", u)
	}
	if n := len(r.Model("b").Requests()); n != 2 || r.Model("c") != nil {
		t.Errorf("b logged %d requests; Model(c) = %v", n, r.Model("c"))
	}
}

func TestRouterRefusesAModelWithoutAScript(t *testing.T) {
	rec := &recordingTB{TB: t}
	r := NewRouter(rec, map[string][]Reply{"a": {Text("a1")}})
	resp, _ := post(t, context.Background(), r.URL(), `{"model":"zz","messages":[]}`)
	if resp == nil || resp.StatusCode != 404 {
		t.Fatalf("unknown model: %v, want 404", resp)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], `no script for model "zz"`) {
		t.Errorf("test errors = %q", rec.errs)
	}
}
