package taskrun

import (
	"context"
	"os"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
)

// ForkOptions say where a recorded run is forked and with what rules.
type ForkOptions struct {
	// At is a seq of the recording: the fork starts at the cycle boundary at or before
	// it (replay.ForkPoint).
	At int64
	// RulesPath names the edited rule file; Rules is its source. Empty Rules: the fork
	// keeps the recorded rules (and goes live at the boundary all the same).
	RulesPath string
	Rules     []byte
	Host      string // where the fork runs, for its resumed line
}

// ReadForkRules reads and checks an edited rule file for a fork: rules that do not load
// are refused before anything runs, not recorded as a failed reload.
func ReadForkRules(path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := engine.LoadRules(path, src); err != nil {
		return nil, err
	}
	return src, nil
}

// Fork branches the run o's trace recorded: the recording is re-run as Resume re-runs
// it, every call served from it, up to the cycle boundary at or before opts.At; there
// the fork's resumed line is written, the edited rules applied as a recorded
// rules_reloaded (so the fork replays), and the run goes on live with cfg's endpoint. A
// run that ended can be forked. The new trace (cfg.TracePath, default beside the
// recording) holds the recording's lines before the boundary byte for byte.
//
// The work dir is the caller's: recorded tool calls are served, not made again, so the
// files must be as they were at the boundary for the live part to see what the
// recorded run saw there.
func Fork(ctx context.Context, o *Opened, cfg Config, opts ForkOptions) (Result, replay.Switch, error) {
	b, err := replay.ForkPoint(o.Recording, opts.At)
	if err != nil {
		return Result{}, replay.Switch{}, err
	}
	return continueRecording(ctx, o, cfg, replay.ContinueOptions{Rerun: true, Host: opts.Host,
		Fork: &b, RulesName: opts.RulesPath, Rules: opts.Rules})
}
