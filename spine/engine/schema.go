package engine

import (
	"fmt"
	"reflect"
	"sort"
	"sync/atomic"
)

// FieldType is the type of a declared fact field or param.
type FieldType string

// Field types a rule file may declare.
const (
	TypeFloat   FieldType = "float"
	TypeInt     FieldType = "int"
	TypeBool    FieldType = "bool"
	TypeString  FieldType = "string"
	TypeStrings FieldType = "strings"
)

var fieldTypes = map[FieldType]reflect.Type{
	TypeFloat:   reflect.TypeOf(float64(0)),
	TypeInt:     reflect.TypeOf(int(0)),
	TypeBool:    reflect.TypeOf(false),
	TypeString:  reflect.TypeOf(""),
	TypeStrings: reflect.TypeOf([]string(nil)),
}

// Field is one declared field of a fact kind.
type Field struct {
	Name string
	Type FieldType
}

// FactKind declares a kind of fact: its fields and whether many facts of the kind may exist
// at once. Rules see a singleton kind as a pointer to a struct (nil when absent) and a
// "many" kind as a list of such pointers ordered by fact id.
type FactKind struct {
	Name        string
	Description string
	Many        bool
	Fields      []Field

	lastPlan atomic.Pointer[cachedPlan]

	index   int            // position in the rule set's kinds and in the expr environment
	typ     reflect.Type   // struct with one field per declared field, in declaration order
	fieldIx map[string]int // field name → struct field index
}

// Field returns the declared field with the given name.
func (k *FactKind) Field(name string) (Field, bool) {
	i, ok := k.fieldIx[name]
	if !ok {
		return Field{}, false
	}
	return k.Fields[i], true
}

// fieldNames lists the declared fields, sorted, for error messages.
func (k *FactKind) fieldNames() []string {
	names := make([]string, len(k.Fields))
	for i, f := range k.Fields {
		names[i] = f.Name
	}
	sort.Strings(names)
	return names
}

// build makes the payload struct type. Field names are exported placeholders; the expr
// and json tags carry the declared names so rules and traces use those.
func (k *FactKind) build() {
	sf := make([]reflect.StructField, len(k.Fields))
	k.fieldIx = make(map[string]int, len(k.Fields))
	for i, f := range k.Fields {
		sf[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: fieldTypes[f.Type],
			Tag:  reflect.StructTag(fmt.Sprintf(`expr:%q json:%q`, f.Name, f.Name)),
		}
		k.fieldIx[f.Name] = i
	}
	k.typ = reflect.StructOf(sf)
}

// Built-in fact kinds, present in every rule set.
const (
	KindState     = "state"
	KindObjective = "objective"
)

// reservedNames may not be declared as fact kinds: they are built-in identifiers of the
// rule environment.
var reservedNames = map[string]bool{KindState: true, KindObjective: true, "params": true, KindObjectives: true}

// Every rule set's kinds start with the built-in ones, at these indexes.
const (
	stateIndex     = 0
	objectiveIndex = 1
)

// statePayload and objectivePayload have the layout of the built-in kinds' payload
// structs (same field types in the same order), so the engine sets them without
// reflection; TestBuiltinPayloadLayout checks it.
type (
	statePayload struct {
		Name      string
		Iteration int
	}
	objectivePayload struct {
		Name string
		Rule string
	}
)

func builtinKinds() []*FactKind {
	return []*FactKind{
		{Name: KindState, Description: "the FSM state of the engine",
			Fields: []Field{{"name", TypeString}, {"iteration", TypeInt}}},
		{Name: KindObjective, Description: "the objective chosen by the last rule that set one",
			Fields: []Field{{"name", TypeString}, {"rule", TypeString}}},
	}
}

// newFieldProbe returns a settable value of a field's Go type, for checking a literal.
func newFieldProbe(f Field) reflect.Value { return reflect.New(fieldTypes[f.Type]).Elem() }
