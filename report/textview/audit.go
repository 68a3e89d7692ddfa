package textview

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
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
