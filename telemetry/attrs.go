package telemetry

import (
	"net/url"
	"sort"
	"strconv"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// GenAI semantic-convention keys. The Go semconv packages stopped carrying the gen_ai
// group after v1.41.0 (it moved to the GenAI conventions of its own), so the names are
// spelled here, as the conventions give them.
const (
	keyOperation      = "gen_ai.operation.name"
	keyProvider       = "gen_ai.provider.name"
	keyRequestModel   = "gen_ai.request.model"
	keyResponseModel  = "gen_ai.response.model"
	keyInputTokens    = "gen_ai.usage.input_tokens"
	keyOutputTokens   = "gen_ai.usage.output_tokens"
	keyFinishReasons  = "gen_ai.response.finish_reasons"
	keyTemperature    = "gen_ai.request.temperature"
	keyMaxTokens      = "gen_ai.request.max_tokens"
	keyAgentName      = "gen_ai.agent.name"
	keyConversationID = "gen_ai.conversation.id"
	keyToolName       = "gen_ai.tool.name"
	keyToolCallID     = "gen_ai.tool.call.id"
	keyToolType       = "gen_ai.tool.type"
	keyErrorType      = "error.type"
	keyServerAddress  = "server.address"
	keyServerPort     = "server.port"
)

// maxText bounds the text of an error or a finding copied into an attribute.
const maxText = 500

func runAttrs(h trace.Header) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String("spine.run.id", h.Run),
		attribute.String(keyConversationID, h.Run),
		attribute.String("spine.trace.format", h.Format),
		attribute.String("spine.rules.name", h.Rules.Name),
		attribute.String("spine.rules.hash", h.Rules.Hash),
	}
	if id := h.Meta["task_id"]; id != "" {
		attrs = append(attrs, attribute.String("spine.task_id", id))
	}
	return attrs
}

// modelSpan fills a model call's span: the GenAI conventions' inference span, named
// "chat <model>", from the recorded request and response.
func modelSpan(c *span, m runlog.ModelExchange, callErr string, opts Options, meta map[string]string) {
	req, resp, usage := m.Request, m.Response, m.Usage
	c.kind = oteltrace.SpanKindClient
	c.name = "chat"
	if req.Model != "" {
		c.name += " " + req.Model
	}
	c.attrs = []attribute.KeyValue{
		attribute.String(keyOperation, "chat"),
		attribute.String(keyProvider, opts.provider()),
		attribute.String(keyRequestModel, req.Model),
		attribute.Int(keyInputTokens, usage.PromptTokens),
		attribute.Int(keyOutputTokens, usage.CompletionTokens),
	}
	if resp.Model != "" {
		c.attrs = append(c.attrs, attribute.String(keyResponseModel, resp.Model))
	}
	if resp.FinishReason != "" {
		c.attrs = append(c.attrs, attribute.StringSlice(keyFinishReasons, []string{resp.FinishReason}))
	}
	if req.Temperature != nil {
		c.attrs = append(c.attrs, attribute.Float64(keyTemperature, *req.Temperature))
	}
	if req.MaxTokens > 0 {
		c.attrs = append(c.attrs, attribute.Int(keyMaxTokens, req.MaxTokens))
	}
	c.attrs = append(c.attrs, serverAttrs(meta["base_url"])...)
	if resp.Attempts > 0 {
		c.attrs = append(c.attrs, attribute.Int("spine.llm.attempts", resp.Attempts))
	}
	// Why each failed attempt was retried; the trace has no time for an attempt, so
	// these are attributes rather than events.
	var causes []string
	for _, a := range resp.AttemptLog {
		if a.Answered() {
			continue
		}
		causes = append(causes, a.Cause())
	}
	if len(causes) > 0 {
		c.attrs = append(c.attrs, attribute.StringSlice("spine.llm.retry_causes", causes))
	}
	if len(resp.ToolCalls) > 0 {
		names := make([]string, len(resp.ToolCalls))
		for i, tc := range resp.ToolCalls {
			names[i] = tc.Name
		}
		c.attrs = append(c.attrs, attribute.StringSlice("spine.llm.tool_calls", names))
	}
	if opts.Content {
		c.attrs = append(c.attrs, contentAttrs(req, resp, m.Answered)...)
	}
	if callErr != "" {
		kind := "error"
		if n := len(resp.AttemptLog); n > 0 && resp.AttemptLog[n-1].Kind != "" {
			kind = resp.AttemptLog[n-1].Kind
		}
		c.attrs = append(c.attrs, attribute.String(keyErrorType, kind))
	}
}

// serverAttrs are server.address and server.port of the recorded endpoint, if any:
// host and port only, so nothing else a URL may carry (user info, a query) reaches a
// span.
func serverAttrs(base string) []attribute.KeyValue {
	u, err := url.Parse(base)
	if base == "" || err != nil || u.Hostname() == "" {
		return nil
	}
	attrs := []attribute.KeyValue{attribute.String(keyServerAddress, u.Hostname())}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int(keyServerPort, p))
	}
	return attrs
}

// toolSpan fills a tool call's span: the GenAI conventions' execute_tool span.
func toolSpan(c *span, t runlog.ToolExchange, opts Options) {
	tool, req, res := t.Tool, t.Request, t.Response
	c.name = "execute_tool " + tool
	c.kind = oteltrace.SpanKindInternal
	c.attrs = []attribute.KeyValue{
		attribute.String(keyOperation, "execute_tool"),
		attribute.String(keyToolName, tool),
		attribute.String(keyToolType, "function"),
	}
	if req.ID != "" {
		c.attrs = append(c.attrs, attribute.String(keyToolCallID, req.ID))
	}
	if opts.Content {
		c.attrs = append(c.attrs, toolContentAttrs(req.Arguments, res, t.Answered)...)
	}
	if !t.Answered {
		return
	}
	c.attrs = append(c.attrs,
		attribute.String("spine.tool.target", res.Target),
		attribute.Int("spine.tool.exit_code", res.ExitCode),
		attribute.String("spine.tool.evidence", excerpt(res.Evidence, maxText)))
	for _, f := range []struct {
		on   bool
		name string
	}{{res.TimedOut, "spine.tool.timed_out"}, {res.Truncated, "spine.tool.truncated"}, {res.Refused, "spine.tool.refused"}} {
		if f.on {
			c.attrs = append(c.attrs, attribute.Bool(f.name, true))
		}
	}
	if res.ExitCode != 0 || res.Refused || res.TimedOut {
		c.status, c.statusMsg = codes.Error, "exit code "+strconv.Itoa(res.ExitCode)
		c.attrs = append(c.attrs, attribute.String(keyErrorType, "tool_failed"))
	}
}

// signalAttrs turns a signals fact's payload into spine.signal.<name> attributes, in
// name order; only numbers and booleans, the loss and its inputs.
func signalAttrs(p map[string]any) []attribute.KeyValue {
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
	var attrs []attribute.KeyValue
	for _, k := range names {
		switch v := p[k].(type) {
		case float64:
			attrs = append(attrs, attribute.Float64("spine.signal."+k, v))
		case bool:
			attrs = append(attrs, attribute.Bool("spine.signal."+k, v))
		}
	}
	return attrs
}

// excerpt bounds s to max bytes, cut at a rune boundary, marked when cut.
func excerpt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
