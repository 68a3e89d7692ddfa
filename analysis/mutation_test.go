package analysis

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Every mutant of the shipped GGS rules — a rule deleted, a conjunct dropped, a comparison
// made strict or loose, a rule demoted below all others — must be caught by the analysis
// (a gap, an overlap or a changed cell of the seed's table) unless the engine itself
// decides exactly as the shipped rules on every elementary cell. Deleting a rule must
// always be caught. testdata/mutants.golden lists each mutant and what caught it.
//
// The mutants are of the macro-state rules: the memory_* rules rule on a fact of their
// own, which multiplies the partition without adding to what is learnt here, so they
// are left out with their table of cells (TestGGSReproducesTheSeedTable checks them).
func TestGGSMutants(t *testing.T) {
	src, err := rules.FS.ReadFile("ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src = withoutMemoryRules(t, src)
	opt := ggsOptions(t)
	x := *opt.Expect
	x.Tables = nil
	for _, tb := range opt.Expect.Tables {
		if !strings.HasPrefix(tb.Given, "memory_pair != nil") {
			x.Tables = append(x.Tables, tb)
		}
	}
	opt.Expect = &x
	base, err := engine.LoadRules("ggs.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	orig, _, err := analyzeWith(base, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Mutants are independent: they are judged on every core, and reported in order.
	// The shipped rules' objective at every elementary cell is computed once.
	want, err := cellObjectives(orig.sp, orig.rs)
	if err != nil {
		t.Fatal(err)
	}
	ms := ggsMutants(t, src)
	type verdict struct {
		finding, err string
		equivalent   bool
	}
	verdicts := make([]verdict, len(ms))
	judge := func(m mutant) (v verdict) {
		defer func() {
			if r := recover(); r != nil {
				v.err = fmt.Sprint(r)
			}
		}()
		rs, err := engine.LoadRules("mutant.yaml", m.src)
		if err != nil {
			return verdict{err: fmt.Sprintf("mutant does not load: %v", err)}
		}
		rep, err := Analyze(rs, opt)
		if err != nil {
			return verdict{err: err.Error()}
		}
		if f := firstFinding(rep); f != "" {
			return verdict{finding: f}
		}
		if m.kind == "delete" && m.name == "delete abandon_replans_spent" {
			// The opt-in replan cap's rule is off as shipped; its deletion shows once the
			// cap is on.
			on := bytes.Replace(m.src, []byte("replan_cap: 0 "), []byte("replan_cap: 3 "), 1)
			if rs, err = engine.LoadRules("mutant.yaml", on); err != nil {
				return verdict{err: fmt.Sprintf("mutant with the cap on does not load: %v", err)}
			}
			if rep, err = Analyze(rs, opt); err != nil {
				return verdict{err: err.Error()}
			}
			if f := firstFinding(rep); f != "" {
				return verdict{finding: "with replan_cap: 3, " + strings.TrimLeft(f, " ")}
			}
		}
		if m.kind == "delete" {
			return verdict{err: "deleting a rule went unnoticed"}
		}
		if diff := engineDiffErr(orig.sp, want, rs); diff != "" {
			return verdict{err: "the analysis reports nothing, but the engine decides differently: " + diff}
		}
		return verdict{equivalent: true, finding: "equivalent: the engine decides as the shipped rules on every elementary cell"}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				verdicts[i] = judge(ms[i])
			}
		}()
	}
	for i := range ms {
		next <- i
	}
	close(next)
	wg.Wait()
	var out bytes.Buffer
	caught, equivalent := 0, 0
	for i, m := range ms {
		v := verdicts[i]
		switch {
		case v.err != "":
			t.Errorf("%s: %s", m.name, v.err)
			continue
		case v.equivalent:
			equivalent++
		default:
			caught++
		}
		fmt.Fprintf(&out, "%s\n    %s\n", m.name, v.finding)
	}
	fmt.Fprintf(&out, "%d mutants: %d caught, %d equivalent\n", caught+equivalent, caught, equivalent)
	checkGolden(t, "mutants.golden", out.Bytes())
}

// withoutMemoryRules is the rule file without its memory_* rules.
func withoutMemoryRules(t *testing.T, src []byte) []byte {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "rules" {
			continue
		}
		var kept []*yaml.Node
		for _, rule := range root.Content[i+1].Content {
			memory := false
			for j := 0; j+1 < len(rule.Content); j += 2 {
				memory = memory || rule.Content[j].Value == "name" && strings.HasPrefix(rule.Content[j+1].Value, "memory_")
			}
			if !memory {
				kept = append(kept, rule)
			}
		}
		root.Content[i+1].Content = kept
	}
	b, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type mutant struct {
	name, kind string
	src        []byte
}

