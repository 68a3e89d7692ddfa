package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Event is one line of a trace: the envelope (seq, t, kind and, in a file, h) and the
// kind's body.
//
// A writer sets Seq, Time, Kind and Body; Body's fields are encoded after seq, t and
// kind in the same JSON object, so it must encode as a JSON object (or be nil). A
// reader gets all of them: Body is the kind's body type from bodies.go (a value, not a
// pointer: Transition, Message, ...) or, for a kind this package does not know, the
// body's JSON as a json.RawMessage.
type Event struct {
	Seq  int64
	Time time.Time
	Kind string
	Body any

	// Set by the reader only.
	Line int    // 1-based line number in the file
	H    string // the line's link in the hash chain, "" in an unchained trace
	// Raw is the line without its newline and without its h field: the event as
	// written, and the content the chain hashes.
	Raw []byte
}

// As returns e's body as a T, and whether it is one.
func As[T any](e *Event) (T, bool) {
	b, ok := e.Body.(T)
	return b, ok
}

// FieldsAppender is implemented by the bodies the engine writes most often, which
// append their fields (each preceded by a comma) without reflection. The bytes must be
// exactly what encoding/json writes for the body, so a trace does not depend on which
// path wrote it.
type FieldsAppender interface {
	AppendFields(buf []byte) []byte
}

// AppendJSON appends the event's JSON line (with a trailing newline) to buf, without
// the h that links it into a trace's hash chain: the line's content, as shown to a
// reader. Trace files get their lines from the sinks, which add the link.
func (e *Event) AppendJSON(buf []byte) ([]byte, error) {
	buf = appendPrefix(buf, e.Seq, e.Time, e.Kind)
	if fa, ok := e.Body.(FieldsAppender); ok {
		buf = fa.AppendFields(buf)
	} else if e.Body != nil {
		// A message's seq in a trace line is the envelope's, never a field of the body.
		v := e.Body
		if m, ok := v.(*Message); ok {
			v = *m
		}
		if m, ok := v.(Message); ok {
			m.Seq = 0
			v = m
		}
		body, err := json.Marshal(v)
		if err != nil {
			return buf, fmt.Errorf("trace: encoding %s event: %w", e.Kind, err)
		}
		if len(body) < 2 || body[0] != '{' {
			return buf, fmt.Errorf("trace: %s event body must encode as an object, got %.20s", e.Kind, body)
		}
		if len(body) > 2 {
			buf = append(buf, ',')
			buf = append(buf, body[1:len(body)-1]...)
		}
	}
	buf = append(buf, '}', '\n')
	return buf, nil
}

// appendPrefix writes `{"seq":N,"t":"…","kind":"…"`, the envelope every line starts
// with.
func appendPrefix(buf []byte, seq int64, t time.Time, kind string) []byte {
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendInt(buf, seq, 10)
	buf = append(buf, `,"t":"`...)
	buf = t.UTC().AppendFormat(buf, time.RFC3339Nano)
	buf = append(buf, `","kind":`...)
	return AppendString(buf, kind)
}

// BodyJSON is a read event's body as a JSON object: Raw without seq, t and kind, ready
// to be written again as an event of the same kind. A line that does not start with
// the envelope exactly as this package writes it is an error saying what was expected.
func (e *Event) BodyJSON() (json.RawMessage, error) {
	prefix := appendPrefix(nil, e.Seq, e.Time, e.Kind)
	if !bytes.HasPrefix(e.Raw, prefix) {
		return nil, fmt.Errorf("line is not in the trace writer's layout (expected it to start with %s)", prefix)
	}
	rest := e.Raw[len(prefix):]
	if len(rest) == 1 { // just "}"
		return json.RawMessage("{}"), nil
	}
	return append([]byte("{"), rest[1:]...), nil
}

// AppendString appends s as a JSON string, as encoding/json does (HTML-escaping
// included): plain identifiers are copied, anything else goes through the encoder.
func AppendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// AppendKey appends `,"key":`, the start of a field after the first.
func AppendKey(buf []byte, key string) []byte {
	buf = append(buf, ',', '"')
	buf = append(buf, key...)
	return append(buf, '"', ':')
}
