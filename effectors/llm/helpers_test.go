package llm

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// recordedSleeps is an injected SleepFunc that returns at once and remembers the delays.
type recordedSleeps struct {
	mu sync.Mutex
	ds []time.Duration
}

func (r *recordedSleeps) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ds = append(r.ds, d)
	return ctx.Err()
}

func (r *recordedSleeps) got() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.ds...)
}

// fixedJitter always yields the same fraction.
type fixedJitter float64

func (f fixedJitter) Float64() float64 { return float64(f) }

// fixedClock is a clock stopped at one instant.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

const testKey = "sk-test-7f3a9c1e-DO-NOT-LEAK"

// newTestModel points an OpenAIModel at srv with instant, recorded sleeps.
func newTestModel(t *testing.T, srv *llmtest.Server, tweak func(*OpenAIOptions)) (*OpenAIModel, *recordedSleeps) {
	t.Helper()
	sleeps := &recordedSleeps{}
	opts := OpenAIOptions{
		BaseURL:     srv.URL(),
		APIKey:      testKey,
		Model:       "test-model",
		Timeout:     2 * time.Second,
		MaxAttempts: 3,
		BaseDelay:   time.Second,
		MaxDelay:    8 * time.Second,
		Sleep:       sleeps.sleep,
		Jitter:      fixedJitter(0.5),
		Clock:       fixedClock(testNow),
	}
	if tweak != nil {
		tweak(&opts)
	}
	m, err := NewOpenAIModel(opts)
	if err != nil {
		t.Fatalf("NewOpenAIModel: %v", err)
	}
	return m, sleeps
}

func userAsks(text string) contract.ModelRequest {
	return contract.ModelRequest{Messages: []contract.ModelMessage{{Role: RoleSystem, Content: "answer in JSON"}, {Role: RoleUser, Content: text}}}
}
