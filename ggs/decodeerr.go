package ggs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// describeDecodeError restates an encoding/json error in the terms of the message: where
// names the value decoded, want what it should have been, and fieldHint is added to an
// unknown-field error.
func describeDecodeError(err error, where, want, fieldHint string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errTrailing):
		return fmt.Errorf("invalid JSON: more data after the end of %s", where)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: unexpected end of input")
	case errors.As(err, &syn):
		msg := strings.TrimPrefix(syn.Error(), "json: ")
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, msg)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Errorf("want %s, got %s", want, typ.Value)
		}
		return fmt.Errorf("field %s: want %s, got %s", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field ") {
		return errors.New(msg + fieldHint)
	}
	return errors.New(msg)
}

// jsonKind names a Go type the way a JSON author thinks of it.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem()) + " or null"
	}
	return t.String()
}
