package report

import (
	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/spine"
	"github.com/agentspine/spine/spine/trace"
)

// findings runs the Auditor with its default config over the messages of a trace read
// whole. The Auditor's offline reader still takes spine's line form of a trace, which
// carries the same lines.
func findings(name string, f *trace.File) (audit.TraceResult, error) {
	tf := &spine.TraceFile{}
	for i := range f.Events {
		e := &f.Events[i]
		tf.Lines = append(tf.Lines, spine.TraceLine{Line: e.Line, Seq: e.Seq, T: e.Time.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"), Kind: e.Kind, H: e.H, Raw: e.Raw})
	}
	if f.Torn != nil {
		tf.Torn = &spine.TornLine{Line: f.Torn.Line, Bytes: f.Torn.Bytes}
	}
	return audit.AuditTrace(audit.DefaultConfig(), name, tf)
}
