package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestQueryAudit: an AuditQuery by role, by run and by time window over finished runs,
// with each role's figures read from the stored traces; a report of the fleet, published
// and read back as spine status shows it.
func TestQueryAudit(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	var ids []string
	for i, text := range []string{demoTask, demoTask + " " + downTask, demoTask} {
		st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", text, i+1), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: t.TempDir(), Prepare: storyPrepare(rs, noSandbox())})
	sts := waitFinished(t, c, ids, 30*time.Second)
	stop()

	all, err := c.QueryAudit(ctx, AuditQuery{}, DefaultDrift)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Runs) != 3 || len(all.Drift) != 0 {
		t.Fatalf("all runs: %+v", all)
	}
	// The demo: R3 is sent back twice in round 1 and fails three attempts, then passes;
	// R4a fails the first subtask and passes the second. The down model's run has no R3.
	r3, err := c.QueryAudit(ctx, AuditQuery{Role: "R3"}, DefaultDrift)
	if err != nil {
		t.Fatal(err)
	}
	if len(r3.Runs) != 2 {
		t.Fatalf("runs with R3: %+v", r3.Runs)
	}
	for _, run := range r3.Runs {
		if len(run.Roles) != 1 {
			t.Fatalf("run %s: roles %+v", run.Run, run.Roles)
		}
		f := run.Roles[0]
		if f.Role != "R3" || f.Corrections != 2 || f.Results != 4 || f.Failed != 3 || f.Calls != 9 || run.Outcome != "accept" {
			t.Errorf("run %s: R3's figures %+v, outcome %s", run.Run, f, run.Outcome)
		}
	}
	one, err := c.QueryAudit(ctx, AuditQuery{Run: ids[1]}, DefaultDrift)
	if err != nil || len(one.Runs) != 1 || one.Runs[0].Run != ids[1]+"-1" || one.Runs[0].Outcome != "abandon (model_unavailable)" {
		t.Fatalf("by task id: %+v, %v", one, err)
	}
	a, _ := sts[0].AcceptedAttempt()
	none, err := c.QueryAudit(ctx, AuditQuery{Until: a.EndedAt.Add(-time.Nanosecond)}, DefaultDrift)
	if err != nil || len(none.Runs) != 0 {
		t.Fatalf("before the first run ended: %+v, %v", none, err)
	}
	if _, err := c.QueryAudit(ctx, AuditQuery{Since: a.EndedAt, Until: a.EndedAt.Add(-time.Second)}, DefaultDrift); err == nil {
		t.Error("a window that ends before it begins was answered")
	}

	if _, ok, err := c.LatestReport(ctx); ok || err != nil {
		t.Fatalf("a report before any was published: %v, %v", ok, err)
	}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	rep, err := c.MakeReport(ctx, at, time.Time{}, DefaultDrift)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PublishReport(ctx, rep); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.LatestReport(ctx)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := "audit report 2026-03-01T10:00:00Z: 0 queued, 0 running, 3 finished; 3 run(s) ended since the last report, 0 finding(s); no drift"
	if got.Line() != want || got.Outcomes["accept"] != 2 || got.Outcomes["abandon (model_unavailable)"] != 1 {
		t.Errorf("report %+v\nline %q\nwant %q", got, got.Line(), want)
	}
}
