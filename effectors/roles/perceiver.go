package roles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// maxClarifications bounds R1's clarifying rounds; after them the task proceeds.
const maxClarifications = 2

// Begin names the pipeline's task: the runtime's task id and the user's words, verbatim.
// Run then starts the engine at once, and R1 reads the words at the head of the first
// round, so that the trace holds everything from R1's first request on, and a task whose
// R1 cannot answer still ends in a FinalResult decided by the rules.
func (p *Pipeline) Begin(taskID, raw string) error {
	if taskID == "" {
		return errors.New("roles: the task needs an id")
	}
	if strings.TrimSpace(raw) == "" {
		return errors.New("roles: the task text is empty")
	}
	p.started = p.cfg.Clock.Now()
	p.task = contract.TaskSpec{TaskID: taskID, RawInput: raw}
	return nil
}

// perceive runs R1 on the task's words. The runtime, not the model, sets task_id and
// raw_input. Clarifying questions are asked only when the model finds no reading
// possible, at most twice and all at once; an empty answer proceeds.
func (p *Pipeline) perceive(ctx context.Context, rec recorder) (contract.TaskSpec, error) {
	taskID, raw := p.task.TaskID, p.task.RawInput
	p.status(llm.R1, "", "reading the task")
	m := p.model(llm.R1, rec)
	user, _ := json.Marshal(map[string]string{"raw_input": raw}) // a map of strings always encodes
	req := contract.ModelRequest{Messages: []contract.ModelMessage{
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
		answer, err := p.clarify(ctx, rec, per.Questions)
		if err != nil {
			return contract.TaskSpec{}, err
		}
		if strings.TrimSpace(answer) == "" {
			break
		}
		req.Messages = append(req.Messages,
			llm.AssistantTurn(resps[len(resps)-1].Content, nil),
			contract.ModelMessage{Role: llm.RoleUser, Content: "The user answered: " + answer +
				"\nAnswer again with the JSON object. Ask questions only if no reading is possible even now."})
	}
	intent := strings.Join(strings.Fields(per.Intent), " ")
	if intent == "" {
		// No reading was possible and the user added nothing: carry the words as given.
		intent = strings.Join(strings.Fields(raw), " ")
	}
	p.task = contract.TaskSpec{TaskID: taskID, Intent: intent, Constraints: per.Constraints, RawInput: raw}
	p.perceived = true
	return p.task, nil
}

// clarify puts the questions to the user and journals the exchange.
func (p *Pipeline) clarify(ctx context.Context, rec recorder, questions []string) (string, error) {
	var answer string
	if ok, _, err := served(ctx, rec, trace.ExchangeUser+"clarify", questions, &answer); err != nil || ok {
		return answer, err
	}
	if p.cfg.Clarify == nil {
		rec.exchange(engine.Exchange{Name: trace.ExchangeUser + "clarify", Request: questions, Response: "",
			Error: "not interactive: no answer; proceeding on the most faithful reading"})
		return "", nil
	}
	start := p.cfg.Clock.Now()
	answer, err := p.cfg.Clarify.Clarify(ctx, questions)
	x := engine.Exchange{Name: trace.ExchangeUser + "clarify", Request: questions, Response: answer,
		DurationMS: p.cfg.Clock.Now().Sub(start).Milliseconds()}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		x.Error = err.Error()
		answer = ""
	}
	rec.exchange(x)
	return answer, nil
}

func zero() *float64 {
	z := 0.0
	return &z
}
