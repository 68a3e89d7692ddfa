package runlog

import (
	"encoding/json"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

func mcpHeader(meta string) trace.Header {
	return trace.Header{Meta: map[string]string{contract.MetaMCPTools: meta}}
}

func TestMCPToolsRoundTrip(t *testing.T) {
	want := contract.MCPTools{
		Servers: []contract.MCPServer{{Name: "go", Transport: "stdio"}, {Name: "web", Transport: "http", Unavailable: "refused"}},
		Tools: []contract.MCPTool{{Server: "go", Name: "mcp__go__echo", Remote: "echo", Description: "Echoes.", Schema: json.RawMessage(`{"type":"object"}`)},
			{Server: "go", Remote: "shell", Refused: "a built-in tool's name"}}}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	d, ok, err := MCPTools(mcpHeader(string(b)))
	if err != nil || !ok || len(d.Servers) != 2 || d.Servers[1].Unavailable != "refused" || len(d.Tools) != 2 ||
		d.Tools[0].Name != "mcp__go__echo" || string(d.Tools[0].Schema) != `{"type":"object"}` || d.Tools[1].Refused == "" {
		t.Fatalf("%+v, %v, %v", d, ok, err)
	}
	if _, ok, err := MCPTools(mcpHeader(`{"servers":7}`)); err == nil || !ok {
		t.Errorf("a bad tool list read: %v, %v", ok, err)
	}
	if _, ok, err := MCPTools(trace.Header{}); ok || err != nil {
		t.Errorf("a header without a tool list: %v, %v", ok, err)
	}
}

func FuzzMCPTools(f *testing.F) {
	f.Add(`{"servers":[{"name":"go","transport":"stdio"}],"tools":[{"server":"go","name":"mcp__go__echo","remote":"echo","description":"x"}]}`)
	f.Add(`{"tools":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _ = MCPTools(mcpHeader(s))
	})
}
