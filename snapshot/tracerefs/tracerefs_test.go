package tracerefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/effectors/roles"
)

func TestExchangeNameIsTheRoles(t *testing.T) {
	if ExchangeName != roles.SnapshotName {
		t.Fatalf("ExchangeName %q, the roles record %q", ExchangeName, roles.SnapshotName)
	}
}

var (
	rootA = strings.Repeat("a", 64)
	rootB = strings.Repeat("b", 64)
)

func TestRootOf(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
	}{
		{`{"seq":12,"kind":"exchange","name":"snapshot:workdir","request":{"round":1,"at":"start"},"response":"` + rootA + `","h":"x"}`, rootA},
		{`{"seq":12,"kind":"exchange","name":"snapshot:workdir","request":{"round":1,"at":"end"},"error":"too big","h":"x"}`, ""},
		{`{"seq":12,"kind":"message","name":"snapshot:workdir","response":"` + rootA + `"}`, ""},
		{`{"seq":12,"kind":"exchange","name":"llm:R1","response":"` + rootA + `"}`, ""},
		{`{"seq":12,"kind":"exchange","name":"snapshot:workdir","response":"not-a-hash"}`, ""},
		{`{"seq":12,"kind":"exchange","name":"snapshot:workdir","respo`, ""},
	} {
		got, ok := RootOf([]byte(tc.line))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("RootOf(%s) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	line := func(r string) string {
		return `{"kind":"exchange","name":"snapshot:workdir","response":"` + r + `"}` + "\n"
	}
	files := map[string]string{
		"a.trace.jsonl":         `{"kind":"header"}` + "\n" + line(rootB) + line(rootA),
		"task/1/trace.jsonl":    line(rootA) + `{"kind":"exchange","name":"snapshot:workdir","response":"` + rootB[:10], // torn
		"notes.txt":             line(strings.Repeat("c", 64)),
		"task/1/work/data.json": line(strings.Repeat("d", 64)),
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Scan(dir)
	if err != nil || f.Traces != 2 || strings.Join(f.Roots, ",") != rootA+","+rootB {
		t.Fatalf("Scan: %+v, %v; want 2 traces and the roots a…, b…", f, err)
	}
	lines := [][]byte{[]byte(line(rootA)), []byte(line(rootB)), []byte(`{"kind":"exchange","name":"llm:R3"}`), []byte(`{"kind":"halt"}`)}
	if got, n := LastRoot(lines); got != rootB || n != 2 {
		t.Errorf("LastRoot = %q, line %d; want b…, line 2", got, n)
	}
	changes := roles.ToolChangesWorkdir
	if n := ToolCallAfter(lines, 2, changes); n != 0 {
		t.Errorf("a model call taken for a tool call (line %d)", n)
	}
	lines = append(lines, []byte(`{"seq":9,"kind":"exchange","name":"tool:read_file","request":{}}`))
	if n := ToolCallAfter(lines, 2, changes); n != 0 {
		t.Errorf("read_file taken for a call that changes the files (line %d)", n)
	}
	lines = append(lines, []byte(`{"seq":10,"kind":"exchange","name":"tool:write_file","request":{}}`),
		[]byte(`{"seq":11,"kind":"exchange","name":"tool:mcp__fs__touch","request":{}}`))
	if n := ToolCallAfter(lines, 2, changes); n != 6 {
		t.Errorf("ToolCallAfter(2) = %d, want the write_file call's line 6", n)
	}
	if n := ToolCallAfter(lines, 6, changes); n != 7 {
		t.Errorf("ToolCallAfter(6) = %d, want the MCP tool's line 7", n)
	}
	if n := ToolCallAfter(lines, len(lines), changes); n != 0 {
		t.Errorf("ToolCallAfter sees a call after the last line (line %d)", n)
	}
	if _, err := Scan(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Scan of a missing dir: %v", err)
	}
}

// FuzzRootOf: any line is read without a panic, and a root it returns is a hash.
func FuzzRootOf(f *testing.F) {
	f.Add([]byte(`{"kind":"exchange","name":"snapshot:workdir","response":"` + rootA + `"}`))
	f.Add([]byte(`{"kind":"exchange","name":"snapshot:workdir","response":{"x":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if root, ok := RootOf(line); ok != (root != "") || ok && !isHash(root) {
			t.Fatalf("RootOf(%q) = %q, %v", line, root, ok)
		}
	})
}
