package roles

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine/engine"
)

// Model is what one role calls: a chat client and the model name it asks for.
type Model struct {
	Chat llm.ChatModel
	Name string
}

// Models gives each model-calling role its model. Every role of llm.Roles must be set.
type Models map[llm.RoleName]Model

// ModelsFromConfig gives every role the same client, asking for the model the
// configuration resolves for that role.
func ModelsFromConfig(chat llm.ChatModel, cfg llm.Config) (Models, error) {
	out := Models{}
	for _, r := range llm.Roles {
		res, err := cfg.For(r)
		if err != nil {
			return nil, err
		}
		out[r] = Model{Chat: chat, Name: res.Model}
	}
	return out, nil
}

func (ms Models) check() error {
	for _, r := range llm.Roles {
		if m, ok := ms[r]; !ok || m.Chat == nil {
			return fmt.Errorf("roles: no chat model for %s", r)
		}
	}
	return nil
}

// usageMeter sums the token usage of every model call of a pipeline.
type usageMeter struct {
	mu    sync.Mutex
	total contract.ModelUsage
	calls int
}

func (u *usageMeter) add(v contract.ModelUsage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.total = u.total.Add(v)
	u.calls++
}

func (u *usageMeter) get() (contract.ModelUsage, int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.total, u.calls
}

// journalledModel is a role's model as the role sees it: every call is journalled as an
// "llm:<role>" exchange with its request, response (with the attempt log of a call that
// was retried or failed), usage, duration and error, and its usage is metered. A retry
// hook on the context hears the role's name. Corrective retries made through it are journalled like any call.
type journalledModel struct {
	role  llm.RoleName
	m     Model
	rec   recorder
	clock clock.Clock
	meter *usageMeter
}

var _ llm.ChatModel = journalledModel{}

func (jm journalledModel) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	if req.Model == "" {
		req.Model = jm.m.Name
	}
	name := trace.ExchangeModel + string(jm.role)
	var resp contract.ModelResponse
	if ok, callErr, err := served(ctx, jm.rec, name, req, &resp); err != nil || ok {
		if ok {
			jm.meter.add(resp.Usage)
		}
		return resp, errors.Join(callErr, err)
	}
	start := jm.clock.Now()
	resp, err := jm.m.Chat.Complete(withRetryRole(ctx, jm.role), req)
	// An answer over the size limit is journalled, and read, as its size only.
	resp, err = llm.LimitResponse(resp, err, 0)
	usage := resp.Usage
	x := engine.Exchange{
		Name:       name,
		Request:    req,
		Response:   resp,
		DurationMS: jm.clock.Now().Sub(start).Milliseconds(),
		Usage:      &usage,
	}
	if err != nil {
		x.Error = err.Error()
	}
	jm.rec.exchange(x)
	jm.meter.add(resp.Usage)
	return resp, err
}
