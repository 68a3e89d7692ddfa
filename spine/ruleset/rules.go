package ruleset

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/internal/yamlnode"
	"github.com/agentspine/spine/spine/trace"
)

// The engine's FSM states a rule may request with then.transition.
const (
	StateObserve   = "observe"
	StateTerminate = "terminate_or_iterate"
)

func (l *loader) loadRules(rs *RuleSet, n *yaml.Node) {
	if !l.is(n, yaml.SequenceNode, "rules: expected a list of rules") {
		return
	}
	if len(n.Content) == 0 {
		l.errNode(n, "rules: the list is empty; a rule set needs at least one rule")
	}
	seen := map[string]int{}
	for _, item := range n.Content {
		item = yamlnode.Resolve(item)
		l.rule = ""
		if !l.is(item, yaml.MappingNode, "rule: expected a mapping with name, salience, when and then") {
			continue
		}
		l.rule = peekName(item) // so that errors in the rule's keys name it
		keys := l.fields(item, "rule", []string{"name", "salience", "when", "then", "description"}, []string{"name", "salience", "when", "then"})
		r := &Rule{Line: item.Line, index: len(rs.rules)}
		nameNode := keys["name"]
		if name, ok := l.stringScalar(nameNode, "rule name"); ok {
			if first, dup := seen[name]; dup {
				l.errNode(nameNode, "duplicate rule name %q (first defined on line %d)", name, first)
			} else if name == "" {
				l.errNode(nameNode, "rule name is empty")
			}
			seen[name] = nameNode.Line
			r.Name = name
			l.rule = name
		}
		if v := keys["salience"]; v != nil {
			r.Salience, _ = l.intScalar(v, "salience")
		}
		r.Description, _ = l.stringScalar(keys["description"], "description")
		when := keys["when"]
		if src, ok := l.stringScalar(when, "when"); ok { // true and false are predicates too
			r.When = src
			l.compileWhen(rs, r, when)
		}
		l.loadThen(rs, r, keys["then"])
		if r.thenErr == nil {
			r.thenJSON, r.thenErr = json.Marshal(&r.Then)
		}
		rs.rules = append(rs.rules, r)
	}
	l.rule = ""
}

// peekName returns the rule's name when it is a plain scalar, else "".
func peekName(rule *yaml.Node) string {
	for i := 0; i+1 < len(rule.Content); i += 2 {
		if v := yamlnode.Resolve(rule.Content[i+1]); rule.Content[i].Value == "name" && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			return v.Value
		}
	}
	return ""
}

func (l *loader) loadThen(rs *RuleSet, r *Rule, n *yaml.Node) {
	if !l.is(n, yaml.MappingNode, "then: expected a mapping with objective, assert, update, retract or transition") {
		return
	}
	keys := l.fields(n, "then", []string{"objective", "assert", "update", "retract", "transition"}, nil)
	if len(keys) == 0 && len(n.Content) == 0 {
		l.errNode(n, "then: does nothing; give an objective, assert, update, retract or transition")
	}
	obj := keys["objective"]
	if name, ok := l.stringScalar(obj, "then.objective"); ok {
		if _, found := rs.objectiveByName[name]; !found {
			l.errNode(obj, "then.objective: %q is not a declared objective%s", name, objectiveList(rs))
		}
		r.Then.Objective = name
	}
	tr := keys["transition"]
	if to, ok := l.stringScalar(tr, "then.transition"); ok {
		if to != StateObserve && to != StateTerminate {
			l.errNode(tr, "then.transition: %q is not a state a rule may request (expected %s or %s)", to, StateObserve, StateTerminate)
		}
		r.Then.Transition = to
	}
	r.Then.Assert, r.assertFields = l.factActions(rs, r, keys["assert"], "assert", true)
	r.Then.Update, r.updateFields = l.factActions(rs, r, keys["update"], "update", true)
	r.Then.Retract, _ = l.factActions(rs, r, keys["retract"], "retract", false)
}

