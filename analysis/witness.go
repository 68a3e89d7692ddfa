package analysis

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Witness is one concrete input: the facts of a region's representative point.
type Witness struct {
	Facts  []WitnessFact // present kinds, in declaration order
	Absent []string      // kinds the conditions read that are not asserted
}

// WitnessFact is one fact of a witness with every declared field.
type WitnessFact struct {
	Kind   string
	Fields []FieldValue
	quiet  bool // the state fact when no condition reads it: put, but not printed
}

// FieldValue is one field of a witness fact.
type FieldValue struct {
	Name  string
	Value any // float64, int, bool, string or []string
}

func (w Witness) String() string {
	var parts []string
	for _, f := range w.Facts {
		if f.quiet {
			continue
		}
		fields := make([]string, len(f.Fields))
		for i, fv := range f.Fields {
			fields[i] = fv.Name + ": " + formatValue(fv.Value)
		}
		parts = append(parts, f.Kind+"{"+strings.Join(fields, ", ")+"}")
	}
	for _, k := range w.Absent {
		parts = append(parts, k+" absent")
	}
	return strings.Join(parts, "; ")
}

func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return fmtNum(x)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// niceness orders candidate values: fewer decimals first, then nearer to zero.
func niceness(rep any) (int, float64) {
	switch x := rep.(type) {
	case float64:
		s := fmtNum(x)
		dec := 0
		if i := strings.IndexByte(s, '.'); i >= 0 {
			dec = len(s) - i - 1
		}
		return dec, math.Abs(x)
	case bool:
		if x {
			return 0, 1
		}
		return 0, 0
	}
	return 0, 0
}

// witness picks one point of a region and lays it out as facts.
func (sp *space) witness(r region) Witness {
	values := map[string]any{}
	present := map[string]bool{}
	for i, v := range sp.vars {
		best, bestDec, bestAbs := -1, 0, 0.0
		for j, ok := range r[i] {
			if !ok {
				continue
			}
			dec, abs := niceness(v.pieces[j].rep)
			if v.form == varPresence { // a present fact shows more than an absent one
				dec, abs = 0, 1-abs
			}
			if v.form == varStr { // declared or sorted order; any other string last
				dec, abs = 0, float64(j)
			}
			if best < 0 || dec < bestDec || (dec == bestDec && abs < bestAbs) {
				best, bestDec, bestAbs = j, dec, abs
			}
		}
		if best < 0 {
			continue
		}
		rep := v.pieces[best].rep
		switch v.form {
		case varPresence:
			present[v.kind] = rep.(bool)
		case varDiff:
			if sp.opaqueVar(i) {
				continue
			}
			a, b, ok := pickPair(v.fields[0], v.fields[1], int(rep.(float64)))
			if ok {
				values[v.fields[0].name()], values[v.fields[1].name()] = a, b
			}
		default:
			values[v.fields[0].name()] = rep
		}
	}
	var w Witness
	for _, k := range sp.rs.Kinds() {
		p, read := present[k.Name]
		quiet := false
		if k.Name == ruleset.KindState {
			quiet = !read
			p, read = true, true
		}
		if !read {
			continue
		}
		if !p {
			w.Absent = append(w.Absent, k.Name)
			continue
		}
		wf := WitnessFact{Kind: k.Name, quiet: quiet}
		for _, f := range k.Fields {
			ref := sp.fieldRef(k.Name, f)
			val, ok := values[ref.name()]
			if !ok {
				val = defaultValue(ref)
			}
			wf.Fields = append(wf.Fields, FieldValue{Name: f.Name, Value: typed(f.Type, val)})
		}
		w.Facts = append(w.Facts, wf)
	}
	return w
}

// defaultValue is the value a witness gives a field no condition constrains.
func defaultValue(f fieldRef) any {
	switch f.ftype {
	case ruleset.TypeBool:
		return false
	case ruleset.TypeString:
		if len(f.strSet) > 0 {
			return f.strSet[0]
		}
		return ""
	case ruleset.TypeStrings:
		return []string(nil)
	}
	if f.numSet != nil {
		return f.numSet[0]
	}
	x, _ := pickNice(f.lo, f.hi, true, true, f.integer)
	return x
}

func typed(t ruleset.FieldType, v any) any {
	if x, ok := v.(float64); ok && t == ruleset.TypeInt {
		return int(x)
	}
	return v
}

// fields turns a witness fact into a payload for Session.Put.
func (wf WitnessFact) fields() ruleset.Fields {
	out := ruleset.Fields{}
	for _, fv := range wf.Fields {
		out[fv.Name] = fv.Value
	}
	return out
}

// run evaluates the rule set on the witness in a fresh session and returns the cycle.
func runWitness(rs *ruleset.RuleSet, w Witness) (*engine.CycleResult, error) {
	s := engine.NewSession(rs)
	for _, f := range w.Facts {
		if _, err := s.Put(f.Kind, "", f.fields()); err != nil {
			return nil, fmt.Errorf("witness %s: %w", w, err)
		}
	}
	return s.Cycle(context.Background())
}
