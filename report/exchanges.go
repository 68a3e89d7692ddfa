package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// What the page says of each exchange and message: a one-line summary by kind, for the
// lanes and the list, and the parts a reader opens (a model call's turns and reply).

func (b *builder) exchange(e *trace.Event, x trace.Exchange) {
	t := &b.r.Totals
	t.Exchanges++
	kind, who, _ := strings.Cut(x.Name, ":")
	it := Item{Title: x.Name, Error: x.Error, Failed: x.Error != "",
		Request: indentJSON(x.Request), Response: indentJSON(x.Response)}
	dur := humanMS(x.DurationMS)
	role, laneText := "R3", x.Name
	switch {
	case kind == "llm":
		it.Kind = "model"
		role = who
		t.ModelCalls++
		in, out := b.model(&it, x, dur)
		if it.Outcome == "failed" {
			it.Failed = true
		}
		t.TokensIn += in
		t.TokensOut += out
		laneText = fmt.Sprintf("model call · %d→%d tok", in, out)
		if len(it.Calls) > 0 {
			laneText += " · calls " + strings.Join(it.Calls, ", ")
		}
	case kind == "tool":
		it.Kind = "tool"
		t.ToolCalls++
		laneText = toolSummary(&it, x, dur)
	case x.Name == trace.ExchangeCheck+"plan":
		it.Kind = "check"
		role = "R2"
		t.PlanChecks++
		laneText = planCheckSummary(&it, x)
	case kind == "memory":
		it.Kind = "memory"
		role = "R2"
		it.Summary = x.Name + " · " + dur
		laneText = x.Name
	default:
		it.Kind = "exchange"
		role = "other"
		it.Summary = x.Name + " · " + dur
	}
	if it.Failed {
		t.FailedExchanges++
	}
	if x.Error != "" {
		it.Summary += " · failed: " + oneLine(x.Error, 120)
	}
	b.item(e, it, role, laneText)
	if it.Kind == "model" || it.Kind == "tool" {
		b.call(e, x, it, role)
	}
}

// model fills a model call's item and returns its tokens in and out.
func (b *builder) model(it *Item, x trace.Exchange, dur string) (int, int) {
	m, _ := runlog.Model(x)
	in, out := m.Usage.PromptTokens, m.Usage.CompletionTokens
	for _, msg := range m.Request.Messages {
		c := msg.Content
		for _, tc := range msg.ToolCalls {
			c += "\n→ " + tc.Name + " " + tc.Arguments
		}
		role := msg.Role
		if msg.ToolCallID != "" {
			role += " (" + msg.ToolCallID + ")"
		}
		it.Chat = append(it.Chat, ChatTurn{Role: role, Content: readable(c)})
	}
	resp := m.Response
	it.Reply = readable(resp.Content)
	for _, tc := range resp.ToolCalls {
		it.Calls = append(it.Calls, tc.Name)
		it.CallArgs = append(it.CallArgs, tc.Name+" "+tc.Arguments)
	}
	it.Outcome = modelOutcome(x, m)
	it.Summary = fmt.Sprintf("%s · %s · %d→%d tokens · %s · %d attempt(s)", m.ModelName(), it.Outcome, in, out, dur, resp.Attempts)
	switch {
	case len(resp.ToolCalls) > 0:
		it.Summary += " → call " + strings.Join(it.Calls, ", ")
	case resp.FinishReason != "":
		it.Summary += " → " + resp.FinishReason
	}
	for _, a := range resp.AttemptLog {
		line := fmt.Sprintf("attempt %d: %s", a.N, a.Cause())
		if a.Answered() {
			line = fmt.Sprintf("attempt %d: answered", a.N)
		}
		if a.WaitMS != nil {
			line += " · waited " + humanMS(*a.WaitMS)
		}
		if a.Error != "" {
			line += " · " + oneLine(a.Error, 100)
		}
		it.Details = append(it.Details, line)
	}
	return in, out
}

