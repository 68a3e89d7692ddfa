package distill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/memory"
)

// MaxContent bounds the length of a distilled entry, in characters: a C entry is read by
// the planner on every calibration, so it must stay short.
const MaxContent = 600

// Model distils with a chat model.
type Model struct {
	Chat llm.ChatModel
	Name string // model name sent with each request; "" for the client's default
}

var _ memory.Distiller = Model{}

type answer struct {
	Content string `json:"content"`
}

// Distil asks the model for the entry's text, with one corrective turn when the answer
// breaks its contract.
func (m Model) Distil(ctx context.Context, req memory.DistilRequest) (memory.DistilResponse, error) {
	if m.Chat == nil {
		return memory.DistilResponse{}, errors.New("distill: no model")
	}
	evidence, err := json.Marshal(req.Evidence)
	if err != nil {
		return memory.DistilResponse{}, err
	}
	what := "a best practice: an approach that worked, to prefer"
	if req.Kind == memory.KindConstraint {
		what = "a constraint: an approach that failed, to avoid"
	}
	zero := 0.0
	chat := contract.ModelRequest{Model: m.Name, Temperature: &zero, Messages: []contract.ModelMessage{
		{Role: "system", Content: "You condense an agent's recorded experience into one standing instruction for its planner. " +
			"Answer with a JSON object {\"content\": \"...\"} and nothing else. The content is one or two plain sentences, " +
			fmt.Sprintf("at most %d characters, that name the tool or approach and the target, and say what to do or not do.", MaxContent)},
		{Role: "user", Content: fmt.Sprintf("Write %s.\nTag pair: space %q, entity %q.\nLive attention %.3f, decision %.3f.\n"+
			"Evidence, heaviest first (state, strength f, valence sigma, live weight, what was recorded):\n%s",
			what, req.Space, req.Entity, req.Attention, req.Decision, evidence)},
	}}
	a, _, err := llm.CompleteJSON(ctx, m.Chat, chat, func(a answer) error {
		switch c := strings.TrimSpace(a.Content); {
		case c == "":
			return errors.New(`"content" is empty`)
		case utf8.RuneCountInString(c) > MaxContent:
			return fmt.Errorf(`"content" has %d characters; at most %d`, utf8.RuneCountInString(c), MaxContent)
		}
		return nil
	})
	if err != nil {
		return memory.DistilResponse{}, fmt.Errorf("distill (%s, %s): %w", req.Space, req.Entity, err)
	}
	return memory.DistilResponse{Content: strings.TrimSpace(a.Content)}, nil
}
