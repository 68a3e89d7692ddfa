package mcp

import (
	"errors"
	"os"
	"path/filepath"
)

// ThirdPartyDir is where the npm reference servers are installed for tests
// (testdata/thirdparty/mcp-servers, npm ci), found from dir upwards; the error says how to
// install them.
func ThirdPartyDir(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "testdata", "thirdparty", "mcp-servers")
		if _, err := os.Stat(filepath.Join(p, "node_modules", "@modelcontextprotocol", "server-filesystem")); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("the MCP reference servers are not installed: run npm ci in testdata/thirdparty/mcp-servers")
		}
	}
}

// NpmServer is the entry of an npm reference server installed under ThirdPartyDir
// (pkg: "server-filesystem", "server-everything"), run with node inside the sandbox.
func NpmServer(thirdParty, name, pkg string, args ...string) Server {
	main := filepath.Join(thirdParty, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	return Server{Name: name, Command: "node", Args: append([]string{main}, args...), ReadOnly: []string{thirdParty}}
}
