package ruleset

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestAssignConversions is the table of what a declared field type accepts.
func TestAssignConversions(t *testing.T) {
	cases := []struct {
		typ  FieldType
		in   any
		want any    // stored value when err is ""
		err  string // error text
	}{
		{TypeFloat, 1.5, 1.5, ""},
		{TypeFloat, float32(0.5), 0.5, ""},
		{TypeFloat, 3, 3.0, ""},
		{TypeFloat, int8(-3), -3.0, ""},
		{TypeFloat, int16(7), 7.0, ""},
		{TypeFloat, int32(7), 7.0, ""},
		{TypeFloat, int64(7), 7.0, ""},
		{TypeFloat, uint(7), 7.0, ""},
		{TypeFloat, uint8(7), 7.0, ""},
		{TypeFloat, uint16(7), 7.0, ""},
		{TypeFloat, uint32(7), 7.0, ""},
		{TypeFloat, uint64(7), 7.0, ""},
		{TypeFloat, json.Number("2.25"), 2.25, ""},
		{TypeFloat, json.Number("two"), nil, "want a number, got json.Number"},
		{TypeFloat, "1", nil, "want a number, got string"},
		{TypeFloat, nil, nil, "want a number, got <nil>"},
		{TypeFloat, math.NaN(), nil, "want a finite number, got NaN"},
		{TypeFloat, math.Inf(-1), nil, "want a finite number, got -Inf"},
		{TypeInt, 42, 42, ""},
		{TypeInt, 2.0, 2, ""},
		{TypeInt, json.Number("12"), 12, ""},
		{TypeInt, -(1 << 53), -(1 << 53), ""},
		{TypeInt, 1<<53 + 2, nil, "want an integer, got 9007199254740994 (int)"},
		{TypeInt, 2.5, nil, "want an integer, got 2.5 (float64)"},
		{TypeInt, math.NaN(), nil, "want an integer, got NaN (float64)"},
		{TypeInt, true, nil, "want an integer, got true (bool)"},
		{TypeBool, true, true, ""},
		{TypeBool, 1, nil, "want a bool, got int"},
		{TypeString, "x", "x", ""},
		{TypeString, []byte("x"), nil, "want a string, got []uint8"},
		{TypeStrings, []string{"a", "b"}, []string{"a", "b"}, ""},
		{TypeStrings, []any{"a"}, []string{"a"}, ""},
		{TypeStrings, []any{}, []string{}, ""},
		{TypeStrings, nil, []string(nil), ""},
		{TypeStrings, []any{"a", nil}, nil, "want a list of strings, element 1 is <nil>"},
		{TypeStrings, "a", nil, "want a list of strings, got string"},
		{TypeStrings, []int{1}, nil, "want a list of strings, got []int"},
	}
	for _, c := range cases {
		dst := newFieldProbe(Field{Name: "x", Type: c.typ})
		err := Field{Name: "x", Type: c.typ}.Assign(dst, c.in)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("%s ← %#v: error %v, want %q", c.typ, c.in, err, c.err)
			}
		case err != nil:
			t.Errorf("%s ← %#v: %v", c.typ, c.in, err)
		case !reflect.DeepEqual(dst.Interface(), c.want):
			t.Errorf("%s ← %#v: stored %#v, want %#v", c.typ, c.in, dst.Interface(), c.want)
		}
	}
	if err := (Field{Type: "date"}).Assign(newFieldProbe(Field{Type: TypeInt}), 1); err == nil || err.Error() != `unknown field type "date"` {
		t.Errorf("unknown field type: %v", err)
	}
}
