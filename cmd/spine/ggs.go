package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine"
)

func init() {
	register(&command{
		name:    "ggs",
		summary: "run the Goal Gradient Solver as a JSONL filter over bus messages",
		usage:   "[--rules FILE] [--json-errors] < messages.jsonl",
		run:     runGGS,
	})
}

// runGGS reads one bus message per line on stdin and writes one output message per
// valid line on stdout. A line it cannot use is reported on stderr with its number and
// skipped; the exit status is then 1.
func runGGS(ctx context.Context, io stdio, args []string) int {
	c := commands["ggs"]
	fs := newFlags(c, io)
	rulesFile := fs.String("rules", "", "rule file to decide with instead of the built-in rules/ggs.yaml")
	jsonErrors := fs.Bool("json-errors", false, `report bad lines on stderr as JSON: {"line": N, "error": "..."}`)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "spine ggs: unexpected argument %q: messages are read from stdin\n", fs.Arg(0))
		return exitUsage
	}
	var rs *spine.RuleSet
	var err error
	if *rulesFile != "" {
		rs, err = spine.LoadRulesFile(*rulesFile)
	} else {
		rs, err = spine.LoadRulesFS(rules.FS, rules.GGS)
	}
	if err == nil {
		var solver *ggs.Solver
		if solver, err = ggs.New(rs); err == nil {
			return filterGGS(ctx, io, solver, *jsonErrors)
		}
	}
	// Errors of package ggs already start with "ggs: ".
	if msg := err.Error(); strings.HasPrefix(msg, "ggs: ") {
		fmt.Fprintf(io.err, "spine %s\n", msg)
	} else {
		fmt.Fprintf(io.err, "spine ggs: %s\n", msg)
	}
	return exitFail
}

func filterGGS(ctx context.Context, io stdio, solver *ggs.Solver, jsonErrors bool) int {
	status := exitOK
	report := func(line int, err error) {
		status = exitFail
		if jsonErrors {
			b, _ := json.Marshal(struct {
				Line  int    `json:"line"`
				Error string `json:"error"`
			}{line, err.Error()})
			fmt.Fprintf(io.err, "%s\n", b)
			return
		}
		fmt.Fprintf(io.err, "line %d: %v\n", line, err)
	}
	in := bufio.NewReader(io.in)
	var out []byte
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(io.err, "spine ggs: %v\n", err)
			return exitFail
		}
		line, last, rerr := readLine(in)
		if rerr != nil {
			fmt.Fprintf(io.err, "spine ggs: reading stdin: %v\n", rerr)
			return exitFail
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			if m, err := ggs.DecodeMessage(text); err != nil {
				report(n, err)
			} else if o, err := solver.Handle(ctx, m); err != nil {
				report(n, err)
			} else if out, err = ggs.AppendOutput(out[:0], o); err != nil {
				report(n, err)
			} else if _, err := io.out.Write(out); err != nil {
				fmt.Fprintf(io.err, "spine ggs: writing stdout: %v\n", err)
				return exitFail
			}
		}
		if last {
			return status
		}
	}
}

// readLine returns the next line of r, of any length, and whether it was the last.
func readLine(r *bufio.Reader) (line []byte, last bool, err error) {
	line, err = r.ReadBytes('\n')
	if errors.Is(err, io.EOF) {
		return line, true, nil
	}
	return line, false, err
}