// factActions reads a then's assert, update or retract: the actions as the trace records
// them, and each action's field values typed (nil where it gives none).
func (l *loader) factActions(rs *RuleSet, r *Rule, n *yaml.Node, op string, withFields bool) ([]trace.FactAction, []Fields) {
	if n == nil {
		return nil, nil
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var out []trace.FactAction
	var typed []Fields
	for _, it := range items {
		it = yamlnode.Resolve(it)
		what := "then." + op
		if !l.is(it, yaml.MappingNode, "%s: expected a mapping with kind, id and fields", what) {
			continue
		}
		allowed := []string{"kind", "id"}
		if withFields {
			allowed = append(allowed, "fields")
		}
		keys := l.fields(it, what, allowed, []string{"kind"})
		var a trace.FactAction
		var fields Fields
		var kind *FactKind
		kn := keys["kind"]
		if name, ok := l.stringScalar(kn, what+".kind"); ok {
			a.Kind = name
			kind = rs.kindByName[name]
			switch {
			case kind == nil:
				l.errNode(kn, "%s: unknown fact kind %q%s", what, name, kindList(rs))
			case name == KindState || name == KindObjective:
				l.errNode(kn, "%s: the built-in kind %q is changed by the engine, not by rules (use then.objective or then.transition)", what, name)
				kind = nil
			}
		}
		if v := keys["id"]; v != nil {
			a.ID, _ = l.stringScalar(v, what+".id")
			if kind != nil && !kind.Many && a.ID != "" && a.ID != kind.Name {
				l.errNode(v, "%s: kind %q holds one fact, so its id is %q or omitted, not %q", what, kind.Name, kind.Name, a.ID)
			}
		} else if kind != nil && kind.Many {
			l.errNode(it, "%s: kind %q holds many facts, so an id is required", what, a.Kind)
		}
		if v := keys["fields"]; v != nil && kind != nil {
			fields = l.literalFields(kind, v, what)
		}
		if len(fields) > 0 { // none given: the trace omits the key
			var err error
			if a.Fields, err = json.Marshal(fields); err != nil && r.thenErr == nil {
				r.thenErr = err
			}
		}
		out = append(out, a)
		typed = append(typed, fields)
	}
	return out, typed
}

// literalFields reads a then-action's field values and checks them against the kind.
func (l *loader) literalFields(k *FactKind, n *yaml.Node, what string) Fields {
	if !l.is(n, yaml.MappingNode, "%s.fields: expected a mapping of field: value", what) {
		return nil
	}
	out := Fields{}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], yamlnode.Resolve(n.Content[i+1])
		f, ok := k.Field(kn.Value)
		if !ok {
			l.errNode(kn, "%s: kind %q has no field %q (fields: %s)", what, k.Name, kn.Value, strings.Join(k.FieldNames(), ", "))
			continue
		}
		if first, dup := seen[f.Name]; dup {
			l.errNode(kn, "%s: field %q is given twice (first on line %d)", what, f.Name, first)
			continue
		}
		seen[f.Name] = kn.Line
		// A wrong shape is named as YAML, not as the Go type it would decode to.
		shapeOK := vn.Kind == yaml.ScalarNode
		if f.Type == TypeStrings {
			shapeOK = vn.Kind == yaml.SequenceNode || vn.Tag == "!!null"
		}
		if !shapeOK {
			l.errNode(vn, "%s: field %q of kind %q: want %s, got %s", what, f.Name, k.Name, typeDescription[f.Type], yamlnode.Describe(vn))
			continue
		}
		var v any
		if err := vn.Decode(&v); err != nil {
			l.errNode(vn, "%s: field %q: %v", what, f.Name, err)
			continue
		}
		if err := f.Assign(newFieldProbe(f), v); err != nil {
			l.errNode(vn, "%s: field %q of kind %q: %v", what, f.Name, k.Name, err)
			continue
		}
		out[f.Name] = v
	}
	return out
}

var typeDescription = map[FieldType]string{
	TypeFloat: "a number", TypeInt: "an integer", TypeBool: "a bool", TypeString: "a string", TypeStrings: "a list of strings",
}

// choices names the alternatives an error offers: " (label: a, b)" with the name of each
// x, or " (none)" when there are none.
func choices[T any](label string, xs []T, name func(T) string, none string) string {
	if len(xs) == 0 {
		return " (" + none + ")"
	}
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = name(x)
	}
	return " (" + label + ": " + strings.Join(names, ", ") + ")"
}

func objectiveList(rs *RuleSet) string {
	return choices("objectives", rs.objectives, func(o Objective) string { return o.Name }, "the file declares no objectives")
}

// kindList names the declared kinds, which follow the built-in ones.
func kindList(rs *RuleSet) string {
	declared := rs.kinds[len(builtinKinds()):]
	return choices("kinds", declared, func(k *FactKind) string { return k.Name }, "the file declares no fact kinds")
}
