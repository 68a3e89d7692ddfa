package ggs

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// LoadRules loads the rule file at path, or the shipped rules/ggs.yaml when path is "".
func LoadRules(path string) (*ruleset.RuleSet, error) {
	if path != "" {
		return engine.LoadRulesFile(path)
	}
	return engine.LoadRulesFS(rules.FS, rules.GGS)
}

// NewFromFile is a Solver deciding with the rules LoadRules(path) loads.
func NewFromFile(path string) (*Solver, error) {
	rs, err := LoadRules(path)
	if err != nil {
		return nil, err
	}
	return New(rs)
}

// Check refuses a negative count; its error names the count as a flag spells it.
func (b Bound) Check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"max-open-tasks", b.MaxOpen}, {"idle-lines", b.IdleLines}, {"max-evicted-tasks", b.MaxEvicted}} {
		if f.v < 0 {
			return fmt.Errorf("%s %d: want a count ≥ 0 (0: no limit)", f.name, f.v)
		}
	}
	return nil
}

// StreamReport says on a filter's error stream what it did not decide (a bad line, with
// its number) and which tasks it evicted or forgot, as text or, with JSON, one JSON
// object per line. Its Hooks are a Filter run's StreamHooks.
type StreamReport struct {
	// Text is the error stream for a person (its writer escapes what a terminal would
	// obey); Raw is the same stream byte for byte, for JSON lines.
	Text, Raw io.Writer
	JSON      bool
	Bound     Bound // the filter's, for the words of an eviction
	// BadLines counts the lines reported as not decided.
	BadLines int
}

// Hooks reports through r.
func (r *StreamReport) Hooks() StreamHooks {
	return StreamHooks{Bad: r.bad, Evicted: r.evicted}
}

// bad says why input line n was not decided.
func (r *StreamReport) bad(line int, err error) {
	r.BadLines++
	// A decoder's error may quote the line's values whole; a line may be megabytes.
	msg := linecap.BoundQuotes(err.Error())
	if r.JSON {
		b, _ := json.Marshal(struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		}{line, msg})
		fmt.Fprintf(r.Raw, "%s\n", b)
		return
	}
	fmt.Fprintf(r.Text, "line %d: %s\n", line, msg)
}

// evicted says that a task was evicted, or its eviction forgotten.
func (r *StreamReport) evicted(e Eviction) {
	why := e.Why(r.Bound)
	if e.Reason == EvictionForgotten {
		if r.JSON {
			b, _ := json.Marshal(struct {
				Line      int    `json:"line"`
				Forgotten string `json:"forgotten"`
				EvictedAt int    `json:"evicted_at"`
				Reason    string `json:"reason"`
			}{e.Line, e.TaskID, e.EvictedAt, why})
			fmt.Fprintf(r.Text, "%s\n", b)
			return
		}
		fmt.Fprintf(r.Text, "line %d: forgot evicted task %s (evicted after line %d): %s\n", e.Line, linecap.ExcerptString(e.TaskID), e.EvictedAt, why)
		return
	}
	if r.JSON {
		b, _ := json.Marshal(struct {
			Line    int    `json:"line"`
			Evicted string `json:"evicted"`
			Reason  string `json:"reason"`
		}{e.Line, e.TaskID, why})
		fmt.Fprintf(r.Raw, "%s\n", b)
		return
	}
	fmt.Fprintf(r.Text, "line %d: evicted task %s: %s\n", e.Line, linecap.ExcerptString(e.TaskID), why)
}

// Why says why the task was evicted, or its eviction forgotten, under the bound b, and
// what a later message for it does.
func (e Eviction) Why(b Bound) string {
	switch e.Reason {
	case EvictionForgotten:
		return fmt.Sprintf("more than %d evicted tasks remembered (--max-evicted-tasks); a later message for it starts a new task", b.MaxEvicted)
	case EvictedIdle:
		return fmt.Sprintf("no message for it in %d lines (--idle-lines); a later message for it is refused", b.IdleLines)
	}
	return fmt.Sprintf("more than %d tasks open (--max-open-tasks), and it was the least recently used; a later message for it is refused", b.MaxOpen)
}
