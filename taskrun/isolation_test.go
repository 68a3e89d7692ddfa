package taskrun

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentspine/spine/effectors/sandbox"
)

func TestCheckWorkdir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	project := filepath.Join(home, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	realHome, _ := filepath.EvalSymlinks(home)
	for _, c := range []struct{ dir, err string }{
		{project, ""},
		{"/", "--workdir / is the root of the file system: the tools could write everywhere; choose a project directory"},
		{home, "--workdir " + home + " holds your home directory " + realHome + ": its secrets (~/.ssh, ~/.aws, shell history) would be open to the tools; choose a project directory"},
		{filepath.Dir(home), "--workdir " + filepath.Dir(home) + " holds your home directory " + realHome + ": its secrets (~/.ssh, ~/.aws, shell history) would be open to the tools; choose a project directory"},
	} {
		err := checkWorkdir(c.dir)
		if got := fmt.Sprint(err); (c.err == "" && err != nil) || (c.err != "" && got != c.err) {
			t.Errorf("checkWorkdir(%s) = %v, want %q", c.dir, err, c.err)
		}
	}
}

func TestNoSandboxRefusesAllowNet(t *testing.T) {
	var warned []string
	_, err := toolJail(func(m string) { warned = append(warned, m) }, []sandbox.NetRule{{Host: "127.0.0.1", Port: 8080}}, nil, true, nil)
	if err == nil || err.Error() != "--allow-net needs the sandbox: without it tools reach every network anyway" {
		t.Errorf("--allow-net with --no-sandbox: %v", err)
	}
	j, err := toolJail(func(m string) { warned = append(warned, m) }, nil, nil, true, nil)
	if err != nil || j.Describe().Confined() {
		t.Fatalf("--no-sandbox: %v, %+v", err, j)
	}
	if last := warned[len(warned)-1]; last != "--no-sandbox: tools run UNCONFINED, as this user, with this user's files and network; this is recorded in the trace" {
		t.Errorf("warning = %q", last)
	}
}
