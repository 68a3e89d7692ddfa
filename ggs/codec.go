package ggs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/agentspine/spine/contract"
)

// Message is one decoded input of GGS: exactly one of Replan and Outcome is set.
type Message struct {
	Replan  *contract.ReplanRequest
	Outcome *contract.OutcomeSummary
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

// envelope is the strict form of contract.Envelope used for decoding.
type envelope struct {
	Type    *string         `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// DecodeMessage reads one bus message, {"type": "ReplanRequest" | "OutcomeSummary",
// "payload": {...}}, strictly: unknown fields, a payload of the wrong shape or a missing
// task_id are errors, and so is anything ValidateReplan or ValidateOutcome rejects. The
// error text says what was wrong and what was expected.
func DecodeMessage(line []byte) (Message, error) {
	var env envelope
	if err := decodeStrict(line, &env); err != nil {
		return Message{}, describeDecodeError(err, "the message", `{"type": ..., "payload": {...}}`,
			`: want only "type" and "payload"`)
	}
	if env.Type == nil {
		return Message{}, errors.New(`missing type: want "ReplanRequest" or "OutcomeSummary"`)
	}
	typ := *env.Type
	switch typ {
	case contract.TypeReplanRequest, contract.TypeOutcomeSummary:
	default:
		return Message{}, fmt.Errorf(`unknown type %q: want "ReplanRequest" or "OutcomeSummary"`, typ)
	}
	if len(env.Payload) == 0 || bytes.Equal(env.Payload, []byte("null")) {
		article := "a"
		if typ == contract.TypeOutcomeSummary {
			article = "an"
		}
		return Message{}, fmt.Errorf("missing payload: want %s %s object", article, typ)
	}
	var m Message
	var target any
	if typ == contract.TypeReplanRequest {
		m.Replan = new(contract.ReplanRequest)
		target = m.Replan
	} else {
		m.Outcome = new(contract.OutcomeSummary)
		target = m.Outcome
	}
	if err := decodeStrict(env.Payload, target); err != nil {
		return Message{}, fmt.Errorf("%s payload: %w", typ, describeDecodeError(err, "the payload", "a JSON object", ""))
	}
	var err error
	if m.Replan != nil {
		err = ValidateReplan(m.Replan)
	} else {
		err = ValidateOutcome(m.Outcome)
	}
	if err != nil {
		return Message{}, fmt.Errorf("%s payload: %w", typ, err)
	}
	return m, nil
}

var errTrailing = errors.New("trailing data")

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// describeDecodeError restates an encoding/json error in the terms of the message: where
// names the value decoded, want what it should have been, and fieldHint is added to an
// unknown-field error.
func describeDecodeError(err error, where, want, fieldHint string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errTrailing):
		return fmt.Errorf("invalid JSON: more data after the end of %s", where)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: unexpected end of input")
	case errors.As(err, &syn):
		msg := strings.TrimPrefix(syn.Error(), "json: ")
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, msg)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Errorf("want %s, got %s", want, typ.Value)
		}
		return fmt.Errorf("field %s: want %s, got %s", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field ") {
		return errors.New(msg + fieldHint)
	}
	return errors.New(msg)
}

// jsonKind names a Go type the way a JSON author thinks of it.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem()) + " or null"
	}
	return t.String()
}

// AppendOutput appends o as one JSONL bus message, {"type": ..., "payload": {...}}, to
// buf. HTML characters are not escaped, so targets and rationales read as written.
func AppendOutput(buf []byte, o Output) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Type    string `json:"type"`
		Payload any    `json:"payload"`
	}{o.Type(), o.Payload()})
	if err != nil {
		return buf, fmt.Errorf("ggs: encode %s: %w", o.Type(), err)
	}
	return append(buf, b.Bytes()...), nil
}
