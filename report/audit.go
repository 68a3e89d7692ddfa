package report

import (
	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/spine/trace"
)

// findings runs the Auditor with its default config over the messages of a trace read
// whole.
func findings(name string, f *trace.File) (audit.TraceResult, error) {
	return audit.AuditTrace(audit.DefaultConfig(), name, f)
}
