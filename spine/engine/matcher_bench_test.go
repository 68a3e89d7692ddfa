package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// BenchmarkLoadRules is the load of rules/ggs.yaml: parse, compile every when once,
// classify the conditions, build the matcher and check it against expr's VM on its
// witnesses.
func BenchmarkLoadRules(b *testing.B) {
	src, err := os.ReadFile("../../rules/ggs.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadRules("ggs.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadWideRules loads generated rule sets whose rules each compare four fields
// with constants of their own: their tables cannot be shared, so the matcher cuts them
// into small parts, and the load measures what finding those parts costs.
func BenchmarkLoadWideRules(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		rng := rand.New(rand.NewPCG(1, 2))
		var sb strings.Builder
		sb.WriteString("name: wide\nfacts:\n  s: {fields: {a: float, b: float, c: int, d: float}}\nobjectives:\n  - {name: go}\nrules:\n")
		for i := range n {
			fmt.Fprintf(&sb, "  - {name: r%04d, salience: 1, when: 's.a > %d.5 && s.b < %d.0 && s.c >= %d && s.d <= %d.25', then: {objective: go}}\n",
				i, rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(100))
		}
		src := []byte(sb.String())
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := LoadRules("wide.yaml", src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
