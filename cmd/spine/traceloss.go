package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/spine"
)

// `spine trace loss` reads GGS's rounds back out of a trace: the signals fact GGS's gate
// writes each round, the rule that fired on it and the directive R7 sent. It reads only;
// the numbers are the recorded ones, never recomputed.

// traceSubcommands are the verbs of `spine trace` besides show, which trace.go runs itself.
var traceSubcommands = map[string]func(ctx context.Context, io stdio, args []string) int{
	"loss": runTraceLoss,
	"diff": runTraceDiff,
}

var traceLossCmd = &command{
	name:    "trace loss",
	summary: "one row per GGS round of each trace: D, P, Ω, L, ∇L, directive, rule, blocked tools and targets",
	usage:   "[--json] TRACE...",
}

// lossRound is one GGS round as the trace recorded it.
type lossRound struct {
	Round          int      `json:"round"`
	D              float64  `json:"D"`
	P              float64  `json:"P"`
	Omega          float64  `json:"Omega"`
	L              float64  `json:"L"`
	GradL          float64  `json:"grad_l"`
	Directive      string   `json:"directive"`
	Rule           string   `json:"rule"`
	BlockedTools   []string `json:"blocked_tools"`
	BlockedTargets []string `json:"blocked_targets"`
}

// lossTrace is one trace's rounds; Epsilon (from the header's params) sets the direction
// arrow of ∇L as the pipeline display draws it.
type lossTrace struct {
	Trace   string      `json:"trace"`
	Epsilon float64     `json:"-"`
	Rounds  []lossRound `json:"rounds"`
}

func runTraceLoss(_ context.Context, io stdio, args []string) int {
	fs := newFlags(traceLossCmd, io)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(io.err, "spine trace loss: expected one or more trace files")
		return exitUsage
	}
	code := exitOK
	traces := []lossTrace{}
	for _, path := range fs.Args() {
		lt, err := readLoss(path, io.err)
		if err != nil {
			fmt.Fprintf(io.err, "spine trace loss: %s\n", linecap.BoundQuotes(err.Error()))
			code = exitFail
			continue
		}
		traces = append(traces, *lt)
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(traces); err != nil {
			fmt.Fprintf(io.err, "spine trace loss: %v\n", err)
			return exitFail
		}
		return code
	}
	for i, lt := range traces {
		if i > 0 {
			fmt.Fprintln(io.out)
		}
		writeLossTable(io.out, lt)
	}
	return code
}

