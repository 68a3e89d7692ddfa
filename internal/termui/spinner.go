// Package termui is the terminal side of a live run's display: the spinner's status
// line, the prompt that asks the person at the terminal, and the retry display. It owns
// drawing and asking only; what a run does, and what its messages mean, are not its
// business, and everything it is given to print passes termtext on the way.
package termui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/termtext"
)

// IsTerminal reports whether w is a character device (a terminal), not a file or a pipe.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// Spinner keeps one status line at the bottom of a terminal — what a role is working on,
// the GGS rationale while R2 replans — and lets other output scroll above it. Every write
// to the terminal goes through it (it is an io.Writer), so lines and the spinner never
// tear each other. It is safe for concurrent use.
type Spinner struct {
	mu     sync.Mutex
	w      io.Writer        // the terminal, for the spinner's own control codes
	text   *termtext.Writer // the terminal, for what the spinner is given to print
	status string
	frame  int
	shown  bool
	paused bool
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// SpinnerWidth is the most characters the status line shows.
const SpinnerWidth = 100

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// StartSpinner draws on w every interval until Stop.
func StartSpinner(w io.Writer, interval time.Duration) *Spinner {
	s := &Spinner{w: w, text: termtext.NewWriter(w), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.mu.Lock()
				s.frame++
				s.draw()
				s.mu.Unlock()
			}
		}
	}()
	return s
}

// Set changes the status text.
func (s *Spinner) Set(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = termtext.OneLine(text, SpinnerWidth)
	s.draw()
}

// Replace changes the status text to text only while it still reads old, so that a
// delayed update does not undo a newer one.
func (s *Spinner) Replace(old, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != termtext.OneLine(old, SpinnerWidth) {
		return
	}
	s.status = termtext.OneLine(text, SpinnerWidth)
	s.draw()
}

// Write prints p above the status line.
func (s *Spinner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	n, err := s.text.Write(p)
	if len(p) > 0 && p[len(p)-1] == '\n' {
		s.draw()
	}
	return n, err
}

// Pause clears the status line and keeps it away until Resume (while the user is asked
// something).
func (s *Spinner) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	s.paused = true
}

// Resume lets the status line back.
func (s *Spinner) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = false
	s.draw()
}

// Stop clears the status line for good; stopping twice is harmless.
func (s *Spinner) Stop() {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	_ = s.text.Flush()
	s.paused = true
}

func (s *Spinner) draw() {
	if s.paused || s.status == "" {
		return
	}
	fmt.Fprintf(s.w, "\r\033[K%s %s", spinnerFrames[s.frame%len(spinnerFrames)], s.status)
	s.shown = true
}

func (s *Spinner) clear() {
	if s.shown {
		fmt.Fprint(s.w, "\r\033[K")
		s.shown = false
	}
}

// Prompt asks the person at the terminal: R1's clarifying questions and the
// confirmation of destructive or cautioned commands. It pauses the spinner while it asks.
type Prompt struct {
	mu   sync.Mutex
	In   *bufio.Reader
	Out  io.Writer
	Spin *Spinner // may be nil
}

// ask prints the question and reads one line; a cancelled context or the end of input
// answers "".
func (t *Prompt) ask(ctx context.Context, question string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Spin != nil {
		t.Spin.Pause()
		defer t.Spin.Resume()
	}
	fmt.Fprint(t.Out, question)
	line := make(chan string, 1)
	go func() {
		s, _ := t.In.ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.Out)
		return "", ctx.Err()
	case s := <-line:
		return s, nil
	}
}

// Clarify puts R1's questions, all at once; an empty line proceeds without an answer.
func (t *Prompt) Clarify(ctx context.Context, questions []string) (string, error) {
	var b strings.Builder
	b.WriteString("The task needs a word more before it can start:\n")
	for _, q := range questions {
		b.WriteString("  - " + termtext.Line(q) + "\n")
	}
	b.WriteString("Your answer (empty to proceed as is): ")
	return t.ask(ctx, b.String())
}

// Confirm asks before a destructive or cautioned command runs; only "y" or "yes" allows it.
// The command is shown whole, on one line with its newlines as \n: the person who
// allows it sees all of what will run, and where one command ends and the next begins.
func (t *Prompt) Confirm(ctx context.Context, c sandbox.Confirmation) (bool, error) {
	q := fmt.Sprintf("R3 wants to run %s: %s\n  because: %s\nAllow? [y/N] ", termtext.Line(c.Tool), termtext.Line(c.Command),
		termtext.Line(strings.Join(c.Reasons, "; ")))
	a, err := t.ask(ctx, q)
	if err != nil {
		return false, err
	}
	a = strings.ToLower(a)
	return a == "y" || a == "yes", nil
}

// Warn prints a warning on the terminal raw, in red, when raw is one; else on text,
// the same stream through termtext's escaping. The colour is the spine's own; the
// message, which may quote a path or a rule, is escaped as all text is.
func Warn(raw, text io.Writer, msg string) {
	if IsTerminal(raw) {
		fmt.Fprintf(raw, "\x1b[1;31mwarning: %s\x1b[0m\n", termtext.Block(msg))
		return
	}
	fmt.Fprintf(text, "warning: %s\n", msg)
}
