package termui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
)

func ms(n int64) *int64 { return &n }

// retries of one call: a 429 with Retry-After, a 500, a timeout; and a cut-short answer.
var shownRetries = []llm.Retry{
	{Role: llm.R2, Max: 4, Failed: contract.ModelAttempt{N: 1, Status: 429, RetryAfterMS: ms(2000), WaitMS: ms(2000)}},
	{Role: llm.R2, Max: 4, Failed: contract.ModelAttempt{N: 2, Status: 500, WaitMS: ms(1500)}},
	{Role: llm.R2, Max: 4, Failed: contract.ModelAttempt{N: 3, Kind: llm.KindTimeout, WaitMS: ms(750)}},
	{Role: llm.R3, Max: 4, Failed: contract.ModelAttempt{N: 1, Status: 200, Kind: llm.KindConnection, WaitMS: ms(0)}},
	{Role: llm.R4b, Max: 3, Failed: contract.ModelAttempt{N: 2, Status: 502, Kind: llm.KindNonJSON, WaitMS: ms(61500)}},
	{Max: 4, Failed: contract.ModelAttempt{N: 1, Kind: llm.KindConnection, WaitMS: ms(999600)}},
}

func TestRetryLinesWhenPiped(t *testing.T) {
	var out, errOut bytes.Buffer
	d := NewRetryDisplay(&out, &errOut, nil, false)
	for _, r := range shownRetries {
		d.Retry(r)
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
	d = NewRetryDisplay(&out, &errOut, nil, true)
	d.Retry(shownRetries[0])
	if out.Len() != 0 || errOut.String() != "R2   retry 2/4 in 2s: HTTP 429 (Retry-After 2s)\n" {
		t.Errorf("--json: stdout %q, stderr %q", out.String(), errOut.String())
	}
}

func TestRetryOnTheSpinner(t *testing.T) {
	var term bytes.Buffer
	spin := StartSpinner(&term, time.Hour)
	defer spin.Stop()
	d := NewRetryDisplay(spin, nil, spin, false)
	var pending []func()
	var waits []time.Duration
	d.after = func(w time.Duration, f func()) { waits, pending = append(waits, w), append(pending, f) }
	line := func() string {
		spin.mu.Lock()
		defer spin.mu.Unlock()
		return spin.status
	}

	d.Status(roles.Status{Role: "R2", Text: "planning"})
	d.Retry(shownRetries[0])
	if got, want := line(), "R2 · planning · attempt 2/4 · retrying in 2s (429)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	pending[0]() // the wait is over
	if got, want := line(), "R2 · planning · attempt 2/4 (after 429)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	d.Retry(shownRetries[2])
	d.Status(roles.Status{Role: "R2", Text: "plan rejected by the validator; asking again"})
	pending[1]() // a wait that ends after the line moved on leaves it alone
	if got, want := line(), "R2 · plan rejected by the validator; asking again"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	if want := []time.Duration{2 * time.Second, 750 * time.Millisecond}; len(waits) != 2 || waits[0] != want[0] || waits[1] != want[1] {
		t.Errorf("timers for %v, want %v", waits, want)
	}

	// A long status gives way so that the retry stays readable; a role with no status
	// yet is named alone.
	d.Status(roles.Status{Role: "R3", SubTaskID: "sub-0123456789abcdef", Text: strings.Repeat("read the configuration ", 8)})
	d.Retry(shownRetries[3])
	if got := line(); len([]rune(got)) != SpinnerWidth || !strings.HasPrefix(got, "R3 sub-0123 · read the") ||
		!strings.HasSuffix(got, "… · attempt 2/4 · retrying now (connection)") {
		t.Errorf("spinner %q (%d runes)", got, len([]rune(got)))
	}
	d.Retry(shownRetries[4])
	if got, want := line(), "R4b · attempt 3/3 · retrying in 1m1.5s (502)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	d.Retry(shownRetries[5])
	if got, want := line(), "llm · attempt 2/4 · retrying in 16m39.6s (connection)"; got != want {
		t.Errorf("spinner %q, want %q", got, want)
	}
	if strings.Contains(term.String(), "\n") {
		t.Errorf("the spinner printed lines: %q", term.String())
	}
}
