package roles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine"
)

// maxClarifications bounds R1's clarifying rounds; after them the task proceeds.
const maxClarifications = 2

// Perceive runs R1 on the user's text and returns the TaskSpec of the task taskID. The
// runtime, not the model, sets task_id and raw_input (verbatim). R1's model calls are
// journalled, and its TaskSpec posted to R2, at the head of the first round, so that they
// are in the trace before any plan. Clarifying questions are asked only when the model finds no
// reading possible, at most twice and all at once; an empty answer proceeds.
func (p *Pipeline) Perceive(ctx context.Context, taskID, raw string) (contract.TaskSpec, error) {
	if taskID == "" {
		return contract.TaskSpec{}, errors.New("roles: Perceive needs a task id")
	}
	if strings.TrimSpace(raw) == "" {
		return contract.TaskSpec{}, errors.New("roles: the task text is empty")
	}
	p.started = p.cfg.Clock.Now()
	p.status(llm.R1, "", "reading the task")
	m := p.model(llm.R1, &p.pending)
	user, _ := json.Marshal(map[string]string{"raw_input": raw}) // a map of strings always encodes
	req := llm.ChatRequest{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: perceiverPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}

	var per perception
	for asked := 0; ; asked++ {
		out, resps, err := llm.CompleteJSON(ctx, m, req, perception.validate)
		if err != nil {
			return contract.TaskSpec{}, fmt.Errorf("R1 Perceiver: %w", err)
		}
		per = out
		if len(per.Questions) == 0 || asked >= maxClarifications {
			break
		}
		answer, err := p.clarify(ctx, per.Questions)
		if err != nil {
			return contract.TaskSpec{}, err
		}
		if strings.TrimSpace(answer) == "" {
			break
		}
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: resps[len(resps)-1].Content},
			llm.Message{Role: llm.RoleUser, Content: "The user answered: " + answer +
				"\nAnswer again with the JSON object. Ask questions only if no reading is possible even now."})
	}
	intent := strings.Join(strings.Fields(per.Intent), " ")
	if intent == "" {
		// No reading was possible and the user added nothing: carry the words as given.
		intent = strings.Join(strings.Fields(raw), " ")
	}
	p.task = contract.TaskSpec{TaskID: taskID, Intent: intent, Constraints: per.Constraints, RawInput: raw}
	return p.task, nil
}

// clarify puts the questions to the user and journals the exchange.
func (p *Pipeline) clarify(ctx context.Context, questions []string) (string, error) {
	if p.cfg.Clarify == nil {
		p.pending.exchange(spine.Exchange{Name: "user:clarify", Request: questions, Response: "",
			Error: "not interactive: no answer; proceeding on the most faithful reading"})
		return "", nil
	}
	start := p.cfg.Clock.Now()
	answer, err := p.cfg.Clarify.Clarify(ctx, questions)
	x := spine.Exchange{Name: "user:clarify", Request: questions, Response: answer,
		DurationMS: p.cfg.Clock.Now().Sub(start).Milliseconds()}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		x.Error = err.Error()
		answer = ""
	}
	p.pending.exchange(x)
	return answer, nil
}

func zero() *float64 {
	z := 0.0
	return &z
}
