//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// escapeEntry is one attack of testdata/escape/corpus.yaml.
type escapeEntry struct {
	Name         string       `yaml:"name"`
	Why          string       `yaml:"why"`
	Setup        string       `yaml:"setup"`
	SetupAsRoot  string       `yaml:"setup_as_root"` // why the setup needs root; the entry is skipped without it
	Marker       string       `yaml:"marker"`
	Steps        []escapeStep `yaml:"steps"`
	OutputLacks  []string     `yaml:"output_lacks"`
	OutputHas    []string     `yaml:"output_has"`
	MaxSeconds   float64      `yaml:"max_seconds"`
	MaxFileBytes int64        `yaml:"max_file_bytes"`
}

type escapeStep struct {
	Tool   string         `yaml:"tool"`
	Args   map[string]any `yaml:"args"`
	Expect string         `yaml:"expect"`
}

// canary is the secret every entry tries to reach: the spine's API key in its own
// environment, a file outside the work dir, and the hidden configuration.
const canary = "sk-canary-7f3a9c1e5b2d4f6a8c0e"

// escapeLimits are small, so the limit entries finish quickly.
var escapeLimits = Limits{Processes: 64, MemoryBytes: 256 << 20, FileBytes: 64 << 20, CPUSeconds: 30, TmpBytes: 16 << 20}

func loadCorpus(t *testing.T) []escapeEntry {
	t.Helper()
	data, err := os.ReadFile("testdata/escape/corpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var entries []escapeEntry
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&entries); err != nil {
		t.Fatalf("corpus.yaml: %v", err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Name == "" || seen[e.Name] || len(e.Steps) == 0 {
			t.Fatalf("corpus.yaml: entry %q: names must be unique and every entry needs steps", e.Name)
		}
		seen[e.Name] = true
		for _, s := range e.Steps {
			if s.Expect != "ran" && s.Expect != "refused" {
				t.Fatalf("corpus.yaml: entry %q: expect must be ran or refused, got %q", e.Name, s.Expect)
			}
		}
	}
	return entries
}

// requireBubblewrap skips where the sandbox cannot run, except in CI, where .ci/run
// installs bubblewrap and a skip would hide a missing install step.
func requireBubblewrap(t *testing.T, opts BubblewrapOptions) *Bubblewrap {
	t.Helper()
	b, err := NewBubblewrap(opts)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must be able to isolate tools: %v", err)
		}
		t.Skipf("no isolation on this machine: %v", err)
	}
	return b
}

