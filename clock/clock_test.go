package clock

import (
	"testing"
	"time"
)

func TestSystemIsUTC(t *testing.T) {
	if loc := (System{}).Now().Location(); loc != time.UTC {
		t.Fatalf("System.Now() is in %v, want UTC", loc)
	}
}

func TestStep(t *testing.T) {
	start := time.Date(2000, 1, 1, 1, 0, 0, 0, time.FixedZone("plus1", 3600))
	c := NewStep(start, time.Second)
	for i, want := range []string{"2000-01-01T00:00:00Z", "2000-01-01T00:00:01Z", "2000-01-01T00:00:02Z"} {
		if got := c.Now().Format(time.RFC3339); got != want {
			t.Errorf("reading %d = %s, want %s", i+1, got, want)
		}
	}
}
