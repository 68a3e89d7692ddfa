package contract

import "testing"

func TestTally(t *testing.T) {
	for _, c := range []struct {
		verdicts []string
		passed   int
		first    string // the first failed criterion, "" for none
	}{
		{nil, 0, ""},
		{[]string{VerdictPass, VerdictPass}, 2, ""},
		{[]string{VerdictPass, VerdictFail, VerdictPass, VerdictFail}, 2, "c1"},
		{[]string{VerdictFail}, 0, "c0"},
	} {
		o := &SubTaskOutcome{}
		for i, v := range c.verdicts {
			o.CriteriaVerdicts = append(o.CriteriaVerdicts, CriterionVerdict{Criterion: "c" + string(rune('0'+i)), Verdict: v})
		}
		passed, first := o.Tally()
		got := ""
		if first != nil {
			got = first.Criterion
		}
		if passed != c.passed || got != c.first {
			t.Errorf("%v: passed %d, first failed %q; want %d, %q", c.verdicts, passed, got, c.passed, c.first)
		}
	}
}
