package taskrun

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/memory"
)

// TestMemoryCalibratorWording: Megrams as GGS writes them, calibrated for a plan, give
// the planner these exact lines; verdicts on tools and targets carry the pair and M_dec
// the validator cites, and the intent's verdict is prompt text.
func TestMemoryCalibratorWording(t *testing.T) {
	s, err := memory.NewInMemory(memory.Options{Clock: clock.System{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.WriterFor(memory.RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	const intent = "Report the port the service listens on"
	put := func(n int, m contract.Megram) {
		for i := 0; i < n; i++ {
			w.Write(m)
		}
	}
	approach := memory.Quantum{State: "change_approach", F: 0.85, Sigma: -1, K: 0.05}
	put(3, memory.BlockedTargetMegram("read_file", "config/service.yaml", approach, "blocked"))
	put(2, memory.BlockedTargetMegram("shell", "make ports", memory.Quantum{State: "change_path", F: 0.3, K: 0.2}, "dead end"))
	put(1, contract.Megram{Level: contract.LevelM, Space: "tool:list_files", Entity: memory.EntityLocal, State: "success", F: 0.8, Sigma: 1, K: 0.05})
	put(1, contract.Megram{Level: contract.LevelM, Space: "tool:list_files", Entity: memory.EntityLocal, State: "change_approach", F: 0.85, Sigma: -1, K: 0.05})
	put(1, contract.Megram{Level: contract.LevelM, Space: "tool:list_files", Entity: memory.EntityLocal, State: "accept", F: 0.9, Sigma: 1, K: 0.05})
	put(2, memory.TerminalMegram(intent, memory.Quantum{State: "abandon", F: 0.95, Sigma: -1, K: 0.05}, "gave up"))
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	cal, err := memoryCalibrator{s.Reader()}.Calibrate(context.Background(), contract.MemoryQuery{Intent: intent,
		Tools: []string{"read_file", "list_files"}, Targets: []contract.ToolTarget{{Tool: "read_file", Target: "config/service.yaml"}, {Tool: "shell", Target: "make ports"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range cal.Avoid {
		got = append(got, "avoid text: "+a)
	}
	for _, v := range cal.Verdicts {
		got = append(got, v.Action+" "+v.Tool+" "+v.Target+" | "+v.Pair+" | "+v.Text)
	}
	want := []string{
		"avoid text: tasks like this one (" + memory.IntentSpace(intent) + "): failed in 2 earlier tasks (abandon), M_dec −1.90 → avoid",
		"Avoid read_file config/service.yaml | tool:read_file × path:config/service.yaml | read_file on config/service.yaml: failed in 3 earlier tasks (change_approach), M_dec −2.55 → avoid",
		"Exploit list_files  | tool:list_files × env:local | the tool list_files: failed in 1, worked in 2 earlier tasks (accept, change_approach, success), M_dec +0.85 → prefer",
		"Caution shell make ports | tool:shell × path:make ports | shell on make ports: went nowhere in 2 earlier tasks (change_path), M_dec +0.00 → caution",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calibration\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(cal.Exploit) != 0 || len(cal.Caution) != 0 {
		t.Errorf("text entries: exploit %q caution %q", cal.Exploit, cal.Caution)
	}
}

func TestCautionPolicies(t *testing.T) {
	var warned []string
	for _, tc := range []struct {
		policy string
		ok     bool
		err    string
	}{{"", false, ""}, {CautionRefuse, false, ""}, {CautionAllow, true, ""}, {CautionLog, true, ""},
		{"ask", false, `caution policy "ask": expected refuse, allow or log`}} {
		c, err := cautionConfirmer(tc.policy, func(s string) { warned = append(warned, s) })
		if cerr := CheckCautionPolicy(tc.policy); (cerr == nil) != (tc.err == "") {
			t.Errorf("CheckCautionPolicy(%q) = %v", tc.policy, cerr)
		}
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %s", tc.policy, err, tc.err)
			}
			continue
		}
		ok, err := c.Confirm(context.Background(), sandboxConfirmation())
		if err != nil || ok != tc.ok {
			t.Errorf("%q: confirmed %v, %v; want %v", tc.policy, ok, err, tc.ok)
		}
	}
	if len(warned) != 1 || warned[0] != "made the call read_file config/app.yaml, though memory advises caution" {
		t.Errorf("warnings %q", warned)
	}
}

func sandboxConfirmation() sandbox.Confirmation {
	return sandbox.Confirmation{Tool: "read_file", Command: "config/app.yaml", Reasons: []string{"memory advises caution"}}
}
