package taskrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/distill"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/memory"
)

// askedChat answers every request with one distilled entry and keeps what it was sent.
type askedChat struct{ reqs []contract.ModelRequest }

func (c *askedChat) Complete(_ context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	c.reqs = append(c.reqs, req)
	return contract.ModelResponse{Model: req.Model, Content: `{"content":"Read config/app.yaml before guessing the port."}`, FinishReason: "stop", Attempts: 1}, nil
}

// TestNewDistiller: the Dreamer's distiller (a fleet worker's, or a run's) calls the
// planner's model, never shows it a secret of the configuration, and journals each
// exchange so that the pass replays without the model.
func TestNewDistiller(t *testing.T) {
	const key = "sk-test-0123456789abcdefghijklmnop"
	cfg, err := llm.LoadConfig(llm.Sources{Getenv: func(k string) (string, bool) {
		v, ok := map[string]string{llm.EnvAPIKey: key}[k]
		return v, ok
	}, Flags: llm.Overrides{Model: "planner-model"}})
	if err != nil {
		t.Fatal(err)
	}
	chat := &askedChat{}
	var journal bytes.Buffer
	d, err := NewDistiller(cfg, chat, &journal)
	if err != nil {
		t.Fatal(err)
	}
	req := memory.DistilRequest{Kind: memory.KindBestPractice, Space: "intent", Entity: "find the port",
		Evidence: []memory.DistilEvidence{{ID: "m1", State: "M", Content: "read config/app.yaml with key " + key, F: 1, Sigma: 1, Weight: 1}}}
	resp, err := d.Distil(context.Background(), req)
	if err != nil || resp.Content != "Read config/app.yaml before guessing the port." {
		t.Fatalf("Distil: %+v, %v", resp, err)
	}
	if len(chat.reqs) != 1 || chat.reqs[0].Model != "planner-model" {
		t.Fatalf("the model was asked %d time(s), model %q", len(chat.reqs), chat.reqs[0].Model)
	}
	sent, _ := json.Marshal(chat.reqs[0].Messages)
	if strings.Contains(string(sent), key) || !strings.Contains(string(sent), "read config/app.yaml with key") {
		t.Errorf("the model was not shown the evidence without the configuration's API key: %s", sent)
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, journal.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rp, err := distill.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := rp.Distil(context.Background(), req)
	if err != nil || again != resp || rp.Remaining() != 0 {
		t.Fatalf("the journal's replay: %+v, %v, %d left", again, err, rp.Remaining())
	}
}

// TestNewJournalFile: nothing is written, nothing is created; a journal never replaces a
// file that is there.
func TestNewJournalFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	j := NewJournalFile(path)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a journal with nothing written left a file")
	}
	if err := os.WriteFile(path, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j = NewJournalFile(path)
	if _, err := j.Write([]byte("{}\n")); err == nil {
		t.Fatal("a journal wrote over an existing file")
	}
}
