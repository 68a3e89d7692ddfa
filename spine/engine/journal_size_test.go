package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// TestJournalKeepsAnExchangeWithinALine: an exchange whose parts fit on their own but not
// together is journalled with what fits, the rest as its size; one that fits is kept
// whole.
func TestJournalKeepsAnExchangeWithinALine(t *testing.T) {
	big := strings.Repeat("<", contract.MaxTraceLine/8) // 6 bytes each once escaped: 3/4 of a line
	for _, tc := range []struct {
		name          string
		x             Exchange
		request, resp string // what the record holds: "whole" or "omitted"
		errorCut      bool
	}{
		{name: "small", x: Exchange{Name: "tool:shell", Request: "ls", Response: "a\nb"}, request: "whole", resp: "whole"},
		{name: "a large request and a small response", x: Exchange{Name: "llm:R3", Request: big + big, Response: "ok"},
			request: "omitted", resp: "whole"},
		{name: "both large", x: Exchange{Name: "llm:R3", Request: big, Response: big + "x"}, request: "whole", resp: "omitted"},
		{name: "a long error", x: Exchange{Name: "tool:shell", Request: big, Error: big}, request: "whole", resp: "whole", errorCut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := tc.x.record()
			if err != nil {
				t.Fatal(err)
			}
			var line []byte
			line, err = (&trace.Event{Seq: 1, Kind: trace.KindExchange, Body: rec}).AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(line)+64 > contract.MaxTraceLine {
				t.Fatalf("the line is %d bytes, over the limit", len(line))
			}
			state := func(raw json.RawMessage, v any) string {
				whole, _ := json.Marshal(v)
				switch {
				case v == nil && raw == nil, string(raw) == string(whole):
					return "whole"
				case strings.HasPrefix(string(raw), fmt.Sprintf(`{"omitted_bytes":%d,`, len(whole))):
					return "omitted"
				}
				return fmt.Sprintf("%.60s", raw)
			}
			if got := state(rec.Request, tc.x.Request); got != tc.request {
				t.Errorf("request: %s, want %s", got, tc.request)
			}
			if got := state(rec.Response, tc.x.Response); got != tc.resp {
				t.Errorf("response: %s, want %s", got, tc.resp)
			}
			if cut := rec.Error != tc.x.Error; cut != tc.errorCut || (cut && !strings.HasSuffix(rec.Error, fmt.Sprintf("…(%d bytes)", len(tc.x.Error)))) {
				t.Errorf("error cut %v (%d bytes), want %v", cut, len(rec.Error), tc.errorCut)
			}
		})
	}
}
