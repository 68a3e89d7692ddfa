package fleet

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/contract"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// TestFollowAudit: the fleet's Auditor, following the bus stream live, makes for each
// run the findings the run's own Auditor wrote into its trace, and sees each run end —
// the one an error stopped too. (A run that ends with no FinalResult at all, one that
// never started, ends on its worker's word: TestRunThatCannotStartIsRetried.)
func TestFollowAudit(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, err := audit.DefaultConfig().WithRuleBudget(rs)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	findings, ended, why := map[string][]contract.AuditReport{}, map[string]int{}, map[string]string{}
	endedRuns := make(chan string, 1000) // every run's end, as the Auditor sees it
	followed := make(chan error, 1)
	go func() {
		followed <- c.FollowAudit(ctx, cfg, true, func(e FollowEvent) {
			mu.Lock()
			defer mu.Unlock()
			if e.Finding != nil {
				findings[e.Run] = append(findings[e.Run], *e.Finding)
			}
			if e.Ended {
				ended[e.Run], why[e.Run] = e.Messages, e.Error
				endedRuns <- e.Run
			}
		})
	}()
	var ids []string
	for i, text := range []string{demoTask, demoTask + " " + downTask, demoTask, demoTask + " " + errTask} {
		st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", text, i+1), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	stop := workers(t, c, 2, WorkerConfig{WorkdirRoot: t.TempDir(), Prepare: testPrepare(rs, noSandbox())})
	sts := waitFinished(t, c, ids, 30*time.Second)
	stop()
	// Wait until the Auditor has seen every accepted run end.
	waiting := map[string]bool{}
	for _, st := range sts {
		a, _ := st.AcceptedAttempt()
		waiting[a.RunID] = true
	}
	bound := time.After(time.Minute) // a bound on a failure, not a synchronisation
	for len(waiting) > 0 {
		select {
		case run := <-endedRuns:
			delete(waiting, run)
		case <-bound:
			t.Fatalf("the fleet's Auditor did not see %d run(s) end in a minute: %v", len(waiting), waiting)
		}
	}
	cancel()
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, st := range sts {
		a, _ := st.AcceptedAttempt()
		trace, _, err := c.Trace(context.Background(), st.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := traceFindings(t, trace)
		got := findings[a.RunID]
		if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("run %s: the fleet's Auditor found %+v, the run's own %+v", a.RunID, got, want)
		}
		if ended[a.RunID] == 0 {
			t.Errorf("run %s: its end was not seen (ended: %v)", a.RunID, ended)
		}
		// A run an error stopped still ends in a FinalResult the rules decide; the error
		// is in the task's status.
		if why[a.RunID] != "" || st.Final == nil || strings.Contains(st.Text, errTask) != (st.Error != "") {
			t.Errorf("run %s: ended with error %q, final %+v; its status says %q", a.RunID, why[a.RunID], st.Final, st.Error)
		}
	}
}

// traceFindings reads the Auditor's findings a run wrote after its halt.
func traceFindings(t *testing.T, trace []byte) []contract.AuditReport {
	var out []contract.AuditReport
	f, err := spinetrace.Read("trace", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Events {
		if a, ok := spinetrace.As[spinetrace.Audit](&f.Events[i]); ok {
			out = append(out, a.Finding)
		}
	}
	return out
}
