package trace

import (
	"encoding/json"
	"strconv"
)

// Encoders for the bodies the engine writes on every cycle. The engine holds their
// values in its own state (a cycle's reused slices, a rule's then encoded at load), so
// it passes them to these functions instead of building a body to encode: the shapes
// stay package trace's, the hot path allocates nothing, and the bytes are exactly what
// encoding/json writes for ConflictSet and RuleFired.

// JSONAppender appends one value as JSON, as encoding/json would.
type JSONAppender interface {
	AppendJSON(buf []byte) []byte
}

// AppendConflictSet appends a conflict_set body's fields (ConflictSet), each preceded
// by a comma. Nil evaluated or conflictSet slices are written null, as encoding/json
// writes them; objectives are left out when there are none.
func AppendConflictSet[O JSONAppender](buf []byte, cycle int, stage, scope string, evaluated []RuleEval, conflictSet []string, fired, decidedBy string, objectives []O) []byte {
	buf = strconv.AppendInt(AppendKey(buf, "cycle"), int64(cycle), 10)
	buf = AppendString(AppendKey(buf, "stage"), stage)
	buf = AppendString(AppendKey(buf, "scope"), scope)
	buf = appendArray(AppendKey(buf, "evaluated"), evaluated, appendRuleEval)
	buf = appendArray(AppendKey(buf, "conflict_set"), conflictSet, AppendString)
	buf = AppendString(AppendKey(buf, "fired"), fired)
	if decidedBy != "" {
		buf = AppendString(AppendKey(buf, "decided_by"), decidedBy)
	}
	if len(objectives) > 0 {
		buf = appendArray(AppendKey(buf, "objectives"), objectives, func(b []byte, o O) []byte { return o.AppendJSON(b) })
	}
	return buf
}

// AppendObjectiveEval appends one ObjectiveEval as a JSON object: the error when there
// is one, then the score and satisfied values the objective declares.
func AppendObjectiveEval(buf []byte, objective, err string, score float64, hasScore bool, satisfied, hasSatisfied bool) []byte {
	buf = append(buf, `{"objective":`...)
	buf = AppendString(buf, objective)
	if err != "" {
		buf = AppendString(AppendKey(buf, "error"), err)
	}
	if hasScore {
		buf = AppendFloat(AppendKey(buf, "score"), score)
	}
	if hasSatisfied {
		buf = strconv.AppendBool(AppendKey(buf, "satisfied"), satisfied)
	}
	return append(buf, '}')
}

// RuleFiredEncoded is a rule_fired body (RuleFired) as a writer holds it: the rule's
// then already encoded, once, when the rule was loaded. Then must be what
// encoding/json writes for a Then (compact, HTML-escaped); it is copied verbatim.
type RuleFiredEncoded struct {
	Cycle    int
	Rule     string
	Salience int
	Then     json.RawMessage
}

var _ FieldsAppender = (*RuleFiredEncoded)(nil)

// AppendFields appends the body's fields as encoding/json writes a RuleFired.
func (f *RuleFiredEncoded) AppendFields(buf []byte) []byte {
	buf = strconv.AppendInt(AppendKey(buf, "cycle"), int64(f.Cycle), 10)
	buf = AppendString(AppendKey(buf, "rule"), f.Rule)
	buf = strconv.AppendInt(AppendKey(buf, "salience"), int64(f.Salience), 10)
	buf = AppendKey(buf, "then")
	if len(f.Then) == 0 {
		return append(buf, "null"...)
	}
	return append(buf, f.Then...)
}
