package ruleset

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
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

// Fields is a payload given by field name. Numbers may be any Go numeric type or
// json.Number; lists of strings may be []string or []any holding strings.
type Fields map[string]any

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

	index   int            // position in the rule set's kinds and in the expr environment
	typ     reflect.Type   // struct with one field per declared field, in declaration order
	fieldIx map[string]int // field name → struct field index
}

// Field returns the declared field with the given name.
func (k *FactKind) Field(name string) (Field, bool) {
	if i, ok := k.fieldIx[name]; ok {
		return k.Fields[i], true
	}
	return Field{}, false
}

// FieldIndex returns the index in Fields, and in the payload struct, of a declared field.
func (k *FactKind) FieldIndex(name string) (int, bool) {
	i, ok := k.fieldIx[name]
	return i, ok
}

// Index is the kind's position in the rule set's Kinds and in the environment struct.
func (k *FactKind) Index() int { return k.index }

// Type is the kind's payload struct: one field per declared field, in declaration order,
// of the declared field's Go type (float64, int, bool, string, []string), with expr and
// json tags giving the declared name.
func (k *FactKind) Type() reflect.Type { return k.typ }

// FieldNames lists the declared fields, sorted, for error messages.
func (k *FactKind) FieldNames() []string { return slices.Sorted(maps.Keys(k.fieldIx)) }

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

// builtinKinds are the kinds every rule set starts with, in this order: state is kind 0
// and objective kind 1.
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

// Assign converts v to the field's declared type and stores it in dst, a settable value
// of that type. Numbers may be any Go numeric type or json.Number; a float must be
// finite and an int a whole number of magnitude at most MaxExactInt.
func (f Field) Assign(dst reflect.Value, v any) error {
	switch f.Type {
	case TypeFloat:
		x, ok := Number(v)
		if !ok {
			return fmt.Errorf("want a number, got %T", v)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("want a finite number, got %v", x)
		}
		dst.SetFloat(x)
	case TypeInt:
		x, ok := Number(v)
		if !ok || x != math.Trunc(x) || math.Abs(x) > MaxExactInt {
			return fmt.Errorf("want an integer, got %v (%T)", v, v)
		}
		dst.SetInt(int64(x))
	case TypeBool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want a bool, got %T", v)
		}
		dst.SetBool(b)
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %T", v)
		}
		dst.SetString(s)
	case TypeStrings:
		switch l := v.(type) {
		case []string:
			dst.Set(reflect.ValueOf(append([]string(nil), l...)))
		case []any:
			out := make([]string, len(l))
			for i, e := range l {
				s, ok := e.(string)
				if !ok {
					return fmt.Errorf("want a list of strings, element %d is %T", i, e)
				}
				out[i] = s
			}
			dst.Set(reflect.ValueOf(out))
		case nil:
			dst.Set(reflect.Zero(dst.Type()))
		default:
			return fmt.Errorf("want a list of strings, got %T", v)
		}
	default:
		return fmt.Errorf("unknown field type %q", f.Type)
	}
	return nil
}

// Number is v as a float64 when v is a number: a value of a Go int, uint or float type
// or a json.Number, as a fact field, a param or an expression's result may hold.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case float32:
		return float64(x), true
	case int8, int16, int32, int64:
		return float64(reflect.ValueOf(x).Int()), true
	case uint, uint8, uint16, uint32, uint64:
		return float64(reflect.ValueOf(x).Uint()), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// MaxExactInt bounds the integers a float64 holds exactly; int fact fields never exceed
// it, so a fact reads the same as a JSON number.
const MaxExactInt = 1 << 53
