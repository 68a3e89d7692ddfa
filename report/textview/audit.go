package textview

import (
	"encoding/json"
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

// FindingsJSON writes one audited trace's findings as JSON, one AuditReport a line with
// a "trace" field naming its trace.
func FindingsJSON(w io.Writer, path string, findings []contract.AuditReport) error {
	for _, f := range findings {
		line, err := json.Marshal(struct {
			Trace string `json:"trace"`
			contract.AuditReport
		}{path, f})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n", line)
	}
	return nil
}

// Findings prints one audited trace: its path with the counts, then a finding a line.
func Findings(w io.Writer, path string, messages int, findings []contract.AuditReport) {
	termtext.Printf(w, "%s: %s, %s", path, Plural(messages, "message"), Plural(len(findings), "finding"))
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
	Traces, Findings, Errors, Warnings int      // Traces: the traces audited, whole or in part
	Broken                             int      // audited traces whose hash chain is broken
	Unreadable                         []string // files not read as a trace at all: not audited
	Refused                            []string // traces the trusted keys do not vouch for: not audited
	Failed                             bool     // a trace could not be read or audited
}

// NotRead counts a file that could not be read as a trace: it is not audited.
func (t *AuditTally) NotRead(path string) {
	t.Unreadable = append(t.Unreadable, path)
	t.Failed = true
}

// Refuse counts a trace whose signature the trusted keys refuse: it is not audited.
func (t *AuditTally) Refuse(path string) {
	t.Refused = append(t.Refused, path)
	t.Failed = true
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

// Summary is the audit's closing line: the traces audited and their findings, then the
// files that were not audited, named: "no trace audited; 1 unreadable: empty.jsonl".
func (t AuditTally) Summary() string {
	var line string
	switch {
	case t.Traces == 0 && len(t.Unreadable)+len(t.Refused) > 0:
		line = "no trace audited"
	case t.Findings == 0:
		line = Plural(t.Traces, "trace") + " audited" + t.brokenNote() + ": no findings"
	default:
		line = fmt.Sprintf("%s audited%s: %s (%s, %s)", Plural(t.Traces, "trace"), t.brokenNote(), Plural(t.Findings, "finding"), Plural(t.Errors, "error"), Plural(t.Warnings, "warning"))
	}
	if n := len(t.Unreadable); n > 0 {
		line += fmt.Sprintf("; %d unreadable: %s", n, nameList(t.Unreadable))
	}
	if n := len(t.Refused); n > 0 {
		line += fmt.Sprintf("; %d refused (signature): %s", n, nameList(t.Refused))
	}
	return termtext.Line(line)
}

func (t AuditTally) brokenNote() string {
	if t.Broken == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d with a broken hash chain)", t.Broken)
}

// nameList names up to three files, then says how many more: the summary stays a line.
func nameList(paths []string) string {
	const shown = 3
	if len(paths) <= shown {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:shown], ", "), len(paths)-shown)
}

// Trace counts one audited trace (audit.AuditFile's result and error) and says on errw,
// each line headed by prefix, what was wrong with it: a broken chain, a line that could
// not be read, an unchained or incomplete recording. It reports whether the trace was
// read as one, so that its findings are listed.
func (t *AuditTally) Trace(errw io.Writer, prefix, path string, res audit.TraceResult, err error) bool {
	if err != nil && res.Chain.Format == "" {
		// Not read as a trace at all: said once, counted as unreadable, not audited.
		fmt.Fprintf(errw, "%s: %s\n", prefix, linecap.BoundQuotes(err.Error()))
		t.NotRead(path)
		return false
	}
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
	if res.Incomplete != "" {
		fmt.Fprintf(errw, "%s: %s: %s\n", prefix, path, res.Incomplete)
	}
	t.Add(res.Findings)
	return true
}

// Audited shows one trace's audit (audit.AuditFile's answer) under prefix and counts
// it. A trace the trusted keys do not vouch for is said on errw and refused, not
// audited; one read as a trace has what was wrong with it said (Trace) and its findings
// listed, as JSON lines on raw with asJSON, else as text on w.
func (t *AuditTally) Audited(w, raw, errw io.Writer, prefix, path string, res audit.TraceResult, err error, asJSON bool) {
	if errors.As(err, new(*trace.SignatureError)) {
		fmt.Fprintf(errw, "%s: %v\n", prefix, err)
		t.Refuse(path)
		return
	}
	if !t.Trace(errw, prefix, path, res, err) {
		return // not read as a trace at all: there is nothing audited to list
	}
	if asJSON {
		if err := FindingsJSON(raw, path, res.Findings); err != nil {
			fmt.Fprintf(errw, "%s: %v\n", prefix, err)
			t.Failed = true
		}
		return
	}
	Findings(w, path, res.Messages, res.Findings)
}

// sameLine reports whether err is a malformed-line error at line n, which the chain
// check then reports too: one message is enough.
func sameLine(err error, n int) bool {
	var te *trace.Error
	return errors.As(err, &te) && te.Line == n
}
