package mcp

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// ServersFromYAML reads the mcp_servers list of a configuration file (the model
// configuration's file, whose other keys it leaves alone); an entry's error names the file,
// line and column.
func ServersFromYAML(name string, data []byte) ([]Server, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "mcp_servers" {
			continue
		}
		list := top.Content[i+1]
		if list.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s:%d:%d: mcp_servers: want a list of servers", name, list.Line, list.Column)
		}
		var out []Server
		for _, n := range list.Content {
			b, err := yaml.Marshal(n)
			if err != nil {
				return nil, err
			}
			dec := yaml.NewDecoder(bytes.NewReader(b))
			dec.KnownFields(true)
			var s Server
			if err := dec.Decode(&s); err != nil {
				return nil, fmt.Errorf("%s:%d:%d: mcp_servers entry: %v", name, n.Line, n.Column, err)
			}
			if err := s.Check(); err != nil {
				return nil, fmt.Errorf("%s:%d:%d: %w", name, n.Line, n.Column, err)
			}
			out = append(out, s)
		}
		return out, CheckAll(out)
	}
	return nil, nil
}

// ServerFlags is the repeatable --mcp NAME=COMMAND ARGS… | NAME=URL of a command line (a
// pflag.Value), each value read by ParseFlag.
type ServerFlags []Server

func (m *ServerFlags) String() string {
	var names []string
	for _, s := range *m {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// Type names the value in --help.
func (m *ServerFlags) Type() string { return "NAME=CMD|URL" }

// Set adds the server v names.
func (m *ServerFlags) Set(v string) error {
	s, err := ParseFlag(v)
	if err != nil {
		return err
	}
	*m = append(*m, s)
	return nil
}

// ConfigServers are the mcp_servers of the configuration file at path ("" for none),
// then extra (a command line's): a name in both is an error.
func ConfigServers(path string, extra []Server) ([]Server, error) {
	var servers []Server
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if servers, err = ServersFromYAML(path, data); err != nil {
			return nil, err
		}
	}
	servers = append(servers, extra...)
	return servers, CheckAll(servers)
}
