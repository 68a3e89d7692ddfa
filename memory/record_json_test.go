package memory

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecodeRecordFastMatchesEncodingJSON holds the reader of the canonical form to
// encoding/json: whatever it accepts, encoding/json reads to the same Record.
func FuzzDecodeRecordFastMatchesEncodingJSON(f *testing.F) {
	for _, r := range sampleRecords() {
		b := encodeRecord(r)
		f.Add(b)
		for _, edit := range [][2]string{
			{`"f":0.3`, `"f":03`}, {`"f":0.3`, `"f":.3`}, {`"f":0.3`, `"f":3.`}, {`"f":0.3`, `"f":+0.3`},
			{`"f":0.3`, `"f":3e-1`}, {`"f":0.3`, `"f":3E+0`}, {`"f":0.3`, `"f":1e999`}, {`"f":0.3`, `"f":-0`},
			{`"f":1`, `"f":Infinity`}, {`"f":0.3`, `"f":0x1p-2`},
			{`build failed`, `build\nfailed`}, {`build failed`, "build\tfailed"}, {`build failed`, "build \xff"},
			{`Z"`, `+02:00"`}, {`"created_at":"`, `"created_at": "`}, {`2025`, `0000`}, {`"created_at":"2025-03-01T12:00:00Z"`, `"created_at":null`},
			{`"id"`, `"ID"`}, {`}`, `} `}, {`}`, `,"x":1}`}, {`,"origin":"R7"`, ``}, {`"origin"`, `"supersedes"`},
		} {
			f.Add(bytes.Replace(b, []byte(edit[0]), []byte(edit[1]), 1))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeRecordFast(data)
		if !ok {
			return
		}
		want, err := decodeRecordJSON(data)
		if err != nil {
			t.Fatalf("read %q, which encoding/json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %q as\n%+v\nencoding/json:\n%+v", data, got, want)
		}
	})
}

// TestDecodeRecordFastReadsWhatIsWritten: every value the store writes takes the fast
// path, and reads back to the record written.
func TestDecodeRecordFastReadsWhatIsWritten(t *testing.T) {
	for _, r := range sampleRecords() {
		got, ok := decodeRecordFast(encodeRecord(r))
		if !ok || !recordsEqual(got, r) {
			t.Errorf("%s: fast read %v, %+v", r.ID, ok, got)
		}
	}
}
