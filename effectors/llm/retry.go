package llm

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Jitter yields numbers in [0, 1) that spread retry delays. *math/rand/v2.Rand satisfies
// it (guard it with a lock if the model is shared between goroutines).
type Jitter interface {
	Float64() float64
}

// SleepFunc waits for d or until ctx is done, returning ctx's error in the latter case.
type SleepFunc func(ctx context.Context, d time.Duration) error

// sleepTimer is the real SleepFunc.
func sleepTimer(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lockedJitter is a private, lock-guarded PCG source so that concurrent calls share no
// global random state.
type lockedJitter struct {
	mu sync.Mutex
	r  *mrand.Rand
}

func newLockedJitter() *lockedJitter {
	var seed [16]byte
	_, _ = rand.Read(seed[:]) // crypto/rand.Read never fails on supported platforms
	src := mrand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))
	return &lockedJitter{r: mrand.New(src)}
}

func (j *lockedJitter) Float64() float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.r.Float64()
}

// backoff is the delay before retry number n (n ≥ 1 attempts already made): base·2^(n-1)
// capped at max, of which the upper half is jittered ("equal jitter") so that clients
// that failed together do not retry together.
func backoff(n int, base, max time.Duration, j Jitter) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	f := j.Float64()
	if f < 0 || f >= 1 {
		f = 0
	}
	return half + time.Duration(f*float64(d-half))
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date. ok is false
// when the header is absent or unreadable; a date in the past gives 0.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		const maxSecs = int64(1 << 62 / int64(time.Second))
		if secs > maxSecs {
			secs = maxSecs
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

// retryableStatus tells which HTTP statuses are worth another attempt: rate limiting,
// request timeout and every server-side failure.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500
}
