package sandbox

import (
	"strings"
	"testing"
)

func TestNetRulesFlag(t *testing.T) {
	var n NetRules
	for _, v := range []string{"api.example.com", "127.0.0.1:8080,localhost:6379"} {
		if err := n.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if got := n.String(); got != "api.example.com,127.0.0.1:8080,127.0.0.1:6379" {
		t.Errorf("--allow-net = %q", got)
	}
	if err := n.Set("10.1.2.3:80"); err == nil || !strings.Contains(err.Error(), "must be a loopback address") {
		t.Errorf("a private address: %v", err)
	}
}
