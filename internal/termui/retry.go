package termui

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/internal/termtext"
)

// RetryDisplay shows a model call's retries while they happen, so that a run waiting
// out a 429 or a timeout does not look stuck: on the spinner's line next to what the
// role is doing, or, with no spinner, as one line per retry.
type RetryDisplay struct {
	mu    sync.Mutex
	w     io.Writer               // where retry lines go when there is no spinner
	spin  *Spinner                // nil when the output is not a terminal
	last  map[string]roles.Status // each role's latest status, to extend on the spinner
	after func(time.Duration, func())
}

// NewRetryDisplay writes retry lines to w, or to errW with --json so that stdout stays
// one message per line; with a spinner, retries show on its line instead.
func NewRetryDisplay(w, errW io.Writer, spin *Spinner, asJSON bool) *RetryDisplay {
	if asJSON {
		w = errW
	}
	return &RetryDisplay{w: w, spin: spin, last: map[string]roles.Status{},
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// Status is roles.Config.OnStatus: it shows the status and remembers it for the role.
func (d *RetryDisplay) Status(s roles.Status) {
	d.mu.Lock()
	d.last[s.Role] = s
	d.mu.Unlock()
	if d.spin != nil {
		d.spin.Set(StatusLine(s))
	}
}

// Retry is the llm retry hook. It must not block: the client calls it before its wait.
func (d *RetryDisplay) Retry(r llm.Retry) {
	who := string(r.Role)
	if who == "" {
		who = "llm" // a call no role made, e.g. the Dreamer's after the task
	}
	if d.spin == nil {
		// The cause quotes the endpoint's own words.
		fmt.Fprintln(d.w, termtext.Line(fmt.Sprintf("%-4s retry %d/%d %s: %s", who, r.Next(), r.Max, waitWords(r.Wait()), r.Cause())))
		return
	}
	d.mu.Lock()
	s, ok := d.last[string(r.Role)]
	d.mu.Unlock()
	head := who
	if ok {
		head = StatusLine(s)
	}
	// The role's status gives way so that the retry stays on the spinner's line.
	tail := fmt.Sprintf(" · attempt %d/%d · retrying %s (%s)", r.Next(), r.Max, waitWords(r.Wait()), r.Failed.Short())
	waiting := termtext.OneLine(head, max(SpinnerWidth-len([]rune(tail)), 20)) + tail
	d.spin.Set(waiting)
	// Once the wait is over the attempt is under way; say so unless the line has moved on.
	tail = fmt.Sprintf(" · attempt %d/%d (after %s)", r.Next(), r.Max, r.Failed.Short())
	trying := termtext.OneLine(head, max(SpinnerWidth-len([]rune(tail)), 20)) + tail
	d.after(r.Wait(), func() { d.spin.Replace(waiting, trying) })
}

// waitWords is a wait as the display says it: "now", "in 750ms", "in 2s", "in 1.5s".
func waitWords(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Second:
		return "in " + d.Round(time.Millisecond).String()
	default:
		return "in " + d.Round(100*time.Millisecond).String()
	}
}

// LockedWriter serialises writes from the roles' goroutines and the retry hook when no
// spinner does it.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// StatusLine is the spinner's text for a role's status.
func StatusLine(s roles.Status) string {
	if s.SubTaskID != "" {
		return fmt.Sprintf("%s %s · %s", s.Role, termtext.ShortID(s.SubTaskID), s.Text)
	}
	return s.Role + " · " + s.Text
}