// ggsMutants edits the YAML tree of the rule file, so every mutant is the shipped file
// with one change.
func ggsMutants(t *testing.T, src []byte) []mutant {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	var rulesNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "rules" {
			rulesNode = root.Content[i+1]
		}
	}
	field := func(rule *yaml.Node, key string) *yaml.Node {
		for i := 0; i+1 < len(rule.Content); i += 2 {
			if rule.Content[i].Value == key {
				return rule.Content[i+1]
			}
		}
		t.Fatalf("rule without %s", key)
		return nil
	}
	encode := func() []byte {
		b, err := yaml.Marshal(&doc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out []mutant
	items := rulesNode.Content
	for i, rule := range items {
		name := field(rule, "name").Value
		rulesNode.Content = append(append([]*yaml.Node(nil), items[:i]...), items[i+1:]...)
		out = append(out, mutant{name: "delete " + name, kind: "delete", src: encode()})
		rulesNode.Content = items

		sal := field(rule, "salience")
		old := sal.Value
		sal.Value = "0"
		out = append(out, mutant{name: "demote " + name + " to salience 0", kind: "demote", src: encode()})
		sal.Value = old

		when := field(rule, "when")
		orig := when.Value
		for _, w := range whenMutants(t, orig) {
			when.Value = w.src
			out = append(out, mutant{name: w.name + " in " + name, kind: w.kind, src: encode()})
		}
		when.Value = orig
	}
	return out
}

type whenMutant struct{ name, kind, src string }

// whenMutants drops each top-level conjunct and flips the strictness of each comparison.
func whenMutants(t *testing.T, src string) []whenMutant {
	tree, err := parser.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var conj []ast.Node
	var flat func(n ast.Node)
	flat = func(n ast.Node) {
		if b, ok := n.(*ast.BinaryNode); ok && b.Operator == "&&" {
			flat(b.Left)
			flat(b.Right)
			return
		}
		conj = append(conj, n)
	}
	flat(tree.Node)
	var out []whenMutant
	if len(conj) > 1 {
		for i := range conj {
			var keep []string
			for j, c := range conj {
				if j != i {
					keep = append(keep, c.String())
				}
			}
			out = append(out, whenMutant{name: "drop `" + conj[i].String() + "`", kind: "drop", src: strings.Join(keep, " && ")})
		}
	}
	flipped := map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
	var cmps []*ast.BinaryNode
	ast.Find(tree.Node, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryNode); ok && flipped[b.Operator] != "" {
			cmps = append(cmps, b)
		}
		return false
	})
	for _, b := range cmps {
		old := b.Operator
		before := b.String()
		b.Operator = flipped[old]
		out = append(out, whenMutant{name: "`" + before + "` → `" + b.String() + "`", kind: "flip", src: tree.Node.String()})
		b.Operator = old
	}
	return out
}

func firstFinding(rep *Report) string {
	if g := rep.Gaps(); len(g) > 0 {
		return "gap where " + g[0].Condition()
	}
	if o := rep.Overlaps(); len(o) > 0 {
		return "overlap of " + strings.Join(o[0].Rules, " and ") + " where " + o[0].Condition()
	}
	for _, c := range rep.Cells {
		if c.Empty {
			return "cell " + strings.TrimSpace(c.Cell) + " is empty"
		}
		if len(c.Failures) > 0 {
			f := c.Failures[0]
			return fmt.Sprintf("cell %q (%s): %s where %s", strings.TrimSpace(c.Cell), c.Expected, f.Got, f.Condition)
		}
	}
	return ""
}

// cellObjectives lists the objective rs picks at every elementary cell of the
// partition sp, in cell order.
func cellObjectives(sp *space, rs *ruleset.RuleSet) ([]string, error) {
	total := 1
	for _, v := range sp.vars {
		total *= len(v.pieces)
	}
	out := make([]string, total)
	for n := range total {
		res, err := runWitness(rs, sp.witness(cellRegion(sp, n)))
		if err != nil {
			return nil, err
		}
		if r := ruleNamed(rs, res.Fired); r != nil {
			out[n] = r.Then.Objective
		}
	}
	return out, nil
}

// cellRegion is the n-th elementary cell of sp: one piece of every variable.
func cellRegion(sp *space, n int) region {
	r := make(region, len(sp.vars))
	for i, v := range sp.vars {
		r[i] = make([]bool, len(v.pieces))
		r[i][n%len(v.pieces)] = true
		n /= len(v.pieces)
	}
	return r
}

// engineDiffErr compares the objectives a mutant picks on every elementary cell of the
// original's partition with the original's (want, computed once); the mutants compare
// against the same thresholds.
func engineDiffErr(sp *space, want []string, mutant *ruleset.RuleSet) string {
	for n, a := range want {
		w := sp.witness(cellRegion(sp, n))
		res, err := runWitness(mutant, w)
		if err != nil {
			return err.Error()
		}
		b := ""
		if r := ruleNamed(mutant, res.Fired); r != nil {
			b = r.Then.Objective
		}
		if a != b {
			return fmt.Sprintf("at %s: %q against %q", w, a, b)
		}
	}
	return ""
}
