package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/contract"
)

// AuditQuery is an operator's question to the fleet's Auditor: the runs of a task or a
// run id, the figures of a role, the runs that ended in a time window. Empty fields
// match everything.
type AuditQuery struct {
	Run   string    `json:"run,omitempty"` // a run id, or a task id (its accepted run)
	Role  string    `json:"role,omitempty"`
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
}

// RunReport is what the Auditor knows of one finished run.
type RunReport struct {
	Task     string                 `json:"task"`
	Run      string                 `json:"run"`
	Ended    time.Time              `json:"ended"`
	Outcome  string                 `json:"outcome"`
	Roles    []RoleRun              `json:"roles"`
	Findings []contract.AuditReport `json:"findings"`
}

// AuditAnswer is the runs a query matched, oldest first, and the drift among them.
type AuditAnswer struct {
	Query AuditQuery  `json:"query"`
	Runs  []RunReport `json:"runs"`
	Drift []Drift     `json:"drift"`
}

// Failed says whether the answer should fail its asker: a finding that is an error, or
// a role that drifted.
func (a AuditAnswer) Failed() bool {
	for _, r := range a.Runs {
		if slices.ContainsFunc(r.Findings, func(f contract.AuditReport) bool { return f.Severity == "error" }) {
			return true
		}
	}
	return len(a.Drift) > 0
}

// QueryAudit answers q from the fleet's statuses and stored traces: each finished task's
// accepted run, with its roles' figures and the findings its own Auditor wrote, and the
// roles that drifted over the matched runs.
func (c *Client) QueryAudit(ctx context.Context, q AuditQuery, dc DriftConfig) (AuditAnswer, error) {
	if err := dc.Check(); err != nil {
		return AuditAnswer{}, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		return AuditAnswer{}, fmt.Errorf("the window ends (%s) before it begins (%s)", q.Until.Format(time.RFC3339), q.Since.Format(time.RFC3339))
	}
	sts, err := c.List(ctx)
	if err != nil {
		return AuditAnswer{}, err
	}
	ans := AuditAnswer{Query: q, Runs: []RunReport{}, Drift: []Drift{}}
	var figs []RoleRun
	for _, st := range sts {
		a, ok := st.AcceptedAttempt()
		if !ok || a.Trace == "" || q.Run != "" && q.Run != a.RunID && q.Run != st.ID {
			continue
		}
		if !q.Since.IsZero() && a.EndedAt.Before(q.Since) || !q.Until.IsZero() && a.EndedAt.After(q.Until) {
			continue
		}
		trace, err := c.traces.GetBytes(ctx, a.Trace)
		if err != nil {
			return ans, fmt.Errorf("fleet: trace %s: %w", a.Trace, err)
		}
		roles, findings, err := RunFigures(a.RunID, a.EndedAt, trace)
		if err != nil {
			return ans, err
		}
		if q.Role != "" {
			roles = slices.DeleteFunc(roles, func(r RoleRun) bool { return r.Role != q.Role })
			if len(roles) == 0 {
				continue
			}
		}
		if findings == nil {
			findings = []contract.AuditReport{}
		}
		ans.Runs = append(ans.Runs, RunReport{Task: st.ID, Run: a.RunID, Ended: a.EndedAt, Outcome: st.Outcome(), Roles: roles, Findings: findings})
		figs = append(figs, roles...)
	}
	slices.SortStableFunc(ans.Runs, func(a, b RunReport) int {
		if c := a.Ended.Compare(b.Ended); c != 0 {
			return c
		}
		return strings.Compare(a.Run, b.Run)
	})
	d, err := DetectDrift(figs, dc)
	if err != nil {
		return ans, err
	}
	if d != nil {
		ans.Drift = d
	}
	return ans, nil
}

// The Auditor's periodic reports.
const (
	ReportStream  = "SPINE_REPORTS"
	ReportSubject = "spine.audit.report"
)

// Report is the fleet Auditor's periodic report: the tasks by state and outcome, the
// findings of the runs that ended since the last report, and the roles that drifted.
type Report struct {
	At       time.Time      `json:"at"`
	Since    time.Time      `json:"since,omitzero"`
	Tasks    map[string]int `json:"tasks"`
	Outcomes map[string]int `json:"outcomes"`
	Runs     int            `json:"runs"`     // runs that ended since Since
	Findings int            `json:"findings"` // their findings
	Drift    []Drift        `json:"drift"`
}

// Line is the report in one line, as spine status shows it.
func (r Report) Line() string {
	var drift []string
	for _, d := range r.Drift {
		drift = append(drift, d.Role+" "+d.Metric)
	}
	s := fmt.Sprintf("audit report %s: %d queued, %d running, %d finished; %d run(s) ended since the last report, %d finding(s)",
		r.At.UTC().Format(time.RFC3339), r.Tasks[Queued], r.Tasks[Running], r.Tasks[Finished], r.Runs, r.Findings)
	if len(drift) > 0 {
		s += "; drift: " + strings.Join(drift, ", ")
	} else {
		s += "; no drift"
	}
	return s
}

// MakeReport builds a report at now over the runs that ended since since.
func (c *Client) MakeReport(ctx context.Context, now, since time.Time, dc DriftConfig) (Report, error) {
	sts, err := c.List(ctx)
	if err != nil {
		return Report{}, err
	}
	r := Report{At: now.UTC(), Since: since.UTC(), Tasks: map[string]int{}, Outcomes: map[string]int{}, Drift: []Drift{}}
	for _, st := range sts {
		r.Tasks[st.State]++
		if o := st.Outcome(); o != "" {
			r.Outcomes[o]++
		}
	}
	// Drift is judged over every run; the findings over the runs since the last report.
	all, err := c.QueryAudit(ctx, AuditQuery{}, dc)
	if err != nil {
		return r, err
	}
	r.Drift = all.Drift
	for _, run := range all.Runs {
		if run.Ended.After(since) {
			r.Runs++
			r.Findings += len(run.Findings)
		}
	}
	return r, nil
}

// PublishReport puts a report on the bus (ReportSubject), where spine status reads the
// latest.
func (c *Client) PublishReport(ctx context.Context, r Report) error {
	if err := c.reportStream(ctx); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := c.js.Publish(ctx, ReportSubject, b); err != nil {
		return fmt.Errorf("fleet: publishing the audit report: %w", err)
	}
	return nil
}

// LatestReport is the last report published; ok is false when there is none.
func (c *Client) LatestReport(ctx context.Context) (Report, bool, error) {
	if err := c.reportStream(ctx); err != nil {
		return Report{}, false, err
	}
	st, err := c.js.Stream(ctx, ReportStream)
	if err != nil {
		return Report{}, false, err
	}
	m, err := st.GetLastMsgForSubject(ctx, ReportSubject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Report{}, false, nil
	}
	if err != nil {
		return Report{}, false, fmt.Errorf("fleet: the latest audit report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(m.Data, &r); err != nil {
		return Report{}, false, fmt.Errorf("fleet: the latest audit report: %w", err)
	}
	return r, true, nil
}

func (c *Client) reportStream(ctx context.Context) error {
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: ReportStream, Subjects: []string{ReportSubject},
		Storage: jetstream.FileStorage, MaxMsgsPerSubject: 100}); err != nil {
		return fmt.Errorf("fleet: report stream: %w", err)
	}
	return nil
}
