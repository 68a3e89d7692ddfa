package bus

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/spine/trace"
)

// FromTrace returns the bus messages recorded in a trace, in trace order, each carrying
// its trace seq: every `message` event, and every `exchange` event named "llm:<role>" as
// a TypeModelCall message from that role. Other events are not messages and are skipped.
// name is used in errors.
func FromTrace(name string, f *trace.File) ([]trace.Message, error) {
	var out []trace.Message
	for i := range f.Events {
		m, ok, err := FromEvent(name, &f.Events[i])
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// FromEvent converts one trace event. ok is false for events that are not bus
// messages. A `message` event without from, to or type, or a model exchange without a
// role, is a *trace.Error naming the line.
func FromEvent(name string, e *trace.Event) (m trace.Message, ok bool, err error) {
	switch b := e.Body.(type) {
	case trace.Message:
		m = b
		m.Seq = e.Seq
		if missing := routable(&m); missing != "" {
			return m, false, &trace.Error{File: name, Line: e.Line,
				Msg: fmt.Sprintf("message event (seq %d) has no %s; want from, to and type", e.Seq, missing)}
		}
		if len(m.Payload) == 0 {
			m.Payload = json.RawMessage("null")
		}
		return m, true, nil
	case trace.Exchange:
		role, isModel := strings.CutPrefix(b.Name, trace.ExchangeModel)
		if !isModel {
			return m, false, nil
		}
		if role == "" {
			return m, false, &trace.Error{File: name, Line: e.Line,
				Msg: fmt.Sprintf("exchange event (seq %d) is named %q; want llm:<role>", e.Seq, b.Name)}
		}
		return trace.Message{Seq: e.Seq, From: role, To: ToModel, Type: TypeModelCall,
			TaskID: requestTaskID(b.Request), Payload: modelCallPayload(b.Name, b.Request)}, true, nil
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
