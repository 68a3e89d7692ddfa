package textview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

// TestExchangeSummaries covers the kinds of exchange no fixture holds: plan violations,
// memory's calibration, failed attempts, an unknown kind.
func TestExchangeSummaries(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"name":"check:plan","request":{"round":2,"attempt":1},"response":{"violations":["subtask 1 points read_file at \"x\"","subtask 2 uses shell"]}}`,
			"check:plan round 2 attempt 1 · 2 violation(s)\n" +
				`violation: subtask 1 points read_file at "x"` + "\nviolation: subtask 2 uses shell\n"},
		{`{"name":"memory:calibrate","request":{"intent":"port","tools":["read_file"],"targets":[{"tool":"read_file","target":"config/a.yaml"}]},` +
			`"response":{"avoid":["x"],"exploit":[],"caution":[],"verdicts":[{"action":"avoid","tool":"read_file","target":"config/a.yaml","pair":"tool:read_file × path:config/a.yaml","decision":-2.55,"text":"failed 3 times"}]},"duration_ms":4}`,
			"memory:calibrate · 1 tool(s), 1 target(s) asked · 1 verdict(s) · 4ms\nasked tools: read_file\nasked read_file × config/a.yaml\n" +
				"verdict avoid · tool:read_file × path:config/a.yaml · M_dec -2.55 · failed 3 times\n"},
		{`{"name":"llm:R2","request":{"model":"m"},"response":{"model":"m","content":"","usage":{"prompt_tokens":5,"completion_tokens":2},"attempts":3,` +
			`"attempt_log":[{"n":1,"status":429,"retry_after_ms":2000,"wait_ms":2000,"error":"rate limit"},{"n":2,"kind":"timeout","wait_ms":750},{"n":3,"status":200}]},"duration_ms":2800}`,
			"llm:R2 · m · 5→2 tokens · 2800ms · 3 attempt(s)\nattempt 1: HTTP 429 · retry-after 2000ms · waited 2000ms · rate limit\n" +
				"attempt 2: timeout · waited 750ms\nattempt 3: answered (HTTP 200)\n"},
		{`{"name":"tool:shell","request":{},"response":{"tool":"shell","target":"go test","output":"ok\n  all","exit_code":0},"duration_ms":9}`,
			"tool:shell go test · exit 0 · 9ms → ok all\n"},
		{`{"name":"dream:consolidate","request":{},"duration_ms":7,"error":"store\nlocked"}`,
			"dream:consolidate · 7ms · failed: store locked\n"},
		{`{"name":"llm:R1","request":"not an object"}`, "llm:R1 ·  · 0→0 tokens · 0ms · 0 attempt(s)\n"},
	} {
		var b bytes.Buffer
		tl := &Timeline{W: &b}
		x, err := trace.DecodeBody(trace.KindExchange, []byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		tl.exchange(x.(trace.Exchange), func(format string, args ...any) {
			fmt.Fprintf(&b, "%s\n", strings.TrimPrefix(fmt.Sprintf(format, args...), "exchange  "))
		})
		got := strings.ReplaceAll(b.String(), tlIndent, "")
		if got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.raw, got, c.want)
		}
	}
}
