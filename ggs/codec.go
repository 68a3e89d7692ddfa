package ggs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/strictjson"
)

// Message is R4b's report to GGS, one input of the Solver: exactly one of Replan and
// Outcome is set. It is the filter's decoded line and the Loop's round report, and it is
// what a round's construct holds in the trace ({"replan": {...}} or {"outcome": {...}}).
type Message struct {
	Replan  *contract.ReplanRequest  `json:"replan,omitempty"`
	Outcome *contract.OutcomeSummary `json:"outcome,omitempty"`
}

func (m Message) validate() error {
	if (m.Replan == nil) == (m.Outcome == nil) {
		return errors.New("a round report must hold exactly one of a ReplanRequest and an OutcomeSummary")
	}
	return nil
}

// TaskID is the task the message belongs to.
func (m Message) TaskID() string {
	if m.Replan != nil {
		return m.Replan.TaskID
	}
	if m.Outcome != nil {
		return m.Outcome.TaskID
	}
	return ""
}

// Handle runs one round for m.
func (s *Solver) Handle(ctx context.Context, m Message) (Output, error) {
	switch {
	case m.Replan != nil:
		return s.HandleReplan(ctx, m.Replan)
	case m.Outcome != nil:
		return s.HandleOutcome(ctx, m.Outcome)
	}
	return Output{}, errors.New("ggs: empty message")
}

// handleChecked is Handle for a message that DecodeMessage gave, which has passed
// ValidateReplan or ValidateOutcome already (Message.check): the round is not checked
// again.
func (s *Solver) handleChecked(ctx context.Context, m Message) (Output, error) {
	switch {
	case m.Replan != nil:
		return s.run(ctx, replanMessage(m.Replan))
	case m.Outcome != nil:
		return s.run(ctx, outcomeMessage(m.Outcome))
	}
	return s.Handle(ctx, m)
}

// envelope is the strict form of contract.Envelope used for decoding.
type envelope struct {
	Type    *string         `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// errNotReport is decodeReport's answer to a bus type that is not a report's.
var errNotReport = errors.New("not a ReplanRequest or an OutcomeSummary")

// decodeReport is the one decoder of a report: it decodes the payload of a bus message of
// type typ into a Message, strictly (an unknown field is an error). keepNumbers keeps
// each number of an output as its text (json.Number), so that what the Loop records
// encodes again to the same bytes. The error is encoding/json's own, or errNotReport;
// each caller words it for its reader. DecodeMessage's single pass over a whole line
// (messageDecoder) gives the same Message or falls back to this.
func decodeReport(typ string, payload []byte, keepNumbers bool) (Message, error) {
	m, target := newReport(typ)
	if target == nil {
		return Message{}, errNotReport
	}
	decode := strictjson.Decode
	if keepNumbers {
		decode = strictjson.DecodeNumbers
	}
	if err := decode(payload, target); err != nil {
		return Message{}, err
	}
	return m, nil
}

// newReport returns a Message for bus type typ and the struct its payload decodes into,
// or a nil target when typ is not a report's.
func newReport(typ string) (Message, any) {
	switch typ {
	case contract.TypeReplanRequest:
		r := new(contract.ReplanRequest)
		return Message{Replan: r}, r
	case contract.TypeOutcomeSummary:
		o := new(contract.OutcomeSummary)
		return Message{Outcome: o}, o
	}
	return Message{}, nil
}

// DecodeMessage reads one bus message, {"type": "ReplanRequest" | "OutcomeSummary",
// "payload": {...}}, strictly: unknown fields, a payload of the wrong shape or a missing
// task_id are errors, and so is anything ValidateReplan or ValidateOutcome rejects. The
// error text says what was wrong and what was expected.
func DecodeMessage(line []byte) (Message, error) {
	d := decoders.Get().(*messageDecoder)
	defer decoders.Put(d)
	return d.decode(line)
}

var decoders = sync.Pool{New: func() any { return new(messageDecoder) }}

// decodeEnvelope is DecodeMessage in two passes with encoding/json: the envelope, then
// the payload. Its errors are the ones DecodeMessage gives.
func decodeEnvelope(line []byte) (Message, error) {
	var env envelope
	if err := decodeStrict(line, &env); err != nil {
		return Message{}, describeDecodeError(err, "the message", `{"type": ..., "payload": {...}}`,
			`: want only "type" and "payload"`)
	}
	if env.Type == nil {
		return Message{}, errors.New(`missing type: want "ReplanRequest" or "OutcomeSummary"`)
	}
	typ := *env.Type
	if _, target := newReport(typ); target == nil {
		return Message{}, fmt.Errorf(`unknown type %q: want "ReplanRequest" or "OutcomeSummary"`, typ)
	}
	if len(env.Payload) == 0 || bytes.Equal(env.Payload, []byte("null")) {
		article := "a"
		if typ == contract.TypeOutcomeSummary {
			article = "an"
		}
		return Message{}, fmt.Errorf("missing payload: want %s %s object", article, typ)
	}
	m, err := decodeReport(typ, env.Payload, false)
	if err != nil {
		return Message{}, fmt.Errorf("%s payload: %w", typ, describeDecodeError(err, "the payload", "a JSON object", ""))
	}
	if err := m.check(); err != nil {
		return Message{}, fmt.Errorf("%s payload: %w", typ, err)
	}
	return m, nil
}

// check runs ValidateReplan or ValidateOutcome.
func (m Message) check() error {
	if m.Replan != nil {
		return ValidateReplan(m.Replan)
	}
	return ValidateOutcome(m.Outcome)
}

var errTrailing = strictjson.ErrTrailing

// decodeStrict is the project's one strict decoder (internal/strictjson).
func decodeStrict(data []byte, v any) error { return strictjson.Decode(data, v) }
