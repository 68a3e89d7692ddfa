package ggs

import (
	"slices"
	"testing"
)

// TestSetAdd: a set lists every item added, once, sorted, whatever the repeats within a
// call and across calls; owned finds the set's own copy of each.
func TestSetAdd(t *testing.T) {
	for _, c := range []struct {
		name  string
		calls [][]string
		want  []string
	}{
		{"empty", [][]string{nil, {}}, []string{}},
		{"one call", [][]string{{"b", "a", "c"}}, []string{"a", "b", "c"}},
		{"repeats within a call", [][]string{{"x:1", "x:1", "a", "x:1", "a"}}, []string{"a", "x:1"}},
		{"repeats across calls", [][]string{{"b", "d"}, {"d", "a", "b", "c", "c"}, {"a"}}, []string{"a", "b", "c", "d"}},
		{"prefixes", [][]string{{"grep:/a/b"}, {"grep:/a", "grep:/a/b/c", "grep:/a"}}, []string{"grep:/a", "grep:/a/b", "grep:/a/b/c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s set
			for _, call := range c.calls {
				s.add(call...)
			}
			if got := s.sorted(); !slices.Equal(got, c.want) || got == nil {
				t.Fatalf("sorted() = %q, want %q", got, c.want)
			}
			if got := s.owned(nil, c.want); !slices.Equal(got, c.want) {
				t.Fatalf("owned() = %q, want %q", got, c.want)
			}
		})
	}
}
