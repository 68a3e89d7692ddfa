// Package fleettext renders the fleet's answers for a terminal: the task statuses of
// `spine status`, the Auditor's answer of `spine audit query`, what `spine audit
// --follow` shows and the work-dir snapshots of `spine snapshot ls|gc`. A view takes
// fleet's values and an io.Writer; it connects to nothing. What a task or a run says
// came from a person or a model: it is written only as escaped lines (termtext).
package fleettext

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/snapshot"
)

// Statuses is one line a task, then the counts.
func Statuses(w io.Writer, sts []fleet.Status) {
	counts := map[string]int{}
	for _, st := range sts {
		counts[st.State]++
		out := st.Outcome()
		if out == "" {
			out = "-"
		}
		termtext.Printf(w, "%-22s %-8s %-16s %d attempt(s)  %s", st.ID, st.State, out, len(st.Attempts), termtext.OneLine(st.Text, 60))
	}
	termtext.Printf(w, "%d task(s): %d queued, %d running, %d finished", len(sts), counts[fleet.Queued], counts[fleet.Running], counts[fleet.Finished])
}

// Status is a task with its attempts.
func Status(w io.Writer, st fleet.Status) {
	termtext.Printf(w, "%s  %s  submitted %s", st.ID, st.State, st.SubmittedAt.Format(time.RFC3339))
	termtext.Printf(w, "  %s", termtext.OneLine(st.Text, 100))
	for _, a := range st.Attempts {
		mark := " "
		if a.N == st.Accepted {
			mark = "*"
		}
		line := fmt.Sprintf(" %s attempt %d on %s: %s (run %s", mark, a.N, a.Worker, a.State, a.RunID)
		if a.Trace != "" {
			line += ", trace stored"
		}
		if a.SignedBy != "" {
			line += ", signed by " + a.SignedBy
		}
		if a.Resumed != nil {
			line += fmt.Sprintf(", resumed from attempt %d's line %d", a.Resumed.Attempt, a.Resumed.Line)
			if a.Resumed.Snapshot != "" {
				line += fmt.Sprintf(", work dir restored from snapshot %.12s", a.Resumed.Snapshot)
			}
		}
		termtext.Printf(w, "%s)", line)
		if a.Error != "" {
			termtext.Printf(w, "     did not start: %s", wholeLine(a.Error))
		}
	}
	if o := st.Outcome(); o != "" {
		termtext.Printf(w, "  outcome: %s", o)
	}
	if st.Final != nil && strings.TrimSpace(st.Final.Summary) != "" {
		termtext.Printf(w, "  summary: %s", wholeLine(st.Final.Summary))
	}
	if st.Error != "" {
		termtext.Printf(w, "  error: %s", wholeLine(st.Error))
	}
}

// AuditAnswer is each matched run with its roles' figures and its findings, then
// the roles that drifted.
func AuditAnswer(w io.Writer, ans fleet.AuditAnswer) {
	for _, r := range ans.Runs {
		termtext.Printf(w, "%s  %s  ended %s  %s", r.Run, r.Outcome, r.Ended.UTC().Format(time.RFC3339), textview.Plural(len(r.Findings), "finding"))
		for _, f := range r.Roles {
			termtext.Printf(w, "  %-4s %3d call(s) %7d tokens %7d ms  %d correction(s)  %d/%d result(s) failed",
				f.Role, f.Calls, f.Tokens, f.LatencyMS, f.Corrections, f.Failed, f.Results)
		}
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %s\n", textview.FindingLine(f))
		}
	}
	fmt.Fprintf(w, "%s matched", textview.Plural(len(ans.Runs), "run"))
	if len(ans.Drift) == 0 {
		fmt.Fprintln(w, "; no role drifted")
		return
	}
	fmt.Fprintln(w, "; drift:")
	for _, d := range ans.Drift {
		termtext.Printf(w, "  %s (runs %s)", d, strings.Join(d.Runs, ", "))
	}
}

// wholeLine is a reason on one line, never cut: it says what to do at its end.
func wholeLine(s string) string { return termtext.OneLine(s, len(s)+1) }

// Follow is one event of the fleet's live Auditor (spine audit --follow): a finding of a
// run, or the run's end.
func Follow(w io.Writer, e fleet.FollowEvent) {
	switch {
	case e.Finding != nil:
		termtext.Printf(w, "%s: %s", e.Run, textview.FindingLine(*e.Finding))
	case e.Ended && e.Error != "":
		termtext.Printf(w, "%s: ended without a FinalResult (%s), %s", e.Run, wholeLine(e.Error), textview.Plural(e.Messages, "message"))
	case e.Ended:
		termtext.Printf(w, "%s: ended (FinalResult), %s", e.Run, textview.Plural(e.Messages, "message"))
	}
}

// Follower is what spine audit --follow shows as it goes: the live Auditor's events
// (Follow) and the fleet's periodic reports, as JSON lines on Raw with JSON, else as text
// on Text. The report's goroutine and the follower share it: each write is whole.
type Follower struct {
	Text, Raw, Err io.Writer
	JSON           bool
	mu             sync.Mutex
}

// Event shows one event of the live Auditor.
func (f *Follower) Event(e fleet.FollowEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.JSON {
		enc := json.NewEncoder(f.Raw)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(e)
		return
	}
	Follow(f.Text, e)
}

// Report shows one of the fleet's periodic reports, or on Err why it could not be made
// (fleet.Client.ReportEvery's callback).
func (f *Follower) Report(rep fleet.Report, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case err != nil:
		fmt.Fprintf(f.Err, "spine audit: the report: %v\n", err)
	case f.JSON:
		_ = json.NewEncoder(f.Raw).Encode(rep)
	default:
		termtext.Printf(f.Text, "%s", rep.Line())
	}
}

// Snapshots is the table of `spine snapshot ls`: one stored snapshot a row, oldest first.
func Snapshots(w io.Writer, list []snapshot.Info) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROOT\tSTORED\tFILES\tBYTES")
	for _, i := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", i.Root, i.Stored.UTC().Format("2006-01-02T15:04:05Z"), i.Files, i.Bytes)
	}
	return tw.Flush()
}

// SnapshotGC is what `spine snapshot gc` removed, or with dryRun would remove (each
// object listed), and kept, after reading traces traces.
func SnapshotGC(w io.Writer, res snapshot.GCResult, traces int, dryRun bool) {
	verb := "removed"
	if dryRun {
		verb = "would remove"
		for _, g := range res.Gone {
			fmt.Fprintf(w, "would remove %s\n", g)
		}
	}
	fmt.Fprintf(w, "%s %d snapshots and %d file contents (%d bytes); kept %d snapshots (%d traces read)\n", verb, res.Manifests, res.Blobs, res.Bytes, res.Kept, traces)
}
