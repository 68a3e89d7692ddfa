package runview

import (
	"bufio"
	"context"
	"io"
	"time"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/internal/termui"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/taskrun"
)

// Streams are the process's streams as a command has them: Text and Err escape what they
// are given (termtext), Raw is standard output as it is.
type Streams struct {
	In             io.Reader
	Text, Raw, Err io.Writer
	Interactive    bool // spine run: a spinner and prompts when the streams are terminals
}

// Live is the display of a run as it goes and the writer it draws on: JSON lines on Raw
// (programs keep their bytes), else the pipeline on Text; with Interactive and standard
// output a terminal, through a spinner that draws with its own control codes and shows
// the roles' status and the model's retries, and with standard input a terminal too, a
// prompt for R1's questions and for confirmations.
type Live struct {
	*Display
	Out     io.Writer // what the display writes to
	spin    *termui.Spinner
	retries *termui.RetryDisplay
	prompt  *termui.Prompt
}

// NewLive is the display of a run with the rules rs on s.
func NewLive(s Streams, rs *ruleset.RuleSet, asJSON bool) *Live {
	l := &Live{}
	switch {
	case asJSON:
		l.Out = &termui.LockedWriter{W: s.Raw}
	case s.Interactive && termui.IsTerminal(s.Raw):
		l.spin = termui.StartSpinner(s.Raw, 120*time.Millisecond)
		l.Out = l.spin
	default:
		l.Out = &termui.LockedWriter{W: s.Text}
	}
	l.Display = New(l.Out, rs, asJSON)
	l.retries = termui.NewRetryDisplay(l.Out, s.Err, l.spin, asJSON)
	if s.Interactive && termui.IsTerminal(s.In) && termui.IsTerminal(s.Raw) {
		l.prompt = &termui.Prompt{In: bufio.NewReader(s.In), Out: l.Out, Spin: l.spin}
	}
	return l
}

// Wire points tc's messages, status and questions at the display, and returns ctx with
// the model's retries shown (llm.WithRetryHook).
func (l *Live) Wire(ctx context.Context, tc *taskrun.Config) context.Context {
	tc.OnMessage = l.Message
	if l.prompt != nil {
		tc.Confirmer, tc.Clarify, tc.Caution = l.prompt, l.prompt, l.prompt
	}
	if l.spin != nil {
		tc.OnStatus = l.retries.Status
	}
	return llm.WithRetryHook(ctx, l.retries.Retry)
}

// Stop clears the spinner, if there is one, for good, before the run's result is shown;
// stopping twice is harmless.
func (l *Live) Stop() {
	if l.spin != nil {
		l.spin.Stop()
	}
}
