package strictjson

import (
	"encoding/json"
	"testing"
)

type shape struct {
	A int      `json:"a"`
	B []string `json:"b"`
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":["x"]}`, ""},
		{` {"a":1} ` + "\n", ""},
		{`null`, ""},
		{``, "EOF"},
		{`   `, "EOF"},
		{`{"a":1,"c":2}`, `json: unknown field "c"`},
		{`{"a":"1"}`, "json: cannot unmarshal string into Go struct field shape.a of type int"},
		{`{"b":[1]}`, "json: cannot unmarshal number into Go struct field shape.b of type string"},
		{`[1]`, "json: cannot unmarshal array into Go value of type strictjson.shape"},
		{`{"a":1`, "unexpected EOF"},
		{`{"a":1,}`, "invalid character '}' looking for beginning of object key string"},
		{`{"a":1} {"a":2}`, "trailing data after the JSON value"},
		{`{"a":1}}`, "trailing data after the JSON value"},
		{`{"a":1}]`, "trailing data after the JSON value"},
		{`{"a":1} x`, "trailing data after the JSON value"},
		{`{"a":1},`, "trailing data after the JSON value"},
	} {
		var v shape
		err := Decode([]byte(tc.in), &v)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Decode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDecodeNumbersKeepsText(t *testing.T) {
	var v map[string]any
	if err := DecodeNumbers([]byte(`{"n":1.50,"big":12345678901234567890}`), &v); err != nil {
		t.Fatal(err)
	}
	if n, ok := v["n"].(json.Number); !ok || n != "1.50" {
		t.Errorf("n = %#v, want json.Number(\"1.50\")", v["n"])
	}
	if n, ok := v["big"].(json.Number); !ok || n != "12345678901234567890" {
		t.Errorf("big = %#v, want its text", v["big"])
	}
	if err := DecodeNumbers([]byte(`{"n":1} 2`), &v); err != ErrTrailing {
		t.Errorf("DecodeNumbers with a second value = %v, want ErrTrailing", err)
	}
	var plain map[string]any
	if err := Decode([]byte(`{"n":1.50}`), &plain); err != nil {
		t.Fatal(err)
	}
	if _, ok := plain["n"].(float64); !ok {
		t.Errorf("Decode gave %T for a number in an interface, want float64", plain["n"])
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":["x"]}`, `{"a":1} {}`, `[`, `{"c":null}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v shape
		if err := Decode(data, &v); err == nil {
			// What decodes strictly is one valid value.
			if !json.Valid(data) {
				t.Errorf("Decode accepted %q, which is not one JSON value", data)
			}
		}
	})
}
