package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentspine/spine/effectors/distill"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/taskrun"
)

// dreamDistiller builds the distiller of `spine memory dream` from its flags: a journal
// to replay, or a model (optionally journalled), or none. The returned function closes
// the journal being written.
func (m *memFlags) dreamDistiller() (memory.Distiller, func() error, error) {
	noop := func() error { return nil }
	if m.replay != "" {
		if m.record != "" || m.baseURL != "" || m.model != "" || m.config != "" {
			return nil, noop, errors.New("--replay calls no model: it takes no --record, --base-url, --model or --config")
		}
		rp, err := distill.LoadJournal(m.replay)
		return rp, noop, err
	}
	configured := m.baseURL != "" || m.model != "" || m.config != "" || os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("OPENAI_BASE_URL") != ""
	if !configured {
		if m.record != "" {
			return nil, noop, errors.New("--record needs a model to record (--base-url / --model / --config)")
		}
		return nil, noop, nil
	}
	cfg, err := llm.LoadConfig(llm.Sources{File: m.config, Getenv: os.LookupEnv, Flags: llm.Overrides{BaseURL: m.baseURL, Model: m.model}})
	if err != nil {
		return nil, noop, err
	}
	chat, err := llm.NewOpenAIModel(cfg.OpenAIOptions())
	if err != nil {
		return nil, noop, err
	}
	var d memory.Distiller = distill.Model{Chat: chat}
	if m.record == "" {
		return d, noop, nil
	}
	f, err := os.OpenFile(m.record, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, noop, errors.New(strings.TrimSpace(m.record) + " already exists; a journal is never overwritten")
		}
		return nil, noop, err
	}
	return distill.NewRecorder(d, f), f.Close, nil
}

// showDream prints the Dreamer's pass after the task.
func showDream(d *runDisplay, o *taskrun.DreamOutcome) {
	if d.json != nil {
		ev := struct {
			Type    string             `json:"type"`
			Report  memory.DreamReport `json:"report"`
			Journal string             `json:"journal,omitempty"`
			Error   string             `json:"error,omitempty"`
		}{Type: "DreamReport", Report: o.Report, Journal: o.Journal}
		if o.Err != nil {
			ev.Error = o.Err.Error()
		}
		_ = d.json.Encode(ev)
		return
	}
	if o.Err != nil {
		fmt.Fprintf(d.w, "memory: the Dreamer's pass failed: %v\n", o.Err)
		return
	}
	rep := o.Report
	line := fmt.Sprintf("memory: Dreamer pass: %d consolidated, %d deferred, %d failed, %d bankrupt, %d forgotten",
		rep.Consolidated, rep.Deferred, rep.Failed, rep.Bankrupt, rep.Forgotten)
	if rep.LostWrites > 0 {
		line += fmt.Sprintf("; %d megram write(s) lost since the store was opened", rep.LostWrites)
	}
	if o.Journal != "" {
		line += "; distiller journal " + o.Journal
	}
	printLine(d.w, "%s", line)
}
