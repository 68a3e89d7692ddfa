package engine

import (
	"strconv"

	"github.com/agentspine/spine/spine/trace"
)

// The conflict_set event is the engine's most frequent body: CycleResult appends its
// fields without reflection (trace.FieldsAppender). The bytes are exactly what
// encoding/json would write, and what trace.ConflictSet decodes and writes again.

var _ trace.FieldsAppender = (*CycleResult)(nil)

// appendString and appendKey are trace.AppendString and trace.AppendKey, by the names
// the engine's encoders use.
func appendString(buf []byte, s string) []byte { return trace.AppendString(buf, s) }

func appendKey(buf []byte, key string) []byte { return trace.AppendKey(buf, key) }

// AppendFields appends the cycle's conflict_set body (trace.ConflictSet) without
// reflection.
func (c *CycleResult) AppendFields(buf []byte) []byte {
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
