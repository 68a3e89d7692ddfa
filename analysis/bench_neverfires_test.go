package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
)

// largeRuleFile writes n rules in one of the shapes large generated rule files take:
//   - kinds: every rule on a kind of its own (many kinds, few thresholds each);
//   - thresholds: every rule on one field of one kind, each with its own threshold, in
//     falling salience, so that all but the first are shadowed;
//   - routes: a string field compared with n distinct values, saliences in ten bands;
//   - grid: twenty kinds, two fields each, rules on boxes of thresholds, seven salience
//     bands (shadowing that takes a real search to prove).
func largeRuleFile(shape string, n int) string {
	var b strings.Builder
	b.WriteString("objectives: [{name: a}, {name: b}]\nfacts:\n")
	switch shape {
	case "kinds":
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  k%d: {fields: {x: float}}\n", i)
		}
	case "thresholds":
		b.WriteString("  s: {fields: {x: float}}\n")
	case "routes":
		b.WriteString("  req: {fields: {route: string, size: int}}\n")
	case "grid":
		for k := 0; k < 20; k++ {
			fmt.Fprintf(&b, "  k%d: {fields: {x: float, y: float}}\n", k)
		}
	}
	b.WriteString("rules:\n")
	for i := 0; i < n; i++ {
		var sal int
		var when string
		switch shape {
		case "kinds":
			sal, when = i%50, fmt.Sprintf("k%d != nil && k%d.x > 0.5", i, i)
		case "thresholds":
			sal, when = n-i, fmt.Sprintf("s != nil && s.x > %d", i)
		case "routes":
			sal, when = i%10, fmt.Sprintf(`req != nil && req.route == "r%d" && req.size < %d`, i, i%5)
		case "grid":
			k := i % 20
			sal, when = i%7, fmt.Sprintf("k%d != nil && k%d.x > %d && k%d.y < %d", k, k, i/20, k, i%13)
		}
		fmt.Fprintf(&b, "  - {name: r%d, salience: %d, when: '%s', then: {objective: a}}\n", i, sal, when)
	}
	return b.String()
}

// BenchmarkCheckLargeRuleFile is what `spine check` without --analyze does after loading
// a generated 4,000-rule file: convert the conditions and run the never-fires analysis
// under its default budget. The target is well under a second per file.
func BenchmarkCheckLargeRuleFile(b *testing.B) {
	for _, shape := range []string{"kinds", "thresholds", "routes", "grid"} {
		rs, err := engine.LoadRules(shape+".yaml", []byte(largeRuleFile(shape, 4000)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(shape, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				rep, err := Lint(rs, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(rep.Warnings)), "warnings")
				if rep.Stopped != nil {
					b.ReportMetric(float64(rep.Stopped.Unchecked), "unchecked")
				}
			}
		})
	}
}