func TestEscapeCorpus(t *testing.T) {
	entries := loadCorpus(t)
	t.Setenv("OPENAI_API_KEY", canary)
	t.Setenv("SPINE_TEST_TOKEN", canary)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	// Abstract socket names are machine-wide (per network namespace): one per test process.
	abstractName := fmt.Sprintf("spine-escape-test-%d", os.Getpid())
	abstract, err := net.Listen("unix", "@"+abstractName)
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	go func() {
		for {
			c, err := abstract.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	bystander := exec.Command("sleep", "300.3049")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bystander.Process.Kill(); _ = bystander.Wait() }()

	passed := 0
	total := 0
	modes := []string{"shipped", "kernel-only"}
	if m := os.Getenv(escapeModesEnv); m != "" {
		modes = strings.Split(m, ",")
	}
	var skipped []string
	for _, mode := range modes {
		for _, e := range entries {
			total++
			ok := t.Run(mode+"/"+e.Name, func(t *testing.T) {
				defer func() {
					if t.Skipped() {
						skipped = append(skipped, mode+"/"+e.Name)
					}
				}()
				runEscapeEntry(t, mode, e, port, abstractName, &accepted)
				if !processAlive(bystander.Process.Pid) {
					t.Fatalf("a host process (pid %d) was killed", bystander.Process.Pid)
				}
			})
			if ok {
				passed++
			}
		}
	}
	passed -= len(skipped)
	t.Logf("escape corpus as uid %d: %d entries × %d configurations: %d passed of %d, %d skipped %v", os.Geteuid(), len(entries), len(modes), passed, total, len(skipped), skipped)
}

func runEscapeEntry(t *testing.T, mode string, e escapeEntry, port int, abstract string, accepted *atomic.Int64) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, outside, public := filepath.Join(base, "work"), filepath.Join(base, "outside"), filepath.Join(base, "public")
	for _, d := range []string{work, filepath.Join(outside, "repo"), public} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, map[string]string{
		filepath.Join(outside, "secret.txt"):       canary + "\n",
		filepath.Join(outside, "victim.txt"):       "untouched\n",
		filepath.Join(outside, "trace.jsonl"):      `{"seq":1}` + "\n",
		filepath.Join(outside, "repo", "junk.txt"): "junk\n",
		filepath.Join(public, "spine.yaml"):        "api_key: " + canary + "\n",
		filepath.Join(public, "readme.txt"):        "a read-only directory the sandbox shows\n",
	})
	jail := requireBubblewrap(t, BubblewrapOptions{Limits: escapeLimits,
		ReadOnly: []string{public}, Hidden: []string{filepath.Join(public, "spine.yaml")}})
	opts := Options{Jail: jail, Timeout: 15 * time.Second}
	if mode == "kernel-only" {
		opts.skipWordCheck = true
	}
	sb, err := New(work, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()

	subst := strings.NewReplacer("{{work}}", work, "{{outside}}", outside, "{{port}}", fmt.Sprint(port), "{{abstract}}", abstract,
		"{{outside_b64}}", base64.StdEncoding.EncodeToString([]byte(filepath.Join(outside, "secret.txt"))))
	if e.SetupAsRoot != "" && os.Geteuid() != 0 {
		t.Skipf("the setup needs root (%s): the attack does not exist for an ordinary user", e.SetupAsRoot)
	}
	if e.Setup != "" {
		if out, err := exec.Command("/bin/sh", "-c", subst.Replace(e.Setup)).CombinedOutput(); err != nil {
			t.Fatalf("setup %q: %v: %s", e.Setup, err, out)
		}
	}
	before := treeDigest(t, outside)
	mounts := hostMounts(t)
	acceptedBefore := accepted.Load()

	start := time.Now()
	var outputs, shown []string
	for i, s := range e.Steps {
		args := map[string]any{}
		for k, v := range s.Args {
			if str, ok := v.(string); ok {
				v = subst.Replace(str)
			}
			args[k] = v
		}
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := sb.Call(ctx, s.Tool, raw)
		cancel()
		text := res.Output + "\n" + res.Evidence + "\n" + res.Target
		if err != nil {
			text += "\n" + err.Error()
		}
		outputs = append(outputs, text)
		shown = append(shown, res.Output)
		t.Logf("step %d %s: %s", i+1, s.Tool, res.Output)
		want := s.Expect
		if mode == "kernel-only" && s.Tool == ToolShell {
			want = "ran"
		}
		got := "ran"
		if res.Refused {
			got = "refused"
		}
		if got != want {
			t.Errorf("step %d (%s): %s, want %s\noutput: %s\nerr: %v", i+1, s.Tool, got, want, res.Output, err)
		}
	}
	elapsed := time.Since(start)

	all := strings.Join(outputs, "\n")
	if strings.Contains(all, canary) || strings.Contains(all, base64.StdEncoding.EncodeToString([]byte(canary))[:16]) {
		t.Errorf("the canary reached the output:\n%s", all)
	}
	out := strings.Join(shown, "\n")
	for _, s := range e.OutputLacks {
		if strings.Contains(out, s) {
			t.Errorf("output contains %q:\n%s", s, out)
		}
	}
	for _, s := range e.OutputHas {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if after := treeDigest(t, outside); after != before {
		t.Errorf("the directory outside the work dir changed:\nbefore %s\nafter  %s", before, after)
	}
	if after := hostMounts(t); after != mounts {
		t.Errorf("the host's mount table changed:\n%s", mountDiff(mounts, after))
	}
	if n := accepted.Load() - acceptedBefore; n > 0 {
		t.Errorf("the host listener accepted %d connection(s)", n)
	}
	if e.Marker != "" {
		if pids := ownProcesses(processesWith(e.Marker), work); len(pids) > 0 {
			t.Errorf("processes %v of the call are still alive", pids)
		}
	}
	if e.MaxSeconds > 0 && elapsed > time.Duration(e.MaxSeconds*float64(time.Second)) {
		t.Errorf("the entry took %s, more than %gs", elapsed, e.MaxSeconds)
	}
	if e.MaxFileBytes > 0 {
		_ = filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil && fi.Size() > e.MaxFileBytes {
					t.Errorf("%s is %d bytes, more than %d", p, fi.Size(), e.MaxFileBytes)
				}
			}
			return nil
		})
	}
}

func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, content := range files {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeDigest hashes every name, mode, link target and content under dir.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", strings.TrimPrefix(p, dir), fi.Mode(), fi.Size())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", target)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func hostMounts(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mountDiff lists the mountinfo lines only one of two readings holds.
func mountDiff(before, after string) string {
	count := map[string]int{}
	for _, l := range strings.Split(before, "\n") {
		count[l]--
	}
	for _, l := range strings.Split(after, "\n") {
		count[l]++
	}
	var out []string
	for l, n := range count {
		switch {
		case n < 0:
			out = append(out, "- "+l)
		case n > 0:
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// ownProcesses keeps the pids whose working directory lies in dir, or cannot be read:
// other test processes on this machine run the same corpus, with the same markers, in
// work dirs of their own.
func ownProcesses(pids []int, dir string) []int {
	var own []int
	for _, pid := range pids {
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if err != nil || cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			own = append(own, pid)
		}
	}
	return own
}
