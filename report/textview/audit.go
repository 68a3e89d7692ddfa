package textview

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/trace"
)

// Findings prints one audited trace: its path with the counts, then a finding a line.
func Findings(w io.Writer, path string, messages int, findings []contract.AuditReport) {
	printLine(w, "%s: %s, %s", path, Plural(messages, "message"), Plural(len(findings), "finding"))
	for _, f := range findings {
		fmt.Fprintf(w, "  %s\n", FindingLine(f))
	}
}

// FindingLine renders a finding on one line: "[error] boundary_violation · task t6 · seq
// 4,5 · ...". Its message quotes the trace, so it is escaped.
func FindingLine(f contract.AuditReport) string {
	parts := []string{"[" + f.Severity + "] " + f.Kind}
	if f.TaskID != "" {
		parts = append(parts, "task "+f.TaskID)
	}
	seqs := make([]string, len(f.Evidence))
	for i, s := range f.Evidence {
		seqs[i] = strconv.FormatInt(s, 10)
	}
	parts = append(parts, "seq "+strings.Join(seqs, ","), f.Message)
	return termtext.Line(strings.Join(parts, " · "))
}

// AuditTally counts findings by severity across the traces of one audit.
type AuditTally struct {
	Traces, Findings, Errors, Warnings int
	Broken                             int  // traces whose hash chain is broken
	Failed                             bool // a trace could not be read or audited
}

// Add counts one trace's findings.
func (t *AuditTally) Add(findings []contract.AuditReport) {
	for _, f := range findings {
		t.Findings++
		switch f.Severity {
		case contract.SeverityError:
			t.Errors++
		case contract.SeverityWarning:
			t.Warnings++
		}
	}
}

// Summary is the audit's closing line.
func (t AuditTally) Summary() string {
	head := Plural(t.Traces, "trace") + " audited"
	if t.Broken > 0 {
		head += fmt.Sprintf(" (%d with a broken hash chain)", t.Broken)
	}
	if t.Findings == 0 {
		return head + ": no findings"
	}
	return fmt.Sprintf("%s: %s (%s, %s)", head, Plural(t.Findings, "finding"), Plural(t.Errors, "error"), Plural(t.Warnings, "warning"))
}

// Trace counts one audited trace (audit.AuditFile's result and error) and says on errw,
// each line headed by prefix, what was wrong with it: a broken chain, a line that could
// not be read, an unchained or incomplete recording. It reports whether the trace was
// read as one, so that its findings are listed.
func (t *AuditTally) Trace(errw io.Writer, prefix, path string, res audit.TraceResult, err error) bool {
	t.Traces++
	var broken *trace.ChainError
	switch {
	case errors.As(err, &broken):
		fmt.Fprintf(errw, "%s: %v; the findings below are on the trace as it now reads\n", prefix, err)
		t.Failed = true
		t.Broken++
	case err != nil && res.Broken != nil && !sameLine(err, res.Broken.Line):
		fmt.Fprintf(errw, "%s: %s: hash chain broken at %v\n", prefix, path, res.Broken)
		t.Broken++
		fallthrough
	case err != nil:
		if res.Messages > 0 {
			fmt.Fprintf(errw, "%s: %s; audited the messages before it\n", prefix, linecap.BoundQuotes(err.Error()))
		} else {
			fmt.Fprintf(errw, "%s: %s\n", prefix, linecap.BoundQuotes(err.Error()))
		}
		t.Failed = true
	case !res.Chain.Chained && res.Chain.Format != "":
		fmt.Fprintf(errw, "%s: %s: %s: its lines carry no hashes to verify\n", prefix, path, res.Chain)
	}
	if err != nil && res.Chain.Format == "" {
		return false // not read as a trace at all: there is nothing audited to list
	}
	if res.Incomplete != "" {
		fmt.Fprintf(errw, "%s: %s: %s\n", prefix, path, res.Incomplete)
	}
	t.Add(res.Findings)
	return true
}

// sameLine reports whether err is a malformed-line error at line n, which the chain
// check then reports too: one message is enough.
func sameLine(err error, n int) bool {
	var te *trace.Error
	return errors.As(err, &te) && te.Line == n
}
