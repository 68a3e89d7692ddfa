package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// mountRefused is the exit status of the test's shell when it may not mount the tmpfs.
const mountRefused = 97

// TestFullDiskTrace runs `spine run` with its trace on a tmpfs too small for it, in a
// mount namespace of its own, and checks how the run ends: exit 1, the write error, a
// last line on stderr that names the last complete line on the file and its hash, and
// that line and hash are what the file verifies to (a torn line after it tolerated).
func TestFullDiskTrace(t *testing.T) {
	bin, err := exec.LookPath("spine") // the test binary, as TestMain installs it
	if err != nil {
		t.Skip("no spine command on PATH:", err)
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 8080\n")
	scripts := map[string][]llmtest.Reply{}
	for _, role := range fmRoles {
		scripts["m-"+role] = fmHappy[role]
	}
	router := llmtest.NewRouter(t, scripts)
	cfg := filepath.Join(dir, "models.yaml")
	writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: 1m\nroles:\n"+
		"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
		"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", router.URL(), fmKey))
	disk := filepath.Join(dir, "disk") // the tmpfs, seen only inside the namespace
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "kept.trace.jsonl") // the trace, copied out before the namespace ends
	// 24 KiB: the header (the rules' source) and the first exchanges fit, the round does not.
	script := `mount -t tmpfs -o size=24k spine-full "$DISK" 2>&2 || exit ` + fmt.Sprint(mountRefused) + `
"$SPINE" run --config "$CFG" --workdir "$WORK" --trace "$DISK/run.trace.jsonl" "$TASK"
rc=$?
cp "$DISK/run.trace.jsonl" "$KEPT"
exit $rc`
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // Go makes / private first
	cmd.Env = append(os.Environ(), "DISK="+disk, "SPINE="+bin, "CFG="+cfg, "WORK="+work, "TASK="+fmTask, "KEPT="+kept,
		"SPINE_LLM_MAX_ATTEMPTS=1", "SPINE_TRACE_DIR="+dir,
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "SPINE_MODEL=", "SPINE_TIER=", "SPINE_LLM_TIMEOUT=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		t.Skip("no private mount namespace here:", err)
	case exit != nil && exit.ExitCode() == mountRefused:
		t.Skip("mounting a tmpfs is refused here:", strings.TrimSpace(stderr.String()))
	}
	show := fmt.Sprintf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if exit == nil || exit.ExitCode() != exitFail {
		t.Fatalf("exit %v, want %d\n%s", err, exitFail, show)
	}

	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := spinetrace.VerifyChain(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the cut trace does not verify: %v\n%s", err, show)
	}
	errLines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := errLines[len(errLines)-1]
	want := regexp.MustCompile(`^spine run: the trace .*/run\.trace\.jsonl is incomplete \(trace: writing line (\d+): .*no space left on device\): its last complete line is line (\d+), whose hash is ([0-9a-f]{32})$`)
	m := want.FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("the last line on stderr does not say where the trace ends: %q\n%s", last, show)
	}
	if m[1] != fmt.Sprint(rep.Lines+1) || m[2] != fmt.Sprint(rep.Lines) || m[3] != rep.Head {
		t.Errorf("stderr says line %s (failed %s), hash %s; the file verifies to %d lines, head %s", m[2], m[1], m[3], rep.Lines, rep.Head)
	}
	if !strings.Contains(stdout.String(), "Its last line's hash is "+rep.Head+":") {
		t.Errorf("stdout does not give the hash on the file, %s\n%s", rep.Head, show)
	}
	if rep.Lines < 2 {
		t.Errorf("the tmpfs took %d lines: the test means to cut the run in its round", rep.Lines)
	}
}
