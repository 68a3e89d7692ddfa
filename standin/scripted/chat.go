package scripted

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentspine/spine/effectors/llm"
)

// Chat is a test double for the control plane, not a model: it replays a fixed script
// of replies keyed by role and turn. The n-th request a role sends gets the role's n-th
// scripted reply, whatever the request says; the role is read from the model name the
// request asks for (ModelName). Nothing is generated, so nothing a role's prompt asks
// for is exercised: a run against Chat shows what the control plane, the tools, memory
// and the Auditor do with given replies, never what a model would do.
//
// A turn may name text its request must hold (Turn.Expect). A request without it gets an
// error instead of the reply, so a script never answers a conversation it was not
// written for: the tools' real output drifting from what the script assumed is reported,
// not papered over. Replies never depend on timing. Requests of one role must arrive in
// a fixed order; a plan that runs two subtasks of one sequence in parallel breaks that.
type Chat struct {
	mu     sync.Mutex
	script Script
	played map[llm.RoleName]int
}

// Script is every role's replies, in the order of the role's requests.
type Script map[llm.RoleName][]Turn

// Turn is one scripted reply: text, or tool calls, or both, and what the request's last
// message must contain for the reply to fit.
type Turn struct {
	Expect    []string
	Content   string
	ToolCalls []llm.ToolCall
}

// modelPrefix marks the model names a Chat answers to.
const modelPrefix = "scripted-"

// ModelName is the model name role asks for when its replies come from a Chat; it says
// so in the trace, where every request records it.
func ModelName(role llm.RoleName) string { return modelPrefix + string(role) }

// NewChat returns a Chat that plays script from its first turn.
func NewChat(script Script) *Chat {
	return &Chat{script: script, played: map[llm.RoleName]int{}}
}

// LLMConfig is a model configuration that names a Chat's models for every role (and no
// endpoint, no key): what the roles and the trace header read.
func LLMConfig() llm.Config {
	cfg := llm.DefaultConfig()
	cfg.BaseURL = "none: scripted replies (no model is called)"
	for _, r := range llm.Roles {
		cfg.Roles[r] = llm.RoleModel{Model: ModelName(r)}
	}
	return cfg
}

var _ llm.ChatModel = (*Chat)(nil)

// Complete answers req with its role's next scripted turn.
func (c *Chat) Complete(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	if err := ctx.Err(); err != nil {
		return llm.ChatResponse{}, err
	}
	role, ok := roleOf(req.Model)
	if !ok {
		return llm.ChatResponse{}, fmt.Errorf("scripted chat: model %q is not one of the script's (%s<role>)", req.Model, modelPrefix)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.played[role]
	turns := c.script[role]
	if n >= len(turns) {
		return llm.ChatResponse{}, fmt.Errorf("scripted chat: %s's script has %d turn(s) and this is request %d", role, len(turns), n+1)
	}
	t := turns[n]
	last := ""
	if k := len(req.Messages); k > 0 {
		last = req.Messages[k-1].Content
	}
	for _, want := range t.Expect {
		if !strings.Contains(last, want) {
			return llm.ChatResponse{}, fmt.Errorf("scripted chat: %s turn %d expects its request's last message to contain %q; it reads %q",
				role, n+1, want, clip(last, 300))
		}
	}
	c.played[role] = n + 1
	finish := "stop"
	if len(t.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	return llm.ChatResponse{Model: req.Model, Content: t.Content, ToolCalls: slices.Clone(t.ToolCalls),
		FinishReason: finish, Attempts: 1}, nil
}

// Unplayed lists, by role in pipeline order, the turns the run did not ask for: a run
// that ended early, or took another path than the script's.
func (c *Chat) Unplayed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range llm.Roles {
		if left := len(c.script[r]) - c.played[r]; left > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d turn(s) not played", r, left, len(c.script[r])))
		}
	}
	return out
}

func roleOf(model string) (llm.RoleName, bool) {
	name, ok := strings.CutPrefix(model, modelPrefix)
	if !ok {
		return "", false
	}
	return llm.ParseRoleName(name)
}

// clip shortens s to n bytes for a message, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
