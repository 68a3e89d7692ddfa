package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCriterionJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    Criterion
		out     string // re-encoded
		wantErr string
	}{
		{in: `"the file exists"`, want: Criterion{Criterion: "the file exists"}, out: `"the file exists"`},
		{in: `{"criterion":"a","mode":"plausible"}`, want: Criterion{"a", ModePlausible}, out: `{"criterion":"a","mode":"plausible"}`},
		{in: `{"criterion":"a","mode":"verifiable"}`, want: Criterion{"a", ModeVerifiable}, out: `{"criterion":"a","mode":"verifiable"}`},
		{in: `{"criterion":"a"}`, want: Criterion{Criterion: "a"}, out: `"a"`},
		{in: ` null`, want: Criterion{}, out: `""`},
		{in: `{"criterion":"a","mode":"likely"}`, wantErr: `mode "likely"`},
		{in: `{"criterion":"a","why":"b"}`, wantErr: "unknown field"},
		{in: `42`, wantErr: "a criterion is a string or"},
		{in: `["a"]`, wantErr: "a criterion is a string or"},
	}
	for _, tc := range tests {
		var c Criterion
		err := json.Unmarshal([]byte(tc.in), &c)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || c != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.in, c, err, tc.want)
			continue
		}
		b, err := json.Marshal(c)
		if err != nil || string(b) != tc.out {
			t.Errorf("%s: re-encoded %s, %v; want %s", tc.in, b, err, tc.out)
		}
	}
	cs := Criteria{{"a", ""}, {"b", ModePlausible}}
	if got := strings.Join(cs.Texts(), "|"); got != "a|b" {
		t.Errorf("Texts = %q", got)
	}
	if cs.ModeOf("b") != ModePlausible || cs.ModeOf("a") != "" || cs.ModeOf("z") != "" {
		t.Error("ModeOf")
	}
}

// FuzzCriterion: whatever a model writes, decoding never panics, and what decodes
// encodes to a form that decodes to the same criterion.
func FuzzCriterion(f *testing.F) {
	for _, s := range []string{`"a"`, `{"criterion":"a","mode":"plausible"}`, `{"mode":"x"}`, `null`, `{}`, `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var c Criterion
		if json.Unmarshal([]byte(in), &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Criterion
		if err := json.Unmarshal(b, &back); err != nil || back != c {
			t.Fatalf("%s → %+v → %s → %+v, %v", in, c, b, back, err)
		}
	})
}
