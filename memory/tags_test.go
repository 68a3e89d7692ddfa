package memory

import (
	"context"
	"errors"
	"testing"

	"github.com/agentspine/spine/contract"
)

// Two tasks that start alike ("Fix the failing …") share the seed's tag but not their
// potentials: each intent, however it is cased or punctuated, reads its own full pair,
// and an intent never seen falls back to the three-word pair.
func TestIntentTagsDoNotCollide(t *testing.T) {
	e := newEnv(t, backendCases[1], nil)
	parser, deploy := "Fix the failing tests in the parser", "Fix the failing deploy of the web app"
	bad := Quantum{State: "abandon", F: 0.95, Sigma: -1, K: 0.05}
	good := Quantum{State: "accept", F: 0.9, Sigma: 1, K: 0.05}
	for i := 0; i < 2; i++ {
		e.write(TerminalMegrams(parser, bad, "parser tests still fail")...)
		e.write(TerminalMegrams(deploy, good, "deployed")...)
	}
	e.write(TerminalMegrams(deploy, good, "deployed")...)
	e.flush()
	e.noErrors()
	ctx := context.Background()
	for _, tc := range []struct {
		intent, space, action string
	}{
		{parser, "intent.full:fix_the_failing_tests_in_the_parser", contract.ActionAvoid},
		{"FIX the failing tests, in the parser!", "intent.full:fix_the_failing_tests_in_the_parser", contract.ActionAvoid},
		{deploy, "intent.full:fix_the_failing_deploy_of_the_web_app", contract.ActionExploit},
		{"fix the failing deploy of the web-app.", "intent.full:fix_the_failing_deploy_of_the_web_app", contract.ActionExploit},
		// Never seen: the seed's pair, where 2 abandons and 3 accepts leave M_dec = +0.8.
		{"Fix the failing cron job", "intent:fix_the_failing", contract.ActionExploit},
		{"Rotate the keys", "intent:rotate_the_keys", contract.ActionIgnore},
	} {
		space, err := ReadIntentSpace(ctx, e.s.Reader(), tc.intent)
		if err != nil {
			t.Fatal(err)
		}
		if space != tc.space {
			t.Errorf("ReadIntentSpace(%q) = %q, want %q", tc.intent, space, tc.space)
			continue
		}
		if p := e.mk(space, EntityLocal); p.Action != tc.action {
			t.Errorf("%q reads %s: %+v, want %s", tc.intent, space, p, tc.action)
		}
	}
	// Each full pair counts only its own intent's Megrams.
	if p := e.mk(IntentFullSpace(parser), EntityLocal); !near(p.Decision, -2*0.95) {
		t.Errorf("parser's full pair: %+v, want M_dec -1.9", p)
	}
	if p := e.mk(IntentFullSpace(deploy), EntityLocal); !near(p.Decision, 3*0.9) {
		t.Errorf("deploy's full pair: %+v, want M_dec 2.7", p)
	}
}

func TestTerminalMegrams(t *testing.T) {
	q := Quantum{State: "accept", F: 0.9, Sigma: 1, K: 0.05}
	ms := TerminalMegrams("Fix the flaky login test", q, "done")
	if len(ms) != 2 || ms[0] != TerminalMegram("Fix the flaky login test", q, "done") ||
		ms[1].Space != "intent.full:fix_the_flaky_login_test" || ms[1].Entity != EntityLocal ||
		ms[1].State != "accept" || ms[1].Content != "done" {
		t.Errorf("TerminalMegrams = %+v", ms)
	}
}

// intentTagReader answers QueryMK and QueryC from fixed tables, and fails on request.
type intentTagReader struct {
	pot    map[string]contract.Potentials
	sops   map[string][]contract.SOPRecord
	fail   string // "mk" or "c"
	cCalls int
}

func (r *intentTagReader) QueryMK(_ context.Context, space, _ string) (contract.Potentials, error) {
	if r.fail == "mk" {
		return contract.Potentials{}, errors.New("mk failed")
	}
	return r.pot[space], nil
}

func (r *intentTagReader) QueryC(_ context.Context, space, _ string) ([]contract.SOPRecord, error) {
	r.cCalls++
	if r.fail == "c" {
		return nil, errors.New("c failed")
	}
	return r.sops[space], nil
}

func TestReadIntentSpace(t *testing.T) {
	const intent = "Fix the failing tests in the parser"
	full, seed := IntentFullSpace(intent), IntentSpace(intent)
	for _, tc := range []struct {
		name   string
		r      intentTagReader
		want   string
		err    string
		cCalls int
	}{
		{name: "full pair has potentials", r: intentTagReader{pot: map[string]contract.Potentials{full: {Attention: 0.2}}}, want: full},
		{name: "full pair has only a C entry", r: intentTagReader{sops: map[string][]contract.SOPRecord{full: {{ID: "c-1"}}}}, want: full, cCalls: 1},
		{name: "full pair empty", r: intentTagReader{pot: map[string]contract.Potentials{seed: {Attention: 3}}}, want: seed, cCalls: 1},
		{name: "QueryMK fails", r: intentTagReader{fail: "mk"}, err: "mk failed"},
		{name: "QueryC fails", r: intentTagReader{fail: "c"}, err: "c failed", cCalls: 1},
	} {
		got, err := ReadIntentSpace(context.Background(), &tc.r, intent)
		if tagErrText(err) != tc.err || got != tc.want || tc.r.cCalls != tc.cCalls {
			t.Errorf("%s: (%q, %v) after %d QueryC, want (%q, %q) after %d", tc.name, got, err, tc.r.cCalls, tc.want, tc.err, tc.cCalls)
		}
	}
}

func tagErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
