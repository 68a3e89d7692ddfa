package engine

import (
	"os"
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
