// Package strictjson is the project's one strict JSON decoder: exactly one JSON value, no
// field the target does not declare, nothing after the value but white space. Every
// reader of JSON that another program or a file wrote (bus payloads, criteria, memory
// records and exports, tool arguments, model output, distiller journals) decodes through
// it, so that a value written for another type or with data appended is refused the same
// way everywhere.
//
// It owns the decoding and nothing else: its errors are encoding/json's, unchanged (so a
// caller can inspect *json.SyntaxError and *json.UnmarshalTypeError and word them in its
// own terms), or ErrTrailing. It must not import any other package of the project:
// package contract, at the bottom of the graph, imports it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ErrTrailing is returned for data after the one JSON value: another value, a stray
// bracket or anything that is not white space.
var ErrTrailing = errors.New("trailing data after the JSON value")

// Decode decodes the one JSON value in data into v. A field v does not declare is an
// error (encoding/json's `json: unknown field "f"`), as is anything after the value
// but white space (ErrTrailing). Empty data is io.EOF.
func Decode(data []byte, v any) error { return decode(data, v, false) }

// DecodeNumbers is Decode, except that a number decoded into an interface keeps its text
// (json.Number), so the value encodes again to the same bytes.
func DecodeNumbers(data []byte, v any) error { return decode(data, v, true) }

func decode(data []byte, v any, numbers bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if numbers {
		dec.UseNumber()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ErrTrailing
	}
	return nil
}
