package ggs

import (
	"bytes"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// v2Decoder is the single pass of reportScan written with github.com/go-json-experiment/json
// instead: the envelope read as tokens, the payload unmarshalled straight into its struct.
// It is kept to measure (BenchmarkGGSFilterDecodeOnly/json-experiment): reportScan is
// faster on the stream of BenchmarkGGSFilter, and adds no dependency.
type v2Decoder struct {
	dec   jsontext.Decoder
	empty bytes.Buffer // what dec reads between lines, so that it holds no line
}

// onePassOptions are strict as decodeStrict is: an unknown member is an error (and a
// repeated one, and invalid UTF-8, by default).
var onePassOptions = jsonv2.RejectUnknownMembers(true)

func (d *v2Decoder) decode(line []byte) (Message, error) {
	if m, ok := d.onePass(line); ok {
		return m, nil
	}
	return decodeEnvelope(line)
}

func (d *v2Decoder) onePass(line []byte) (Message, bool) {
	d.dec.Reset(bytes.NewBuffer(line), onePassOptions) // read in place, not copied
	defer d.dec.Reset(&d.empty)
	if d.dec.PeekKind() != '{' {
		return Message{}, false
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return Message{}, false
	}
	var m Message
	var target any
	decoded := false
	for d.dec.PeekKind() == '"' {
		name, err := d.dec.ReadValue()
		if err != nil {
			return Message{}, false
		}
		switch string(name) {
		case `"type"`:
			typ, err := d.dec.ReadValue()
			if err != nil || target != nil {
				return Message{}, false
			}
			switch string(typ) {
			case `"ReplanRequest"`:
				m, target = newReport("ReplanRequest")
			case `"OutcomeSummary"`:
				m, target = newReport("OutcomeSummary")
			default:
				return Message{}, false
			}
		case `"payload"`:
			// A payload before its type is left to the reference, which holds it whole.
			if target == nil || decoded || d.dec.PeekKind() != '{' {
				return Message{}, false
			}
			if err := jsonv2.UnmarshalDecode(&d.dec, target); err != nil {
				return Message{}, false
			}
			decoded = true
		default:
			return Message{}, false
		}
	}
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '}' || !decoded {
		return Message{}, false
	}
	if _, err := d.dec.ReadToken(); err != io.EOF { // more after the message
		return Message{}, false
	}
	if m.check() != nil {
		return Message{}, false
	}
	return m, true
}
