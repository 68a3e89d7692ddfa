package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/internal/linecap"
	tracereport "github.com/agentspine/spine/report"
	"github.com/spf13/cobra"
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
			RunE: func(c *cobra.Command, args []string) error {
				if len(args) != 1 {
					return usageErrorf("expected one trace file, got %d arguments", len(args))
				}
				return runTraceHTML(io, args[0], out)
			},
		}
		c.Flags().StringVarP(&out, "output", "o", "", "write the page to `FILE` (- for stdout; default: the trace's path with .html for .jsonl)")
		return c
	})
}

func runTraceHTML(io stdio, path, out string) error {
	fail := func(format string, a ...any) error {
		return errors.New(linecap.BoundQuotes(fmt.Sprintf(format, a...)))
	}
	if out == "" {
		out = htmlPath(path)
	}
	if out != "-" && filepath.Clean(out) == filepath.Clean(path) {
		return fail("%s: the page would overwrite the trace; name another file with -o", path)
	}
	f, err := readTraceFile("html", path, io.err)
	if err != nil {
		return fail("%v", err)
	}
	if ce := f.Broken(); ce != nil {
		fmt.Fprintf(io.err, "spine trace html: warning: %s: hash chain broken at %v; the page says so, and shows the lines from line %d on as read, not verified\n", path, ce, ce.Line)
	}
	r, err := tracereport.Build(path, f)
	if err != nil {
		return fail("%v", err)
	}
	var page bytes.Buffer
	if err := tracereport.Render(&page, r); err != nil {
		return fail("%s: %v", path, err)
	}
	if out == "-" {
		if _, err := io.rawOut.Write(page.Bytes()); err != nil {
			return fail("%v", err)
		}
		return nil
	}
	if err := writeFileAtomic(out, page.Bytes()); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(io.out, "wrote %s: %d round(s), %d exchange(s), %d message(s), %d finding(s)\n",
		out, len(r.Loss.Rounds), r.Totals.Exchanges, r.Totals.Messages, len(r.Findings))
	return nil
}

// htmlPath is where the page of a trace goes by default: beside it, .jsonl made .html.
func htmlPath(trace string) string {
	return strings.TrimSuffix(trace, ".jsonl") + ".html"
}

// writeFileAtomic writes data to path through a temporary file in the same directory,
// so a reader never sees half a page and a failed write leaves any old page whole.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil { // about the file asked for, not the temporary one
		return fmt.Errorf("%s: cannot write in %s: %w", path, filepath.Dir(path), cmp.Or(errors.Unwrap(err), err))
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return fmt.Errorf("%s is a directory: name a file with -o", path)
		}
		return fmt.Errorf("%s: %w", path, cmp.Or(errors.Unwrap(err), err))
	}
	return nil
}
