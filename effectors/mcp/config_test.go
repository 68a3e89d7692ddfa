package mcp

import (
	"strings"
	"testing"
	"time"
)

func TestParseFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Server
		err  string
	}{
		{in: "fs=npx -y @modelcontextprotocol/server-filesystem /work", want: Server{Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/work"}}},
		{in: "tickets=https://mcp.example.com/mcp", want: Server{Name: "tickets", URL: "https://mcp.example.com/mcp"}},
		{in: "fs", err: "expected NAME=COMMAND"},
		{in: "a__b=cmd", err: "name must be"},
		{in: "=cmd", err: "name must be"},
	} {
		got, err := ParseFlag(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got.Name != c.want.Name || got.Command != c.want.Command || got.URL != c.want.URL ||
			strings.Join(got.Args, " ") != strings.Join(c.want.Args, " ") {
			t.Errorf("%q: %+v, %v", c.in, got, err)
		}
	}
}

func TestServersFromYAML(t *testing.T) {
	got, err := ServersFromYAML("c.yaml", []byte(`model: m
mcp_servers:
  - name: fs
    command: node
    args: [server.js, /work]
    targets: {search_files: pattern}
    timeout: 10s
  - name: tickets
    url: https://mcp.example.com/mcp
    headers: {Authorization: TICKETS_TOKEN}
`))
	if err != nil || len(got) != 2 || got[0].Timeout != 10*time.Second || got[0].Targets["search_files"] != "pattern" ||
		got[1].Headers["Authorization"] != "TICKETS_TOKEN" {
		t.Fatalf("%+v, %v", got, err)
	}
	_, err = ServersFromYAML("c.yaml", []byte("mcp_servers:\n  - name: fs\n    comand: node\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2:5") || !strings.Contains(err.Error(), "comand") {
		t.Errorf("a misspelt key: %v", err)
	}
	_, err = ServersFromYAML("c.yaml", []byte("mcp_servers:\n  - {name: a, command: x}\n  - {name: a, url: http://h/}\n"))
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a name twice: %v", err)
	}
}

func FuzzServersFromYAML(f *testing.F) {
	f.Add([]byte("mcp_servers:\n  - {name: a, command: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ServersFromYAML("f.yaml", data) })
}

func FuzzParseFlag(f *testing.F) {
	f.Add("fs=node server.js")
	f.Fuzz(func(t *testing.T, s string) { _, _ = ParseFlag(s) })
}
