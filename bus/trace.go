package bus

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/spine"
)

// modelExchangePrefix names the exchanges that are model calls: "llm:R4b" is R4b's model.
const modelExchangePrefix = "llm:"

// FromTrace returns the bus messages recorded in a trace, in trace order, each carrying
// its trace seq: every `message` event, and every `exchange` event named "llm:<role>" as
// a TypeModelCall message from that role. Other events are not messages and are skipped.
// name is used in errors.
func FromTrace(name string, tf *spine.TraceFile) ([]Message, error) {
	var out []Message
	for _, l := range tf.Lines {
		m, ok, err := FromLine(name, l)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// messageEvent is the body of a `message` trace event (spine.Message as written).
type messageEvent struct {
	From    string          `json:"from"`
	To      string          `json:"to"`
	Type    string          `json:"type"`
	TaskID  string          `json:"task_id"`
	Payload json.RawMessage `json:"payload"`
}

// exchangeEvent is the part of an `exchange` trace event the bus needs.
type exchangeEvent struct {
	Name    string          `json:"name"`
	Request json.RawMessage `json:"request"`
}

// FromLine converts one trace line. ok is false for lines that are not bus messages.
// A `message` event without from, to or type, or an event that is not a JSON object of
// its kind, is a *spine.TraceError naming the line.
func FromLine(name string, l spine.TraceLine) (m Message, ok bool, err error) {
	switch l.Kind {
	case spine.EvMessage:
		var ev messageEvent
		if err := l.Decode(&ev); err != nil {
			return m, false, &spine.TraceError{File: name, Line: l.Line, Msg: "message event: " + err.Error()}
		}
		m = Message{Seq: l.Seq, From: ev.From, To: ev.To, Type: ev.Type, TaskID: ev.TaskID, Payload: ev.Payload}
		if missing := m.routable(); missing != "" {
			return m, false, &spine.TraceError{File: name, Line: l.Line,
				Msg: fmt.Sprintf("message event (seq %d) has no %s; want from, to and type", l.Seq, missing)}
		}
		if len(m.Payload) == 0 {
			m.Payload = json.RawMessage("null")
		}
		return m, true, nil
	case spine.EvExchange:
		var ev exchangeEvent
		if err := l.Decode(&ev); err != nil {
			return m, false, &spine.TraceError{File: name, Line: l.Line, Msg: "exchange event: " + err.Error()}
		}
		role, isModel := strings.CutPrefix(ev.Name, modelExchangePrefix)
		if !isModel {
			return m, false, nil
		}
		if role == "" {
			return m, false, &spine.TraceError{File: name, Line: l.Line,
				Msg: fmt.Sprintf("exchange event (seq %d) is named %q; want llm:<role>", l.Seq, ev.Name)}
		}
		return Message{Seq: l.Seq, From: role, To: ToModel, Type: TypeModelCall,
			TaskID: requestTaskID(ev.Request), Payload: modelCallPayload(ev.Name, ev.Request)}, true, nil
	}
	return m, false, nil
}

// requestTaskID is the request's task_id when the request is an object that has one.
func requestTaskID(req json.RawMessage) string {
	var r struct {
		TaskID string `json:"task_id"`
	}
	if len(req) == 0 || req[0] != '{' || json.Unmarshal(req, &r) != nil {
		return ""
	}
	return r.TaskID
}

// modelCallPayload is {"name": ..., "request": ...}: what was called and with what.
func modelCallPayload(name string, req json.RawMessage) json.RawMessage {
	if len(req) == 0 {
		req = json.RawMessage("null")
	}
	quoted, _ := json.Marshal(name) // a string always encodes
	b := make([]byte, 0, len(quoted)+len(req)+24)
	b = append(b, `{"name":`...)
	b = append(b, quoted...)
	b = append(b, `,"request":`...)
	b = append(b, req...)
	b = append(b, '}')
	return b
}
