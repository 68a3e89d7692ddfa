package spine

import (
	"encoding/json"
	"strconv"
)

// fieldsAppender is implemented by the engine's most frequent event bodies, which append
// their fields (each preceded by a comma) without reflection. The bytes are exactly what
// encoding/json would write, so traces do not depend on which path wrote them.
type fieldsAppender interface {
	appendFields(buf []byte) []byte
}

// appendString appends s as a JSON string, as encoding/json does (HTML-escaping
// included): plain identifiers are copied, anything else goes through the encoder.
func appendString(buf []byte, s string) []byte {
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

func appendKey(buf []byte, key string) []byte {
	buf = append(buf, ',', '"')
	buf = append(buf, key...)
	return append(buf, '"', ':')
}

func (b transitionBody) appendFields(buf []byte) []byte {
	buf = appendString(appendKey(buf, "from"), b.From)
	buf = appendString(appendKey(buf, "to"), b.To)
	buf = appendString(appendKey(buf, "event"), b.Event)
	return strconv.AppendInt(appendKey(buf, "iteration"), int64(b.Iteration), 10)
}

func (c *CycleResult) appendFields(buf []byte) []byte {
	buf = strconv.AppendInt(appendKey(buf, "cycle"), int64(c.Cycle), 10)
	buf = appendString(appendKey(buf, "stage"), c.Stage)
	buf = appendString(appendKey(buf, "scope"), c.Scope)
	buf = append(appendKey(buf, "evaluated"), '[')
	for i, e := range c.Evaluated {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"rule":`...)
		buf = appendString(buf, e.Rule)
		buf = appendString(appendKey(buf, "result"), e.Result)
		if e.Refracted {
			buf = append(appendKey(buf, "refracted"), "true"...)
		}
		if e.Error != "" {
			buf = appendString(appendKey(buf, "error"), e.Error)
		}
		buf = append(buf, '}')
	}
	buf = append(append(buf, ']'), `,"conflict_set":[`...)
	for i, n := range c.ConflictSet {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, n)
	}
	buf = append(buf, ']')
	buf = appendString(appendKey(buf, "fired"), c.Fired)
	if c.DecidedBy != "" {
		buf = appendString(appendKey(buf, "decided_by"), c.DecidedBy)
	}
	return c.appendObjectives(buf)
}
