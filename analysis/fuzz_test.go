package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
)

// seedCorpus adds every domains and expectations file under testdata and the inline cases.
func seedCorpus(f *testing.F, glob string, extra ...string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", glob))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// FuzzParseDomains: the parser never panics, every error is located, and domains that
// parse and bind to the GGS rules give an analysis the engine agrees with.
func FuzzParseDomains(f *testing.F) {
	seedCorpus(f, "*.domains.yaml",
		"signals: present\nsignals.D: [0, 1]\n",
		"signals.round: {values: [0, 1, 2]}\nsignals.grad: {min: -0.1, max: 0.1}\n",
		"signals: optional\nsignals.omega: {min: 0.8}\n",
		"signals.D: [1, 0]\n", "a: &x [0, 1]\nb: *x\n", "signals.D: {values: [a, b]}\n", "{",
	)
	rs := shipped(f, "ggs.yaml")
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := ParseDomains("fuzz.yaml", src)
		if err != nil {
			var fe ruleset.LoadErrors
			if !errors.As(err, &fe) || len(fe) == 0 {
				t.Fatalf("error is not ruleset.LoadErrors: %v", err)
			}
			for _, e := range fe {
				if e.Line < 1 || e.Col < 1 || e.Msg == "" {
					t.Fatalf("unlocated error %+v", e)
				}
			}
			return
		}
		_, err = Analyze(rs, Options{Domains: d, MaxRegions: 2000})
		var de *DisagreementError
		if errors.As(err, &de) {
			t.Fatalf("the engine disagrees: %v", err)
		}
	})
}

func FuzzParseExpectations(f *testing.F) {
	seedCorpus(f, "*.cells.yaml",
		"tables:\n  - {name: t, cells: [{name: c, when: 'signals.round == 0', objective: plan}]}\n",
		"tables:\n  - {name: t, given: 'signals.D > 0.5', cells: [{name: c, when: 'abs(signals.grad) < 0.2', rule: refine_moving_environmental}]}\n",
		"tables: [{}]\n", "tables:\n  - {name: t, cells: 3}\n",
	)
	rs := shipped(f, "ggs.yaml")
	dom, err := LoadDomainsFile("testdata/ggs.domains.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := ParseExpectations("fuzz.yaml", src)
		if err != nil {
			var fe ruleset.LoadErrors
			if !errors.As(err, &fe) || len(fe) == 0 {
				t.Fatalf("error is not ruleset.LoadErrors: %v", err)
			}
			return
		}
		_, err = Analyze(rs, Options{Domains: dom, Expect: x, MaxRegions: 2000})
		var de *DisagreementError
		if errors.As(err, &de) {
			t.Fatalf("the engine disagrees: %v", err)
		}
	})
}
