package glossary

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "write the README's glossary from Terms")

const readme = "../../README.md"

// TestREADMEGlossary: the README's glossary is Markdown's output, between the markers.
func TestREADMEGlossary(t *testing.T) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, Begin), strings.Index(s, End)
	if i < 0 || j < i {
		t.Fatalf("%s: no glossary between %q and %q", readme, Begin, End)
	}
	got, want := s[i+len(Begin):j], Markdown()
	if got == want {
		return
	}
	if *rewrite {
		if err := os.WriteFile(readme, []byte(s[:i+len(Begin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the glossary differs from internal/glossary's terms (go test ./internal/glossary -rewrite):\ngot\n%s\nwant\n%s", readme, got, want)
}

func TestLookupAndNear(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string
	}{{"omega", "Ω"}, {"megram", "Megram"}, {"r7", "R7"}, {"law2", "Law 2"}, {"∇L", "∇L"}, {"observe_contract", "OBSERVE_CONTRACT"}} {
		if term, ok := Lookup(tc.q); !ok || term.Name != tc.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.q, term.Name, ok, tc.want)
		}
	}
	for _, tc := range []struct {
		q    string
		want string
	}{{"megrm", "Megram"}, {"omgea", "Ω"}, {"constrct", "construct"}, {"Law", "Law 2"}} {
		if near := Near(tc.q); len(near) == 0 || near[0] != tc.want {
			t.Errorf("Near(%q) = %q, want %q first", tc.q, near, tc.want)
		}
	}
	if near := Near("xylophone"); len(near) != 0 {
		t.Errorf("Near(xylophone) = %q, want none", near)
	}
	seen := map[string]bool{}
	for _, term := range Terms {
		for _, n := range append([]string{term.Name}, term.Aliases...) {
			if seen[strings.ToLower(n)] {
				t.Errorf("%q names two terms", n)
			}
			seen[strings.ToLower(n)] = true
		}
	}
}

// TestExplainAndList: a term is written with its other spellings; an unknown one is an
// error naming the near terms; the list is one line a term, its first sentence.
func TestExplainAndList(t *testing.T) {
	for _, tc := range []struct{ q, out, err string }{
		{"omega", "Ω — " + Terms[slices.IndexFunc(Terms, func(t Term) bool { return t.Name == "Ω" })].Text + "\n(also: omega, budget)\n", ""},
		{"megrm", "", `no term "megrm"; did you mean Megram?`},
		{"xylophone", "", `no term "xylophone"`},
	} {
		var b strings.Builder
		err := Explain(&b, tc.q)
		if got := fmt.Sprint(err); b.String() != tc.out || (tc.err == "" && err != nil) || (tc.err != "" && got != tc.err) {
			t.Errorf("Explain(%q) wrote %q, error %v; want %q, error %q", tc.q, b.String(), err, tc.out, tc.err)
		}
	}
	var b strings.Builder
	WriteList(&b)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(Terms) || !strings.HasPrefix(lines[0], fmt.Sprintf("%-18s ", Terms[0].Name)) || strings.Contains(lines[0], ". ") {
		t.Errorf("WriteList: %d lines for %d terms, first %q", len(lines), len(Terms), lines[0])
	}
}
