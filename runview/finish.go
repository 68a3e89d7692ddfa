package runview

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// Finish prints how the run ended on out (its summary, where the trace is, how to replay
// it) and the run's error on errw, after the result it ended. It reports whether the
// task was accepted or succeeded (taskrun.Accepted).
func (d *Display) Finish(out, errw io.Writer, res taskrun.Result, runErr error) (accepted bool) {
	sum := taskrun.Summarize(res.TaskResult, res.TracePath, res.Pipeline, runErr)
	path := res.TracePath
	if d.json != nil {
		_ = d.json.Encode(struct {
			taskrun.Summary
			Cut *trace.Cut `json:"trace_incomplete,omitempty"`
		}{sum, Cut(res)})
	} else {
		fmt.Fprintln(out)
		if res.Failure != nil {
			// The FinalResult's lines above gave its summary and next moves: once is enough.
			if details := textview.TermFailure(res.Failure).Details(); details != "" {
				fmt.Fprint(out, details)
				fmt.Fprintln(out)
			}
		}
		fmt.Fprintf(out, "%s: %s (objective %s) after %d iteration(s) · %d model call(s), %d tokens\n",
			res.Result.Run, res.Result.Outcome, res.Result.Objective, res.Result.Iterations, sum.Calls, sum.Usage.TotalTokens)
		switch {
		case res.TraceCut != nil:
			fmt.Fprintf(out, "the trace in %s is incomplete: it ends at line %d\n", path, res.TraceLines)
		case taskrun.Canceled(runErr):
			fmt.Fprintf(out, "stopped on request; the trace up to that point is in %s\n", path)
			fmt.Fprintf(out, "Resume it: spine resume %s\n", path)
		default:
			fmt.Fprintf(out, "trace written to %s\n", path)
		}
		fmt.Fprintf(out, "Replay and check it: spine replay --check %s\n", path)
		if res.TraceHead != "" {
			// The chain shows an edit inside the file; this copy outside it shows a file
			// rewritten whole or cut short. It is the last line on the file, not the last
			// one encoded.
			fmt.Fprintf(out, "Its last line's hash is %s: keep it to tell whether the file is ever rewritten\n", res.TraceHead)
		}
	}
	if runErr != nil && !taskrun.Canceled(runErr) {
		fmt.Fprintf(errw, "spine run: %v\n", runErr) // the run's error, after the result it ended
	}
	return taskrun.Accepted(res.TaskResult, runErr)
}

// Cut is where res's trace was cut short (a full disk), nil when every line reached the
// file.
func Cut(res taskrun.Result) *trace.Cut {
	return trace.CutAt(trace.Mark{Line: res.TraceLines, Head: res.TraceHead}, res.TraceCut)
}

// Incomplete ends the output of a run whose trace was cut short: the FinalResult the
// trace could not take, then, as the last line on errw, where the file ends. For a trace
// that is whole it prints nothing and reports false.
func Incomplete(errw io.Writer, res taskrun.Result) (cut bool) {
	if res.TraceCut == nil {
		return false
	}
	if res.Final != nil {
		if b, err := json.Marshal(res.Final); err == nil {
			termtext.Printf(errw, "spine run: the FinalResult the trace could not take: %s", b)
		}
	}
	termtext.Printf(errw, "spine run: the trace %s is incomplete (%v): %s", res.TracePath, res.TraceCut, Cut(res).Where())
	return true
}
