package textview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/runlog"
)

// LossTables prints each trace's table (LossTable), a blank line between two.
func LossTables(w io.Writer, traces []runlog.Loss) {
	for i, lt := range traces {
		if i > 0 {
			fmt.Fprintln(w)
		}
		LossTable(w, lt)
	}
}

// LossJSON writes the traces' rounds as one indented JSON array.
func LossJSON(w io.Writer, traces []runlog.Loss) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(traces)
}

// LossTable prints one trace's GGS rounds, headed by its path, numbers as the pipeline
// display prints them.
func LossTable(w io.Writer, lt runlog.Loss) {
	fmt.Fprintln(w, termtext.Line(lt.Trace))
	if len(lt.Rounds) == 0 {
		fmt.Fprintln(w, "  no GGS rounds (no signals fact with a round)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  round\tD\tP\tΩ\tL\t∇L\tdirective\trule\tblocked tools\tblocked targets")
	// A cell is one line with no tab of its own, so the columns hold.
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return termtext.Line(s)
	}
	for _, r := range lt.Rounds {
		fmt.Fprintf(tw, "  %d\t%.3f\t%.3f\t%.3f\t%.3f\t%+.3f %s\t%s\t%s\t%s\t%s\n",
			r.Round, r.D, r.P, r.Omega, r.L, r.GradL, runlog.GradArrow(r.GradL, lt.Epsilon),
			dash(r.Directive), dash(r.Rule), dash(strings.Join(r.BlockedTools, ", ")), dash(strings.Join(r.BlockedTargets, "; ")))
	}
	tw.Flush()
}
