package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

var strs = []string{"", "plain", "a\"b\\c", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "<a & b>", "é → ☃", "\u2028\u2029",
	"bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate", "😀"}

var floats = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789e15, -2.5e-9,
	math.MaxFloat64, math.SmallestNonzeroFloat64}

// want is what encoding/json writes for v, escaping HTML or not.
func want(t testing.TB, v any, html bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestStringAsEncodingJSON(t *testing.T) {
	for _, s := range strs {
		for _, html := range []bool{false, true} {
			w := want(t, s, html)
			if got := String([]byte("x"), s, html); string(got) != "x"+string(w) {
				t.Errorf("String(%q, html %v) = %s, want %s", s, html, got[1:], w)
			}
			if got := String(nil, []byte(s), html); !bytes.Equal(got, w) {
				t.Errorf("String([]byte %q, html %v) = %s, want %s", s, html, got, w)
			}
		}
	}
}

func TestFloatAsEncodingJSON(t *testing.T) {
	for _, f := range floats {
		for _, f := range []float64{f, -f} {
			if got, ok := Float(nil, f); !ok || !bytes.Equal(got, want(t, f, false)) {
				t.Errorf("Float(%v) = %s, %v; want %s", f, got, ok, want(t, f, false))
			}
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, ok := Float([]byte("x"), f); ok || string(got) != "x" {
			t.Errorf("Float(%v) = %q, %v; want nothing, false", f, got, ok)
		}
	}
}

func FuzzAsEncodingJSON(f *testing.F) {
	for i, s := range strs {
		f.Add(s, floats[i%len(floats)], i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, s string, x float64, html bool) {
		if got, w := String(nil, s, html), want(t, s, html); !bytes.Equal(got, w) {
			t.Fatalf("String(%q, html %v) = %s, want %s", s, html, got, w)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if got, _ := Float(nil, x); !bytes.Equal(got, want(t, x, false)) {
			t.Fatalf("Float(%v) = %s, want %s", x, got, want(t, x, false))
		}
	})
}
