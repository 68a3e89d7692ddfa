package taskrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/secrets"
	"github.com/agentspine/spine/spine/trace"
)

const scrubKey = "sk-test-Aa1Bb2Cc3Dd4Ee5Ff6"

// TestScrubJSONKeepsCleanText: a compact JSON text as encoding/json writes it comes back
// byte for byte when nothing is secret.
func TestScrubJSONKeepsCleanText(t *testing.T) {
	sc := secrets.New(scrubKey)
	for _, in := range []string{
		`{}`, `[]`, `{"a":[]}`, `{"seq":1,"t":"2026-01-02T03:04:05.123456789Z","kind":"x"}`,
		`{"n":[0,-1,1.5,1e+30,12345678901234567890,-0.000001],"b":[true,false,null]}`,
		`{"s":"\u003ctag\u003e \u0026 \"quoted\" \\ é \u2028 \n\t\u0001"}`,
		`{"nested":{"a":{"b":[{"c":[[],[{}]]}]}},"z":""}`,
		`"just a string"`, `42`, `null`,
	} {
		out, err := scrubJSON(sc, []byte(in))
		if err != nil || string(out) != in {
			t.Errorf("scrubJSON(%s) = %s, %v", in, out, err)
		}
	}
}

func TestScrubJSON(t *testing.T) {
	sc := secrets.New(scrubKey, `pa"ss<w>rd\1`)
	for _, tc := range []struct{ in, want string }{
		{`{"output":"key=` + scrubKey + `\n"}`, `{"output":"key=[REDACTED]\n"}`},
		{`{"` + scrubKey + `":1}`, `{"[REDACTED]":1}`},
		{`["a","pa\"ss\u003cw\u003erd\\1",3]`, `["a","[REDACTED]",3]`},
		// A secret spelt with escapes the text-level scan would not cut cleanly.
		{`{"x":"\u0073k-test-Aa1Bb2Cc3Dd4Ee5Ff6"}`, `{"x":"[REDACTED]"}`},
	} {
		out, err := scrubJSON(sc, []byte(tc.in))
		if err != nil || string(out) != tc.want {
			t.Errorf("scrubJSON(%s)\n got %s, %v\nwant %s", tc.in, out, err, tc.want)
		}
	}
	for _, bad := range []string{``, `1 2`, `{} []`, `{"a":`, `{"a" 1}`, `[1,]`, `nul`} {
		if _, err := scrubJSON(sc, []byte(bad)); err == nil {
			t.Errorf("scrubJSON(%s) accepted it", bad)
		}
	}
}

// FuzzScrubJSON: any JSON value written by encoding/json is unchanged when nothing in
// it is secret, and nothing panics on input that is not JSON.
func FuzzScrubJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u003c"}`, `[true,false]`, `"x"`, `{"seq":1,"kind":"halt"}`, `{`} {
		f.Add([]byte(s))
	}
	sc := secrets.New(scrubKey)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := scrubJSON(sc, data)
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		canon, _ := json.Marshal(v)
		if bytes.Contains(canon, []byte(`[REDACTED]`)) || sc.Contains(string(canon)) {
			return
		}
		if out, err = scrubJSON(sc, canon); err != nil || !bytes.Equal(out, canon) {
			t.Fatalf("scrubJSON(%s) = %s, %v", canon, out, err)
		}
	})
}

// TestScrubSink: an event holding a secret reaches the next sink as the same line with
// the marker, as if the body had held the marker all along; other events pass unchanged.
func TestScrubSink(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type body struct {
		Name   string         `json:"name"`
		Output string         `json:"output"`
		Extra  map[string]int `json:"extra,omitempty"`
	}
	events := []trace.Event{
		{Seq: 1, Time: at, Kind: "header", Body: body{Name: "clean <html> & co", Extra: map[string]int{"b": 2, "a": 1}}},
		{Seq: 2, Time: at, Kind: "exchange", Body: body{Name: "tool:shell", Output: "OPENAI_API_KEY=" + scrubKey + "\n"}},
		{Seq: 3, Time: at, Kind: "halt"},
		{Seq: 4, Time: at, Kind: "halt", Body: map[string]string{"error": "401 for key " + scrubKey}},
	}
	want := []trace.Event{events[0],
		{Seq: 2, Time: at, Kind: "exchange", Body: body{Name: "tool:shell", Output: "OPENAI_API_KEY=[REDACTED]\n"}},
		events[2],
		{Seq: 4, Time: at, Kind: "halt", Body: map[string]string{"error": "401 for key [REDACTED]"}},
	}
	got, expected := &trace.MemorySink{}, &trace.MemorySink{}
	s := &scrubSink{next: got, sc: secrets.New(scrubKey)}
	for i := range events {
		if err := s.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
		if err := expected.Write(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), expected.Bytes()) {
		t.Errorf("trace\n%s\nwant\n%s", got.Bytes(), expected.Bytes())
	}
	if strings.Contains(string(got.Bytes()), scrubKey) {
		t.Error("the key reached the trace")
	}
}

// fakeTools returns a fixed result and error.
type fakeTools struct {
	r   contract.ToolResponse
	err error
}

func (f fakeTools) Specs() []contract.ModelTool { return []contract.ModelTool{{Name: "shell"}} }
func (f fakeTools) Call(context.Context, string, []byte) (contract.ToolResponse, error) {
	return f.r, f.err
}

func TestScrubTools(t *testing.T) {
	sc := secrets.New(scrubKey)
	long := strings.Repeat("x", 200) + " token " + scrubKey + " end"
	for _, tc := range []struct {
		name   string
		in     contract.ToolResponse
		err    error
		want   contract.ToolResponse
		errMsg string
	}{
		{"clean", contract.ToolResponse{Tool: "shell", Target: "ls", Output: "a b", Evidence: "shell:ls → a b"}, nil,
			contract.ToolResponse{Tool: "shell", Target: "ls", Output: "a b", Evidence: "shell:ls → a b"}, ""},
		{"output and evidence made again", contract.ToolResponse{Tool: "shell", Target: "env", Output: long,
			Evidence: contract.FormatToolCall("shell", "env", long)}, nil,
			contract.ToolResponse{Tool: "shell", Target: "env", Output: strings.Repeat("x", 200) + " token [REDACTED] end",
				Evidence: contract.FormatToolCall("shell", "env", strings.Repeat("x", 200)+" token [REDACTED] end")}, ""},
		{"target and error", contract.ToolResponse{Tool: "read_file", Target: scrubKey, Output: "refused", Refused: true, ExitCode: -1,
			Evidence: "read_file:" + scrubKey + " → refused"}, errors.New("read_file " + scrubKey + ": outside"),
			contract.ToolResponse{Tool: "read_file", Target: "[REDACTED]", Output: "refused", Refused: true, ExitCode: -1,
				Evidence: "read_file:[REDACTED] → refused"}, "read_file [REDACTED]: outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := scrubTools{fakeTools{tc.in, tc.err}, sc}
			r, err := tools.Call(context.Background(), "shell", nil)
			if r != tc.want {
				t.Errorf("result\n got %+v\nwant %+v", r, tc.want)
			}
			if (err == nil) != (tc.errMsg == "") || (err != nil && err.Error() != tc.errMsg) {
				t.Errorf("error %v, want %q", err, tc.errMsg)
			}
			if err != nil && !errors.Is(err, tc.err) {
				t.Error("the error does not unwrap to the tool's")
			}
			if len(tools.Specs()) != 1 {
				t.Error("Specs not passed through")
			}
		})
	}
}
