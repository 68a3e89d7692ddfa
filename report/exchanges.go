package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
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
	dur := fmt.Sprintf("%dms", x.DurationMS)
	role, laneText := "R3", x.Name
	switch {
	case kind == "llm":
		it.Kind = "model"
		role = who
		t.ModelCalls++
		in, out := b.model(&it, x, dur)
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
}

// model fills a model call's item and returns its tokens in and out.
func (b *builder) model(it *Item, x trace.Exchange, dur string) (int, int) {
	var req llm.ChatRequest
	var resp llm.ChatResponse
	_ = json.Unmarshal(x.Request, &req)
	_ = json.Unmarshal(x.Response, &resp)
	model := resp.Model
	if model == "" {
		model = req.Model
	}
	in, out := resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	if x.Usage != nil {
		in, out = x.Usage.PromptTokens, x.Usage.CompletionTokens
	}
	for _, m := range req.Messages {
		c := m.Content
		for _, tc := range m.ToolCalls {
			c += "\n→ " + tc.Name + " " + tc.Arguments
		}
		role := m.Role
		if m.ToolCallID != "" {
			role += " (" + m.ToolCallID + ")"
		}
		it.Chat = append(it.Chat, ChatTurn{Role: role, Content: readable(c)})
	}
	it.Reply = readable(resp.Content)
	for _, tc := range resp.ToolCalls {
		it.Calls = append(it.Calls, tc.Name)
		it.CallArgs = append(it.CallArgs, tc.Name+" "+tc.Arguments)
	}
	it.Summary = fmt.Sprintf("%s · %d→%d tokens · %s · %d attempt(s)", model, in, out, dur, resp.Attempts)
	switch {
	case len(resp.ToolCalls) > 0:
		it.Summary += " → call " + strings.Join(it.Calls, ", ")
	case resp.FinishReason != "":
		it.Summary += " → " + resp.FinishReason
	}
	for _, a := range resp.AttemptLog {
		line := fmt.Sprintf("attempt %d: %s", a.N, a.Cause())
		if a.Kind == "" && a.Error == "" && (a.Status == 0 || a.Status/100 == 2) {
			line = fmt.Sprintf("attempt %d: answered", a.N)
		}
		if a.WaitMS != nil {
			line += fmt.Sprintf(" · waited %dms", *a.WaitMS)
		}
		if a.Error != "" {
			line += " · " + oneLine(a.Error, 100)
		}
		it.Details = append(it.Details, line)
	}
	return in, out
}

func toolSummary(it *Item, x trace.Exchange, dur string) string {
	var r trace.ToolResponse
	_ = json.Unmarshal(x.Response, &r)
	head := x.Name
	if r.Target != "" {
		head += " " + r.Target
	}
	lane := head
	if r.ExitCode != nil {
		head += fmt.Sprintf(" · exit %d", *r.ExitCode)
		if *r.ExitCode != 0 {
			it.Failed = true
			lane += fmt.Sprintf(" · exit %d", *r.ExitCode)
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
	var req struct{ Round, Attempt int }
	var resp struct {
		Violations []string `json:"violations"`
	}
	_ = json.Unmarshal(x.Request, &req)
	_ = json.Unmarshal(x.Response, &resp)
	it.Summary = fmt.Sprintf("round %d attempt %d · ", req.Round, req.Attempt)
	if len(resp.Violations) == 0 {
		it.Summary += "no violations"
		return "plan check · no violations"
	}
	it.Failed = true
	it.Summary += fmt.Sprintf("%d violation(s)", len(resp.Violations))
	for _, v := range resp.Violations {
		it.Details = append(it.Details, "violation: "+oneLine(v, 200))
	}
	return fmt.Sprintf("plan check · %d violation(s)", len(resp.Violations))
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
// first, by message type.
func messageSummary(m trace.Message) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(m.Payload, &p) != nil {
		return ""
	}
	str := func(k string) string {
		var s string
		if json.Unmarshal(p[k], &s) != nil {
			return ""
		}
		return s
	}
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch m.Type {
	case contract.TypeSubTask:
		add(str("subtask_id"))
		add(str("intent"))
	case contract.TypeExecutionResult, contract.TypeSubTaskOutcome:
		add(str("subtask_id"))
		add(str("status"))
		add(str("failure_reason"))
	case contract.TypeCorrectionSignal:
		add(str("subtask_id"))
		add(str("failure_class"))
		add(str("what_to_do"))
	case contract.TypePlanDirective, contract.TypeFinalResult:
		add(str("directive"))
		add(str("reason"))
		add(str("summary"))
	case contract.TypeReplanRequest:
		add(str("gap_summary"))
	default:
		add(str("intent"))
		add(str("summary"))
	}
	return strings.Join(parts, " · ")
}