// readLoss reads a trace's rounds. A torn last line is reported on warn and the rounds
// before it kept; any other unreadable line is an error.
func readLoss(path string, warn io.Writer) (*lossTrace, error) {
	tf, err := readWholeTrace("loss", path, warn)
	if err != nil {
		return nil, err
	}
	lt := &lossTrace{Trace: path, Rounds: []lossRound{}}
	var cur *lossRound
	for _, l := range tf.Lines {
		switch l.Kind {
		case spine.EvHeader:
			var h struct {
				Params struct {
					Epsilon float64 `json:"epsilon"`
				} `json:"params"`
			}
			if err := l.Decode(&h); err != nil {
				return nil, fmt.Errorf("%s:%d: header: %v", path, l.Line, err)
			}
			lt.Epsilon = h.Params.Epsilon
		case spine.EvFactAsserted, spine.EvFactUpdated:
			var e struct {
				Fact struct {
					Kind    string `json:"kind"`
					Payload struct {
						Round *int    `json:"round"`
						D     float64 `json:"D"`
						P     float64 `json:"P"`
						Omega float64 `json:"omega"`
						L     float64 `json:"L"`
						Grad  float64 `json:"grad"`
					} `json:"payload"`
				} `json:"fact"`
			}
			if err := l.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s:%d: %s event: %v", path, l.Line, l.Kind, err)
			}
			s := e.Fact.Payload
			// Round 0 is the seed GGS asserts before any report: no loss yet. A fact of
			// another rule set that happens to be named signals has no round at all.
			if e.Fact.Kind != "signals" || s.Round == nil || *s.Round < 1 {
				continue
			}
			if cur == nil || cur.Round != *s.Round {
				lt.Rounds = append(lt.Rounds, lossRound{Round: *s.Round})
				cur = &lt.Rounds[len(lt.Rounds)-1]
			}
			cur.D, cur.P, cur.Omega, cur.L, cur.GradL = s.D, s.P, s.Omega, s.L, s.Grad
		case spine.EvRuleFired:
			var e struct {
				Rule string `json:"rule"`
			}
			if err := l.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s:%d: rule_fired event: %v", path, l.Line, err)
			}
			// The first rule to fire on a round's signals decides it.
			if cur != nil && cur.Rule == "" {
				cur.Rule = e.Rule
			}
		case spine.EvMessage:
			var e struct {
				Type    string `json:"type"`
				Payload struct {
					Directive      string   `json:"directive"`
					BlockedTools   []string `json:"blocked_tools"`
					BlockedTargets []string `json:"blocked_targets"`
				} `json:"payload"`
			}
			if err := l.Decode(&e); err != nil {
				return nil, fmt.Errorf("%s:%d: message event: %v", path, l.Line, err)
			}
			if cur == nil || cur.Directive != "" {
				continue
			}
			if e.Type == contract.TypePlanDirective || e.Type == contract.TypeFinalResult {
				cur.Directive = e.Payload.Directive
				cur.BlockedTools = nonNil(e.Payload.BlockedTools)
				cur.BlockedTargets = nonNil(e.Payload.BlockedTargets)
			}
		}
	}
	for i := range lt.Rounds {
		lt.Rounds[i].BlockedTools = nonNil(lt.Rounds[i].BlockedTools)
		lt.Rounds[i].BlockedTargets = nonNil(lt.Rounds[i].BlockedTargets)
	}
	return lt, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeLossTable prints one trace's rounds, headed by its path, numbers as the pipeline
// display prints them.
func writeLossTable(w io.Writer, lt lossTrace) {
	fmt.Fprintln(w, lt.Trace)
	if len(lt.Rounds) == 0 {
		fmt.Fprintln(w, "  no GGS rounds (no signals fact with a round)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  round\tD\tP\tΩ\tL\t∇L\tdirective\trule\tblocked tools\tblocked targets")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, r := range lt.Rounds {
		fmt.Fprintf(tw, "  %d\t%.3f\t%.3f\t%.3f\t%.3f\t%+.3f %s\t%s\t%s\t%s\t%s\n",
			r.Round, r.D, r.P, r.Omega, r.L, r.GradL, gradArrow(r.GradL, lt.Epsilon),
			dash(r.Directive), dash(r.Rule), dash(strings.Join(r.BlockedTools, ", ")), dash(strings.Join(r.BlockedTargets, "; ")))
	}
	tw.Flush()
}

// gradArrow is the direction lossLine draws for ∇L.
func gradArrow(grad, epsilon float64) string {
	switch {
	case grad < -epsilon:
		return "↓"
	case grad > epsilon:
		return "↑"
	}
	return "→"
}

// readWholeTrace reads a spine trace for a `spine trace` subcommand: a file that is not a
// spine trace, or has an unreadable line, is an error; an incomplete recording is said on
// warn and read up to where it ends.
func readWholeTrace(sub, path string, warn io.Writer) (*spine.TraceFile, error) {
	tf, err := spine.ReadTraceFile(path)
	if tf == nil {
		return nil, err
	}
	if herr := spine.CheckTraceHeader(path, tf, err); herr != nil {
		return nil, herr
	}
	if err != nil {
		return nil, err
	}
	if inc := tf.Incomplete(); inc != "" {
		fmt.Fprintf(warn, "spine trace %s: %s: %s\n", sub, path, inc)
	}
	return tf, nil
}
