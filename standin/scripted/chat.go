package scripted

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/internal/linecap"
)

// Chat is a test double for the control plane, not a model: it replays a fixed script
// of replies keyed by role and turn. A request gets the role's turn that fits it (its
// Expect in the request's last message, the conversation's earlier replies the turns
// before it), the n-th request the n-th turn where several fit equally: a Chat new to a
// resumed run, whose earlier replies the trace served, answers as the first one would.
// The role is read from the model name the request asks for (ModelName). Nothing is generated, so nothing a role's prompt asks
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
	played map[llm.RoleName]int          // the turn after the last one answered
	used   map[llm.RoleName]map[int]bool // the turns answered: each answers one request
}

// Script is every role's replies, in the order of the role's requests.
type Script map[llm.RoleName][]Turn

// Turn is one scripted reply: text, or tool calls, or both, and what the request's last
// message must contain for the reply to fit.
type Turn struct {
	Expect    []string
	Content   string
	ToolCalls []contract.ModelToolCall
}

// modelPrefix marks the model names a Chat answers to.
const modelPrefix = "scripted-"

// ModelName is the model name role asks for when its replies come from a Chat; it says
// so in the trace, where every request records it.
func ModelName(role llm.RoleName) string { return modelPrefix + string(role) }

// NewChat returns a Chat that plays script from its first turn.
func NewChat(script Script) *Chat {
	return &Chat{script: script, played: map[llm.RoleName]int{}, used: map[llm.RoleName]map[int]bool{}}
}

// LLMConfig is a model configuration that names a Chat's models for every role (and no
// endpoint, no key): what the roles and the trace header read.
func LLMConfig() llm.Config {
	return standInConfig("none: scripted replies (no model is called)", ModelName)
}

// standInConfig is the default model configuration with every role's model named by
// model and, for an endpoint, a note that says a stand-in answers.
func standInConfig(note string, model func(llm.RoleName) string) llm.Config {
	cfg := llm.DefaultConfig()
	cfg.BaseURL = note
	for _, r := range llm.Roles {
		cfg.Roles[r] = llm.RoleModel{Model: model(r)}
	}
	return cfg
}

var _ llm.ChatModel = (*Chat)(nil)

// Complete answers req with its role's next scripted turn.
func (c *Chat) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return contract.ModelResponse{}, err
	}
	role, ok := roleOf(req.Model)
	if !ok {
		return contract.ModelResponse{}, fmt.Errorf("scripted chat: model %q is not one of the script's (%s<role>)", req.Model, modelPrefix)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.played[role]
	turns := c.script[role]
	last := ""
	if k := len(req.Messages); k > 0 {
		last = req.Messages[k-1].Content
	}
	if c.used[role] == nil {
		c.used[role] = map[int]bool{}
	}
	if k := fitting(turns, c.used[role], req, last, n); k >= 0 {
		n = k
	} else if n >= len(turns) {
		return contract.ModelResponse{}, fmt.Errorf("scripted chat: %s's script has %d turn(s) and this is request %d", role, len(turns), n+1)
	} else {
		for _, want := range turns[n].Expect {
			if !strings.Contains(last, want) {
				return contract.ModelResponse{}, fmt.Errorf("scripted chat: %s turn %d expects its request's last message to contain %q; it reads %q",
					role, n+1, want, linecap.Clip(last, 300))
			}
		}
		return contract.ModelResponse{}, fmt.Errorf("scripted chat: %s turn %d does not follow the replies the request holds", role, n+1)
	}
	t := turns[n]
	c.played[role] = n + 1
	c.used[role][n] = true
	finish := "stop"
	if len(t.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	return contract.ModelResponse{Model: req.Model, Content: t.Content, ToolCalls: slices.Clone(t.ToolCalls),
		FinishReason: finish, Attempts: 1}, nil
}

// fitting is the turn that answers req, read from the request rather than from how many
// requests came before it, so that a Chat new to a run resumed mid-way (its earlier
// replies served from the trace) answers as the first one would have: a turn fits when
// the request's last message holds its Expect and the request's assistant messages are
// the turns before it in the script (the replies of its conversation so far). Of the
// turns that fit, the one whose Expect says the most wins; of those, the first not yet
// played (next), else the first. A turn answers one request only. -1: none fits.
func fitting(turns []Turn, used map[int]bool, req contract.ModelRequest, last string, next int) int {
	var replies []contract.ModelMessage
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			replies = append(replies, m)
		}
	}
	best, bestSays := -1, -1
	for i, t := range turns {
		says, fits := 0, i >= len(replies) && !used[i]
		for _, want := range t.Expect {
			fits = fits && strings.Contains(last, want)
			says += len(want)
		}
		for j := 0; fits && j < len(replies); j++ {
			fits = sameReply(turns[i-len(replies)+j], replies[j])
		}
		if fits && (says > bestSays || says == bestSays && best < next && i >= next) {
			best, bestSays = i, says
		}
	}
	return best
}

// sameReply says whether m is turn t's reply as a role keeps it in its conversation.
func sameReply(t Turn, m contract.ModelMessage) bool {
	if t.Content != m.Content || len(t.ToolCalls) != len(m.ToolCalls) {
		return false
	}
	for i, c := range t.ToolCalls {
		if c.Name != m.ToolCalls[i].Name || c.Arguments != m.ToolCalls[i].Arguments {
			return false
		}
	}
	return true
}

// Unplayed lists, by role in pipeline order, the turns the run did not ask for: a run
// that ended early, or took another path than the script's.
func (c *Chat) Unplayed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range llm.Roles {
		if left := len(c.script[r]) - len(c.used[r]); left > 0 {
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
