package analysis

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentspine/spine/spine/ruleset"
)

// bind checks the domains against a rule set's kinds and fields and indexes them by key.
func (d *Domains) bind(rs *ruleset.RuleSet) (map[string]*Domain, error) {
	out := map[string]*Domain{}
	if d == nil {
		return out, nil
	}
	l := &errList{file: d.File}
	if src, ok := d.source(); ok {
		l = newErrList(d.File, src)
	}
	for i := range d.Entries {
		e := &d.Entries[i]
		if msg := checkEntry(rs, e); msg != "" {
			l.add(e.Line, e.Col, "%s: %s", e.Key, msg)
			continue
		}
		out[e.Key] = e
	}
	if err := l.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// source is the text the domains were parsed from, for error snippets.
func (d *Domains) source() ([]byte, bool) { return d.src, d.src != nil }

func checkEntry(rs *ruleset.RuleSet, e *Domain) string {
	k, ok := rs.Kind(e.Kind)
	if !ok {
		return "no fact kind " + strconv.Quote(e.Kind) + kindNames(rs)
	}
	if k.Many {
		return "kind " + strconv.Quote(k.Name) + " holds many facts; conditions over lists are not analysed, so it takes no domain"
	}
	if e.Field == "" {
		if k.Name == ruleset.KindState && !e.Present {
			return "the engine sets the state before every cycle, so it is always present"
		}
		return ""
	}
	f, ok := k.Field(e.Field)
	if !ok {
		return "kind " + strconv.Quote(k.Name) + " has no field " + strconv.Quote(e.Field) + fieldNames(k)
	}
	if k.Name == ruleset.KindState && f.Name == "name" {
		return "the analysis models select_objective cycles, so state.name takes no domain"
	}
	typeName := "a " + string(f.Type) + " field"
	switch e.Form {
	case FormRange:
		if f.Type != ruleset.TypeFloat && f.Type != ruleset.TypeInt {
			return "a range fits float and int fields, not " + typeName
		}
		if f.Type == ruleset.TypeInt && math.Ceil(e.Min) > math.Floor(e.Max) {
			return "the range [" + fmtNum(e.Min) + ", " + fmtNum(e.Max) + "] holds no integer, and " + e.Field + " is an int field"
		}
	case FormNumbers:
		if f.Type != ruleset.TypeFloat && f.Type != ruleset.TypeInt {
			return "a set of numbers fits float and int fields, not " + typeName
		}
		if f.Type == ruleset.TypeInt {
			for _, x := range e.Numbers {
				if x != math.Trunc(x) {
					return fmtNum(x) + " is not an integer, and " + e.Field + " is an int field"
				}
			}
		}
	case FormBool:
		if f.Type != ruleset.TypeBool {
			return "bool fits bool fields, not " + typeName
		}
	case FormStrings:
		if f.Type != ruleset.TypeString {
			return "a set of strings fits string fields, not " + typeName
		}
	case FormPresence:
		return "present and optional apply to a kind, not to a field"
	}
	return ""
}

func kindNames(rs *ruleset.RuleSet) string {
	var names []string
	for _, k := range rs.Kinds() {
		if k.Name != ruleset.KindState && k.Name != ruleset.KindObjective {
			names = append(names, k.Name)
		}
	}
	if len(names) == 0 {
		return " (the rule file declares no fact kinds)"
	}
	return " (kinds: " + strings.Join(names, ", ") + ")"
}

func fieldNames(k *ruleset.FactKind) string {
	names := make([]string, len(k.Fields))
	for i, f := range k.Fields {
		names[i] = f.Name
	}
	return " (fields: " + strings.Join(names, ", ") + ")"
}
