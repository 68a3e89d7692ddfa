package taskrun

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/memory"
)

// The planner's intent line comes from the whole intent's pair when memory knows the
// intent, and from the seed's three-word pair when it does not: a task that merely starts
// like an abandoned one is not told to avoid it by that task alone.
func TestCalibratorReadsTheFullIntentTag(t *testing.T) {
	s, err := memory.NewInMemory(memory.Options{Clock: clock.System{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.WriterFor(memory.RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	parser, deploy := "Fix the failing tests in the parser", "Fix the failing deploy of the web app"
	for i := 0; i < 2; i++ {
		for _, m := range memory.TerminalMegrams(parser, memory.Quantum{State: "abandon", F: 0.95, Sigma: -1, K: 0.05}, "gave up") {
			w.Write(m)
		}
	}
	for _, m := range memory.TerminalMegrams(deploy, memory.Quantum{State: "accept", F: 0.9, Sigma: 1, K: 0.05}, "deployed") {
		w.Write(m)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		intent              string
		avoid, exploit, all int
		cites               string
	}{
		{parser, 1, 0, 1, "(intent.full:fix_the_failing_tests_in_the_parser)"},                                    // its own two abandons
		{"fix the failing deploy of the web-app", 0, 1, 1, "(intent.full:fix_the_failing_deploy_of_the_web_app)"}, // its own accept, however written
		{"Fix the failing cron job", 1, 0, 1, "(intent:fix_the_failing)"},                                         // never seen: the seed's pair, M_dec −1.0
	} {
		cal, err := memoryCalibrator{s.Reader()}.Calibrate(context.Background(), contract.MemoryQuery{Intent: tc.intent})
		if err != nil {
			t.Fatal(err)
		}
		if len(cal.Avoid) != tc.avoid || len(cal.Exploit) != tc.exploit || len(cal.Avoid)+len(cal.Exploit)+len(cal.Caution) != tc.all {
			t.Errorf("%q: %+v", tc.intent, cal)
			continue
		}
		if line := append(cal.Avoid, cal.Exploit...)[0]; !strings.Contains(line, tc.cites) {
			t.Errorf("%q: %q does not cite %s", tc.intent, line, tc.cites)
		}
	}
}
