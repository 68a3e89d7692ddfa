package contract

// Audit severities.
const (
	SeverityInfo    = "info"
	SeverityWarning = "warning"
	SeverityError   = "error"
)

// AuditReport is one finding of the Auditor. Evidence lists the trace seq numbers of the
// messages that prove it.
type AuditReport struct {
	Kind     string  `json:"kind"`
	Severity string  `json:"severity"`
	TaskID   string  `json:"task_id,omitempty"`
	Message  string  `json:"message"`
	Evidence []int64 `json:"evidence"`
}
