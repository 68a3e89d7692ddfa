package textview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// tlIndent is the width of a timeline line's seq and time columns: detail lines under an
// event start past it.
const tlIndent = "                 "

// exchange shows one nested exchange: a head line with what identifies it and what came
// back, detail lines (retries, violations, memory's verdicts), and with --all the full
// request and response, kept raw so a kind this file does not know is still shown whole.
func (tl *Timeline) exchange(x trace.Exchange, p func(string, ...any)) {
	head, details := exchangeSummary(x)
	if x.Error != "" {
		head += " · failed: " + oneLine(x.Error, 120)
	}
	p("exchange  %s", head)
	for _, d := range details {
		tl.detail(d)
	}
	if tl.All {
		tl.block("request", x.Request)
		tl.block("response", x.Response)
	}
}

// detail prints a line under the current event, past its seq and time columns.
func (tl *Timeline) detail(s string) {
	termtext.Printf(tl.W, "%s%s", tlIndent, s)
}

// block prints a JSON value indented under the current event, or nothing when absent.
func (tl *Timeline) block(label string, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, tlIndent+"  ", "  ") != nil {
		tl.detail(label + ": " + string(raw))
		return
	}
	tl.detail(label + ":")
	// Indented JSON is a block: its strings hold no raw newline, and what else it holds
	// that a terminal obeys (C1 controls, bidi overrides) is escaped.
	fmt.Fprintf(tl.W, "%s  %s\n", tlIndent, termtext.Block(b.String()))
}

// exchangeSummary is an exchange's head line and detail lines by the kind of its name.
func exchangeSummary(x trace.Exchange) (string, []string) {
	kind, _, _ := strings.Cut(x.Name, ":")
	dur := fmt.Sprintf("%dms", x.DurationMS)
	switch {
	case kind == "llm":
		return llmSummary(x, dur)
	case kind == "tool":
		return toolSummary(x, dur), nil
	case x.Name == trace.ExchangeCheck+"plan":
		return planCheckSummary(x)
	case x.Name == trace.ExchangeMemory+"calibrate":
		return calibrateSummary(x, dur)
	}
	return x.Name + " · " + dur, nil
}

func llmSummary(x trace.Exchange, dur string) (string, []string) {
	m, _ := runlog.Model(x)
	resp := m.Response
	head := fmt.Sprintf("%s · %s · %d→%d tokens · %s · %d attempt(s)", x.Name, m.ModelName(),
		m.Usage.PromptTokens, m.Usage.CompletionTokens, dur, resp.Attempts)
	switch {
	case len(resp.ToolCalls) > 0:
		names := make([]string, len(resp.ToolCalls))
		for i, c := range resp.ToolCalls {
			names[i] = c.Name
		}
		head += " → call " + strings.Join(names, ", ")
	case resp.FinishReason != "":
		head += " → " + resp.FinishReason
	}
	var details []string
	for _, a := range resp.AttemptLog {
		details = append(details, attemptLine(a))
	}
	return head, details
}

// attemptLine says what one attempt got, in the words of the live retry line, and how
// long the client waited after it.
func attemptLine(a contract.ModelAttempt) string {
	cause := a.Cause()
	if a.Answered() {
		cause = "answered"
		if a.Status != 0 {
			cause += fmt.Sprintf(" (HTTP %d)", a.Status)
		}
	}
	line := fmt.Sprintf("attempt %d: %s", a.N, cause)
	if a.RetryAfterMS != nil {
		line += fmt.Sprintf(" · retry-after %dms", *a.RetryAfterMS)
	}
	if a.WaitMS != nil {
		line += fmt.Sprintf(" · waited %dms", *a.WaitMS)
	}
	if a.Error != "" {
		line += " · " + oneLine(a.Error, 100)
	}
	return line
}

func toolSummary(x trace.Exchange, dur string) string {
	t, _ := runlog.Tool(x)
	head := x.Name
	if t.Response.Target != "" {
		head += " " + t.Response.Target
	}
	if t.ExitCode != nil {
		head += fmt.Sprintf(" · exit %d", *t.ExitCode)
	}
	head += " · " + dur
	if result := t.Response.Result(); result != "" {
		head += " → " + oneLine(result, 100)
	}
	return head
}

func planCheckSummary(x trace.Exchange) (string, []string) {
	pc, _ := runlog.PlanCheckOf(x)
	head := fmt.Sprintf("%s round %d attempt %d · ", x.Name, pc.Round, pc.Attempt)
	if len(pc.Violations) == 0 {
		return head + "no violations", nil
	}
	details := make([]string, len(pc.Violations))
	for i, v := range pc.Violations {
		details[i] = "violation: " + oneLine(v, 140)
	}
	return head + fmt.Sprintf("%d violation(s)", len(pc.Violations)), details
}

func calibrateSummary(x trace.Exchange, dur string) (string, []string) {
	c, _ := runlog.CalibrationOf(x)
	q, a := c.Query, c.Answer
	head := fmt.Sprintf("%s · %d tool(s), %d target(s) asked · %d verdict(s) · %s",
		x.Name, len(q.Tools), len(q.Targets), len(a.Verdicts), dur)
	var details []string
	if len(q.Tools) > 0 {
		details = append(details, "asked tools: "+strings.Join(q.Tools, ", "))
	}
	for _, t := range q.Targets {
		details = append(details, "asked "+t.Tool+" × "+t.Target)
	}
	for _, v := range a.Verdicts {
		details = append(details, fmt.Sprintf("verdict %s · %s · M_dec %+.2f · %s", v.Action, v.Pair, v.Decision, oneLine(v.Text, 80)))
	}
	return head, details
}

// message shows a bus message as the live display of `spine run` and `spine play` does,
// through that display's own code (Messages), each line under the event.
func (tl *Timeline) showMessage(m trace.Message, p func(string, ...any)) {
	if tl.Messages == nil {
		p("message   %-4s → %-4s %s", m.From, m.To, m.Type)
		return
	}
	if tl.message == nil {
		eps := 0.1 // as the live display when the rules name none
		if tl.epsilon != nil {
			eps = *tl.epsilon
		}
		tl.message = tl.Messages(&tl.msgBuf, eps)
	}
	tl.msgBuf.Reset()
	tl.message(m)
	first := true
	for _, l := range strings.Split(strings.TrimRight(tl.msgBuf.String(), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "── round"):
			p("%s", l)
		case first:
			p("message   %s", l)
			first = false
		default:
			// The display's detail lines are already indented past its own head.
			tl.detail("          " + l)
		}
	}
}
