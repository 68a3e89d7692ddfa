package main

import (
	"bytes"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestRunShowsRetries: R2's endpoint times out, answers 429 and then 503 before its plan.
// Piped, `spine run` prints one line per retry; the trace keeps every attempt of the
// exchange, and it still replays byte for byte.
func TestRunShowsRetries(t *testing.T) {
	ar := newAcceptRun(t, nil)
	ar.servers["m-r2"].Prepend(llmtest.Reply{Stall: 10 * time.Second}, llmtest.RateLimited("0"),
		llmtest.Reply{Status: 503, ErrorMessage: "overloaded", Header: map[string]string{"Retry-After": "0"}})
	cfg, err := os.ReadFile(ar.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ar.cfg, append(cfg, "timeout: 500ms\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, trace := ar.run(t)
	shown := regexp.MustCompile(`(?m)^R\S*\s+retry .*$`).FindAllString(out, -1)
	want := []*regexp.Regexp{
		regexp.MustCompile(`^R2   retry 2/4 in (\d+ms|1s): timeout$`),
		regexp.MustCompile(`^R2   retry 3/4 now: HTTP 429 \(Retry-After 0s\)$`),
		regexp.MustCompile(`^R2   retry 4/4 now: HTTP 503 \(Retry-After 0s\)$`),
	}
	if len(shown) != len(want) {
		t.Fatalf("retry lines %q, want %d:\n%s", shown, len(want), out)
	}
	for i, re := range want {
		if !re.MatchString(shown[i]) {
			t.Errorf("retry line %d = %q, want %s", i+1, shown[i], re)
		}
	}
	for _, part := range []string{
		`"attempts":4,"attempt_log":[{"n":1,"kind":"timeout","wait_ms":`,
		`"error":"no complete answer within the per-call timeout of 500ms"},` +
			`{"n":2,"status":429,"retry_after_ms":0,"wait_ms":0,"error":"status 429 Too Many Requests: rate limit reached"},` +
			`{"n":3,"status":503,"retry_after_ms":0,"wait_ms":0,"error":"status 503 Service Unavailable: overloaded"},` +
			`{"n":4,"status":200}]`,
	} {
		if !bytes.Contains(trace, []byte(part)) {
			t.Errorf("the trace lacks %s", part)
		}
	}
}
