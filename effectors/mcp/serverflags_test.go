package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigServers: the config file's servers come first, then the flags'; a name in
// both is refused.
func TestConfigServers(t *testing.T) {
	var flags ServerFlags
	for _, v := range []string{"web=http://127.0.0.1:9/mcp", "fs=mcp-fs --root ."} {
		if err := flags.Set(v); err != nil {
			t.Fatalf("--mcp %s: %v", v, err)
		}
	}
	if flags.String() != "web,fs" || flags.Type() != "NAME=CMD|URL" {
		t.Fatalf("flags %q %q", flags.String(), flags.Type())
	}
	cfg := filepath.Join(t.TempDir(), "spine.yaml")
	if err := os.WriteFile(cfg, []byte("model: m\nmcp_servers:\n  - name: notes\n    url: http://127.0.0.1:9/notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ConfigServers(cfg, flags)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "notes,web,fs" {
		t.Errorf("servers %v, want notes, web, fs", names)
	}
	if _, err := ConfigServers(cfg, ServerFlags{{Name: "notes", URL: "http://127.0.0.1:9/x"}}); err == nil {
		t.Error("a name in the file and on the command line was not refused")
	}
	if got, err := ConfigServers("", nil); err != nil || len(got) != 0 {
		t.Errorf("no file, no flags: %v, %v", got, err)
	}
}
