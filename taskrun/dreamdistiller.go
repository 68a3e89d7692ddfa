package taskrun

import (
	"errors"
	"os"
	"strings"

	"github.com/agentspine/spine/effectors/distill"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/memory"
)

// DistillerSource says where an operator's Dreamer pass (spine memory dream) gets its
// distiller: a journal to replay, or a model (optionally journalled), or none.
type DistillerSource struct {
	Replay string // a journal written by Record, calling no model
	Record string // a new file to journal every exchange to
	// The model, as for a run: a configuration file and flags over the environment.
	BaseURL, Model, Config string
	Getenv                 func(string) (string, bool)
}

// DreamDistiller builds the distiller src names; nil when it names none (the pass then
// defers consolidations). The returned function closes the journal being written.
func DreamDistiller(src DistillerSource) (memory.Distiller, func() error, error) {
	noop := func() error { return nil }
	if src.Replay != "" {
		if src.Record != "" || src.BaseURL != "" || src.Model != "" || src.Config != "" {
			return nil, noop, errors.New("--replay calls no model: it takes no --record, --base-url, --model or --config")
		}
		rp, err := distill.LoadJournal(src.Replay)
		return rp, noop, err
	}
	env := func(k string) bool { v, _ := src.Getenv(k); return v != "" }
	if src.BaseURL == "" && src.Model == "" && src.Config == "" && !env("OPENAI_API_KEY") && !env("OPENAI_BASE_URL") {
		if src.Record != "" {
			return nil, noop, errors.New("--record needs a model to record (--base-url / --model / --config)")
		}
		return nil, noop, nil
	}
	cfg, err := llm.LoadConfig(llm.Sources{File: src.Config, Getenv: src.Getenv, Flags: llm.Overrides{BaseURL: src.BaseURL, Model: src.Model}})
	if err != nil {
		return nil, noop, err
	}
	chat, err := llm.NewOpenAIModel(cfg.OpenAIOptions())
	if err != nil {
		return nil, noop, err
	}
	var d memory.Distiller = distill.Model{Chat: chat}
	if src.Record == "" {
		return d, noop, nil
	}
	f, err := os.OpenFile(src.Record, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, noop, errors.New(strings.TrimSpace(src.Record) + " already exists; a journal is never overwritten")
		}
		return nil, noop, err
	}
	return distill.NewRecorder(d, f), f.Close, nil
}
