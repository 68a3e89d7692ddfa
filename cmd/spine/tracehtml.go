package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/linecap"
	tracereport "github.com/agentspine/spine/report"
)

// `spine trace html` writes one page that shows a recorded run whole (package report):
// the rounds, the loss plot, the rule timeline, every exchange and the Auditor's
// findings. It reads the trace with the verdicts of trace show and writes nothing for a
// file that is not a spine trace.

func init() {
	addCommand("trace", func(io stdio) *cobra.Command {
		var out string
		c := &cobra.Command{
			Use:   "html [-o FILE] TRACE",
			Short: "write one self-contained HTML page of a trace: rounds, loss plot, rule timeline, every exchange, audit findings",
			Long: `Write one self-contained HTML page of a trace, readable offline: the pipeline round by
round, the loss plot (D, P, Ω and L per round with the δ, ρ and θ lines and each round's
directive), the rule timeline with conflict sets and tie-breakers, every exchange and
message expandable to its full request and response, and the Auditor's findings.
The page goes to the trace's path with .html in place of .jsonl unless -o names
another file; -o - writes it to stdout.`,
			Args: cli.ExactArgsCounted(1, "one trace file"),
			RunE: func(c *cobra.Command, args []string) error {
				return runTraceHTML(io, args[0], out)
			},
		}
		c.Flags().StringVarP(&out, "output", "o", "", "write the page to `FILE` (- for stdout; default: the trace's path with .html for .jsonl)")
		return c
	})
}

func runTraceHTML(io stdio, path, out string) error {
	out, err := tracereport.PageFile(path, out)
	if err != nil {
		return err
	}
	f, err := readTraceFile("html", path, io.err)
	if err != nil {
		return err
	}
	if ce := f.Broken(); ce != nil {
		fmt.Fprintf(io.err, "spine trace html: warning: %s: hash chain broken at %v; the page says so, and shows the lines from line %d on as read, not verified\n", path, ce, ce.Line)
	}
	r, err := tracereport.WriteTracePage(path, f, out, io.rawOut)
	if err != nil {
		return errors.New(linecap.BoundQuotes(err.Error()))
	}
	if out != "-" {
		fmt.Fprintf(io.out, "wrote %s: %d round(s), %d exchange(s), %d message(s), %d finding(s)\n",
			out, len(r.Loss.Rounds), r.Totals.Exchanges, r.Totals.Messages, len(r.Findings))
	}
	return nil
}
