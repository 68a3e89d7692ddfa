package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// RoleRun is one role's figures in one run, read from the run's trace.
type RoleRun struct {
	Run   string    `json:"run"`
	Role  string    `json:"role"`
	Ended time.Time `json:"ended"`
	// Calls, Tokens and LatencyMS are the role's model calls, their total tokens and
	// their summed duration.
	Calls     int   `json:"calls"`
	Tokens    int   `json:"tokens"`
	LatencyMS int64 `json:"latency_ms"`
	// Corrections are the CorrectionSignals the role received; Results the results it
	// sent (ExecutionResult, SubTaskOutcome) and Failed those that report a failure.
	Corrections int `json:"corrections"`
	Results     int `json:"results"`
	Failed      int `json:"failed"`
}

// The metrics drift is judged on, in the order reports list them.
var DriftMetrics = []string{"corrections", "failure_rate", "tokens", "latency_ms"}

// DriftFloor is, per metric, the smallest shift that can be drift at all: below it a
// change is noise whatever the history's spread, e.g. a scripted role whose calls take
// 0 ms in most runs and a few microseconds in some.
var DriftFloor = map[string]float64{
	"corrections":  0.5,  // half a correction per run
	"failure_rate": 0.05, // five points of failed results
	"tokens":       10,
	"latency_ms":   5,
}

// metric is one of DriftMetrics of a role's run.
func (r RoleRun) metric(name string) float64 {
	switch name {
	case "corrections":
		return float64(r.Corrections)
	case "failure_rate":
		return perEach(r.Failed, r.Results)
	case "tokens":
		return float64(r.Tokens)
	case "latency_ms":
		return perEach(r.LatencyMS, int64(r.Calls))
	}
	return 0
}

// perEach is total shared over n (a rate or a mean), 0 when there are none.
func perEach[N int | int64](total, n N) float64 {
	if n == 0 {
		return 0
	}
	return float64(total) / float64(n)
}

// RunFigures reads every role's figures, and the Auditor's findings, from a run's trace.
// Roles come out in name order.
func RunFigures(run string, ended time.Time, trace []byte) ([]RoleRun, []contract.AuditReport, error) {
	byRole := map[string]*RoleRun{}
	role := func(name string) *RoleRun {
		r := byRole[name]
		if r == nil {
			r = &RoleRun{Run: run, Role: name, Ended: ended}
			byRole[name] = r
		}
		return r
	}
	var findings []contract.AuditReport
	f, err := spinetrace.Read(run, bytes.NewReader(trace))
	if err != nil {
		return nil, nil, fmt.Errorf("run %s: %v", run, err)
	}
	for i := range f.Events {
		switch b := f.Events[i].Body.(type) {
		case spinetrace.Exchange:
			name, ok := strings.CutPrefix(b.Name, spinetrace.ExchangeModel)
			if !ok {
				continue
			}
			r := role(name)
			r.Calls++
			r.LatencyMS += b.DurationMS
			if b.Usage != nil {
				r.Tokens += b.Usage.TotalTokens
			}
		case spinetrace.Message:
			switch b.Type {
			case contract.TypeCorrectionSignal:
				role(b.To).Corrections++
			case contract.TypeExecutionResult, contract.TypeSubTaskOutcome:
				var p struct {
					Status string `json:"status"`
				}
				_ = json.Unmarshal(b.Payload, &p) // a payload without a status counts as not failed
				r := role(b.From)
				r.Results++
				if p.Status == "failed" {
					r.Failed++
				}
			}
		case spinetrace.Audit:
			findings = append(findings, b.Finding)
		}
	}
	out := make([]RoleRun, 0, len(byRole))
	for _, r := range byRole {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b RoleRun) int { return strings.Compare(a.Role, b.Role) })
	return out, findings, nil
}

// DriftConfig says when a role has drifted: its last Window runs against the runs before
// them (at least MinHistory), on a metric whose window mean is more than Threshold
// standard deviations of the history away from the history's mean and differs from it
// by at least MinShift of it (a steady history's standard deviation is 0: the relative
// shift alone decides).
type DriftConfig struct {
	Window     int     `json:"window"`
	MinHistory int     `json:"min_history"`
	Threshold  float64 `json:"threshold"`
	MinShift   float64 `json:"min_shift"`
}

// DefaultDrift is 5 runs against at least 10, 3 standard deviations and 50 %.
var DefaultDrift = DriftConfig{Window: 5, MinHistory: 10, Threshold: 3, MinShift: 0.5}

// Check reports a configuration that cannot judge anything.
func (c DriftConfig) Check() error {
	if c.Window < 1 || c.MinHistory < 2 || c.Threshold < 0 || c.MinShift < 0 || math.IsNaN(c.Threshold) || math.IsNaN(c.MinShift) {
		return fmt.Errorf("drift: window %d (≥ 1), history %d (≥ 2), threshold %g and shift %g (≥ 0)", c.Window, c.MinHistory, c.Threshold, c.MinShift)
	}
	return nil
}

// Drift is a role whose metric shifted over the window against its own history.
type Drift struct {
	Role        string   `json:"role"`
	Metric      string   `json:"metric"`
	HistoryMean float64  `json:"history_mean"`
	HistorySD   float64  `json:"history_sd"`
	WindowMean  float64  `json:"window_mean"`
	Runs        []string `json:"runs"` // the window's runs
}

func (d Drift) String() string {
	dir := "up"
	if d.WindowMean < d.HistoryMean {
		dir = "down"
	}
	return fmt.Sprintf("%s %s %s: %.3g over the last %d run(s), %.3g ± %.3g before", d.Role, d.Metric, dir, d.WindowMean, len(d.Runs), d.HistoryMean, d.HistorySD)
}

// DetectDrift judges every role's runs, taken in the order they ended (then by run), on
// every metric. The result is ordered by role, then metric.
func DetectDrift(figs []RoleRun, cfg DriftConfig) ([]Drift, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	byRole := map[string][]RoleRun{}
	for _, f := range figs {
		byRole[f.Role] = append(byRole[f.Role], f)
	}
	roles := make([]string, 0, len(byRole))
	for r := range byRole {
		roles = append(roles, r)
	}
	slices.Sort(roles)
	var out []Drift
	for _, role := range roles {
		runs := byRole[role]
		slices.SortFunc(runs, func(a, b RoleRun) int {
			if c := a.Ended.Compare(b.Ended); c != 0 {
				return c
			}
			return strings.Compare(a.Run, b.Run)
		})
		n := len(runs)
		if n < cfg.Window+cfg.MinHistory {
			continue
		}
		hist, win := runs[:n-cfg.Window], runs[n-cfg.Window:]
		for _, m := range DriftMetrics {
			hm, hsd := meanSD(hist, m)
			wm, _ := meanSD(win, m)
			shift := math.Abs(wm - hm)
			if shift <= cfg.Threshold*hsd || shift < cfg.MinShift*math.Max(math.Abs(hm), 1e-9) || shift < DriftFloor[m] || shift == 0 {
				continue
			}
			d := Drift{Role: role, Metric: m, HistoryMean: hm, HistorySD: hsd, WindowMean: wm}
			for _, r := range win {
				d.Runs = append(d.Runs, r.Run)
			}
			out = append(out, d)
		}
	}
	return out, nil
}

func meanSD(rs []RoleRun, metric string) (mean, sd float64) {
	for _, r := range rs {
		mean += r.metric(metric)
	}
	mean /= float64(len(rs))
	for _, r := range rs {
		d := r.metric(metric) - mean
		sd += d * d
	}
	return mean, math.Sqrt(sd / float64(len(rs)))
}
