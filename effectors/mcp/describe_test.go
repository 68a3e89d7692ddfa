package mcp

import (
	"encoding/json"
	"testing"
)

func TestDescriptionRoundTrip(t *testing.T) {
	tb := &Toolbox{status: []ServerStatus{{Name: "go", Transport: "stdio"}, {Name: "web", Transport: "http", Unavailable: "refused"}},
		tools: []*Tool{{Server: "go", Name: "mcp__go__echo", Remote: "echo", Description: "Echoes.", Schema: json.RawMessage(`{"type":"object"}`)},
			{Server: "go", Remote: "shell", Refused: "a built-in tool's name"}}}
	d, err := ParseDescription(tb.Describe())
	if err != nil || len(d.Servers) != 2 || d.Servers[1].Unavailable != "refused" || len(d.Tools) != 2 ||
		d.Tools[0].Name != "mcp__go__echo" || string(d.Tools[0].Schema) != `{"type":"object"}` || d.Tools[1].Refused == "" {
		t.Fatalf("%+v, %v", d, err)
	}
	if _, err := ParseDescription(`{"servers":7}`); err == nil {
		t.Error("a bad tool list parsed")
	}
}

func FuzzParseDescription(f *testing.F) {
	f.Add(`{"servers":[{"name":"go","transport":"stdio"}],"tools":[{"server":"go","name":"mcp__go__echo","remote":"echo","description":"x"}]}`)
	f.Add(`{"tools":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseDescription(s)
	})
}
