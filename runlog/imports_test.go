package runlog

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadersImportNoEffector holds the reader of a recorded run, and the views built
// on it, apart from the effectors that write runs: what they read is declared in
// contract, so none of them needs an effector, directly or through another package.
func TestReadersImportNoEffector(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const module = "github.com/agentspine/spine"
	readers := []string{module + "/runlog", module + "/report", module + "/telemetry", module + "/audit"}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, readers...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < len(readers) {
		t.Fatalf("go list named %d packages, want at least the %d readers", len(deps), len(readers))
	}
	for _, d := range deps {
		if strings.HasPrefix(d, module+"/effectors/") || d == module+"/effectors" {
			t.Errorf("%s is among the dependencies of %s", d, strings.Join(readers, ", "))
		}
	}
}
