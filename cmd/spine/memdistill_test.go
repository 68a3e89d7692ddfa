package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
)

const sixAbandons = `{"id":"a1","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":"2025-03-01T00:00:00Z"}
{"id":"a2","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":"2025-03-01T00:00:00Z"}
{"id":"a3","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":"2025-03-01T00:00:00Z"}
{"id":"a4","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":"2025-03-01T00:00:00Z"}
{"id":"a5","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":"2025-03-01T00:00:00Z"}
{"id":"a6","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":"2025-03-01T00:00:00Z"}
`

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestDreamWithModelRecordsAndReplays: `spine memory dream` words a consolidation with a
// model and journals the exchange; the same pass over a copy of the store replays the
// journal, calls no model, and reports the same decisions and the same new entry.
func TestDreamWithModelRecordsAndReplays(t *testing.T) {
	dir := t.TempDir()
	writes := filepath.Join(dir, "writes.jsonl")
	if err := os.WriteFile(writes, []byte(sixAbandons), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"live", "again"} {
		if _, e, code := runCLI(t, "memory", "import", "--db", filepath.Join(dir, db), writes); code != exitOK {
			t.Fatalf("import: %s", e)
		}
	}
	srv := llmtest.NewServer(t, llmtest.Text(`{"content": "Never run rm on /var/lib: it was abandoned six times."}`))
	t.Setenv("OPENAI_API_KEY", "k-dream")
	journal := filepath.Join(dir, "distill.jsonl")
	now := "2025-03-02T00:00:00Z"
	live, e, code := runCLI(t, "memory", "dream", "--db", filepath.Join(dir, "live"), "--now", now,
		"--base-url", srv.URL(), "--model", "m", "--record", journal)
	if code != exitOK {
		t.Fatalf("live dream: exit %d: %s", code, e)
	}
	if !strings.Contains(live, "consolidated") || strings.Contains(live, "deferred (") {
		t.Fatalf("live dream did not consolidate:\n%s", live)
	}
	if srv.Pending() != 0 {
		t.Fatal("the model was not asked")
	}
	t.Setenv("OPENAI_API_KEY", "")
	again, e, code := runCLI(t, "memory", "dream", "--db", filepath.Join(dir, "again"), "--now", now, "--replay", journal)
	if code != exitOK {
		t.Fatalf("replayed dream: exit %d: %s", code, e)
	}
	// The new entries' ids are drawn at random by the store; everything else is the same.
	ids := regexp.MustCompile(`→ \S+`)
	if a, l := ids.ReplaceAllString(again, "→ ID"), ids.ReplaceAllString(live, "→ ID"); a != l {
		t.Errorf("replayed pass differs:\n got %s\nwant %s", a, l)
	}
	for _, db := range []string{"live", "again"} {
		out, _, _ := runCLI(t, "memory", "ls", "--db", filepath.Join(dir, db), "--level", "C", "--json")
		if !strings.Contains(out, "Never run rm on /var/lib: it was abandoned six times.") {
			t.Errorf("%s: C entries:\n%s", db, out)
		}
	}
	if _, e, code := runCLI(t, "memory", "dream", "--db", filepath.Join(dir, "live"), "--model", "m", "--base-url", srv.URL(), "--record", journal); code != exitUsage || !strings.Contains(e, "already exists; a journal is never overwritten") {
		t.Errorf("an existing journal: exit %d: %s", code, e)
	}
	if _, e, code := runCLI(t, "memory", "dream", "--db", filepath.Join(dir, "live"), "--replay", journal, "--model", "m"); code != exitUsage || !strings.Contains(e, "--replay calls no model") {
		t.Errorf("--replay with a model: exit %d: %s", code, e)
	}
}