// modelOutcome is how a model call went: failed when it ended in an error or none of
// its attempts got an answer (or no response was recorded), retried when it got one after a failed attempt, answered
// at the first try otherwise.
func modelOutcome(x trace.Exchange, m runlog.ModelExchange) string {
	r := m.Response
	if x.Error != "" || !m.Answered {
		return "failed"
	}
	if len(r.AttemptLog) > 0 {
		answered := false
		for _, a := range r.AttemptLog {
			answered = answered || a.Answered()
		}
		if !answered {
			return "failed"
		}
	}
	if r.Attempts > 1 || len(r.AttemptLog) > 1 {
		return "retried"
	}
	return "answered"
}

func toolSummary(it *Item, x trace.Exchange, dur string) string {
	t, _ := runlog.Tool(x)
	r := t.Response
	head := x.Name
	if r.Target != "" {
		head += " " + r.Target
	}
	lane := head
	if t.ExitCode != nil {
		head += fmt.Sprintf(" · exit %d", *t.ExitCode)
		if *t.ExitCode != 0 {
			it.Failed = true
			lane += fmt.Sprintf(" · exit %d", *t.ExitCode)
		}
	}
	head += " · " + dur
	result := r.Result()
	if result != "" {
		head += " → " + oneLine(result, 100)
	}
	it.Summary = head
	return lane
}

func planCheckSummary(it *Item, x trace.Exchange) string {
	pc, _ := runlog.PlanCheckOf(x)
	it.Summary = fmt.Sprintf("round %d attempt %d · ", pc.Round, pc.Attempt)
	if len(pc.Violations) == 0 {
		it.Summary += "no violations"
		return "plan check · no violations"
	}
	it.Failed = true
	it.Summary += fmt.Sprintf("%d violation(s)", len(pc.Violations))
	for _, v := range pc.Violations {
		it.Details = append(it.Details, "violation: "+oneLine(v, 200))
	}
	return fmt.Sprintf("plan check · %d violation(s)", len(pc.Violations))
}

func (b *builder) message(e *trace.Event, m trace.Message) {
	b.r.Totals.Messages++
	it := Item{Kind: "message", Title: m.From + " → " + m.To + " " + m.Type, Request: indentJSON(m.Payload)}
	it.Summary = messageSummary(m)
	laneText := "→ " + m.To + " " + m.Type
	if it.Summary != "" {
		laneText += ": " + oneLine(it.Summary, 90)
	}
	b.item(e, it, m.From, laneText)
}

// messageSummary is the gist of a message's payload: the fields a reader looks for
// first, by message type. A payload that is not its type's (or of a type outside the
// pipeline) shows its intent and summary, if it has them.
func messageSummary(m trace.Message) string {
	var parts []string
	add := func(ss ...string) {
		for _, s := range ss {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	switch p := runlog.Payload(m).(type) {
	case *contract.Assignment:
		add(p.SubTaskID, p.Intent)
	case *contract.ExecutionResult:
		add(p.SubTaskID, p.Status)
	case *contract.SubTaskOutcome:
		add(p.SubTaskID, p.Status)
		if p.FailureReason != nil {
			add(*p.FailureReason)
		}
	case *contract.CorrectionSignal:
		add(p.SubTaskID, p.FailureClass, p.WhatToDo)
	case *contract.PlanDirective:
		add(p.Directive)
	case *contract.FinalResult:
		add(p.Directive, p.Reason, p.Summary)
	case *contract.ReplanRequest:
		add(p.GapSummary)
	case *contract.TaskSpec:
		add(p.Intent)
	case *contract.OutcomeSummary:
		add(p.Intent, p.Summary)
	case *contract.MemoryQuery:
		add(p.Intent)
	case json.RawMessage:
		var g struct{ Intent, Summary any }
		if json.Unmarshal(p, &g) == nil {
			for _, v := range []any{g.Intent, g.Summary} {
				if s, ok := v.(string); ok {
					add(s)
				}
			}
		}
	}
	return strings.Join(parts, " · ")
}
