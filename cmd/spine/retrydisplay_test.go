package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/effectors/roles"
)

func ms(n int64) *int64 { return &n }

// retries of one call: a 429 with Retry-After, a 500, a timeout; and a cut-short answer.
var shownRetries = []llm.Retry{
	{Role: llm.R2, Max: 4, Failed: llm.Attempt{N: 1, Status: 429, RetryAfterMS: ms(2000), WaitMS: ms(2000)}},
	{Role: llm.R2, Max: 4, Failed: llm.Attempt{N: 2, Status: 500, WaitMS: ms(1500)}},
	{Role: llm.R2, Max: 4, Failed: llm.Attempt{N: 3, Kind: llm.KindTimeout, WaitMS: ms(750)}},
	{Role: llm.R3, Max: 4, Failed: llm.Attempt{N: 1, Status: 200, Kind: llm.KindConnection, WaitMS: ms(0)}},
	{Role: llm.R4b, Max: 3, Failed: llm.Attempt{N: 2, Status: 502, Kind: llm.KindNonJSON, WaitMS: ms(61500)}},
	{Max: 4, Failed: llm.Attempt{N: 1, Kind: llm.KindConnection, WaitMS: ms(999600)}},
}

func TestRetryLinesWhenPiped(t *testing.T) {
	var out, errOut bytes.Buffer
	d := newRetryDisplay(&out, &errOut, nil, false)
	for _, r := range shownRetries {
		d.retry(r)
	}
	want := `R2   retry 2/4 in 2s: HTTP 429 (Retry-After 2s)
R2   retry 3/4 in 1.5s: HTTP 500
R2   retry 4/4 in 750ms: timeout
R3   retry 2/4 now: HTTP 200 answer cut short
R4b  retry 3/3 in 1m1.5s: HTTP 502 with a non-JSON body
llm  retry 2/4 in 16m39.6s: connection refused or dropped
`
	if out.String() != want || errOut.Len() != 0 {
		t.Errorf("stdout\n%s\nwant\n%s\nstderr %q", out.String(), want, errOut.String())
	}

	// With --json stdout stays one message per line; the retries go to stderr.
	out.Reset()
	d = newRetryDisplay(&out, &errOut, nil, true)
	d.retry(shownRetries[0])
	if out.Len() != 0 || errOut.String() != "R2   retry 2/4 in 2s: HTTP 429 (Retry-After 2s)\n" {
		t.Errorf("--json: stdout %q, stderr %q", out.String(), errOut.String())
	}
}

func TestRetryOnTheSpinner(t *testing.T) {
	var term bytes.Buffer
	spin := startSpinner(&term, time.Hour)
	defer spin.Stop()
	d := newRetryDisplay(spin, nil, spin, false)
	var pending []func()
	var waits []time.Duration
	d.after = func(w time.Duration, f func()) { waits, pending = append(waits, w), append(pending, f) }
	line := func() string {
		spin.mu.Lock()
		defer spin.mu.Unlock()
		return spin.status
	}

	d.status(roles.Status{Role: "R2", Text: "planning"})
	d.retry(shownRetries[0])
	if got, want := line(), "R2 · planning · attempt 2/4 · retrying in 2s (429)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	pending[0]() // the wait is over
	if got, want := line(), "R2 · planning · attempt 2/4 (after 429)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	d.retry(shownRetries[2])
	d.status(roles.Status{Role: "R2", Text: "plan rejected by the validator; asking again"})
	pending[1]() // a wait that ends after the line moved on leaves it alone
	if got, want := line(), "R2 · plan rejected by the validator; asking again"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	if want := []time.Duration{2 * time.Second, 750 * time.Millisecond}; len(waits) != 2 || waits[0] != want[0] || waits[1] != want[1] {
		t.Errorf("timers for %v, want %v", waits, want)
	}

	// A long status gives way so that the retry stays readable; a role with no status
	// yet is named alone.
	d.status(roles.Status{Role: "R3", SubTaskID: "sub-0123456789abcdef", Text: strings.Repeat("read the configuration ", 8)})
	d.retry(shownRetries[3])
	if got := line(); len([]rune(got)) != spinnerWidth || !strings.HasPrefix(got, "R3 sub-0123 · read the") ||
		!strings.HasSuffix(got, "… · attempt 2/4 · retrying now (connection)") {
		t.Errorf("spinner %q (%d runes)", got, len([]rune(got)))
	}
	d.retry(shownRetries[4])
	if got, want := line(), "R4b · attempt 3/3 · retrying in 1m1.5s (502)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	d.retry(shownRetries[5])
	if got, want := line(), "llm · attempt 2/4 · retrying in 16m39.6s (connection)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	if strings.Contains(term.String(), "\n") {
		t.Errorf("the spinner printed lines: %q", term.String())
	}
}

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
