package engine

import (
	"fmt"
	"os"

	"github.com/agentspine/spine/spine/ruleset"
)

// RuleSource offers a new rule set at cycle boundaries. Poll returns the new source when
// it changed since the last poll (nil when it did not) and an error when it could not be
// read. The engine compiles the source itself, so a bad edit is reported and the running
// rule set stays in place.
type RuleSource interface {
	Poll() (name string, src []byte, err error)
}

// WithRuleSource makes an Engine poll src before every select_objective and switch to
// the new rule set when it loads and declares the same fact kinds; see Engine.Run.
func WithRuleSource(src RuleSource) Option { return func(o *options) { o.ruleSource = src } }

// FileRuleSource polls a rule file by content: an edit that changes the bytes is offered
// once; saving the same bytes again is not a change.
type FileRuleSource struct {
	Path string
	last string // hash of the bytes last offered or started with
}

var _ RuleSource = (*FileRuleSource)(nil)

// NewFileRuleSource watches path, starting from the rule set already running.
func NewFileRuleSource(path string, running *ruleset.RuleSet) *FileRuleSource {
	return &FileRuleSource{Path: path, last: running.Hash()}
}

// Poll reads the file and reports it when its content changed.
func (f *FileRuleSource) Poll() (string, []byte, error) {
	src, err := os.ReadFile(f.Path)
	if err != nil {
		return f.Path, nil, err
	}
	h := ruleset.HashOf(src)
	if h == f.last {
		return f.Path, nil, nil
	}
	f.last = h
	return f.Path, src, nil
}

// pollRules lets the exchanger offer a new rule set before select_objective. Errors
// never stop the run: they are traced and the running rule set stays.
func (e *Engine) pollRules() {
	if offered, err := e.sess.x.PollRules(tape{e.sess}); offered {
		e.reloadErr = err
	}
}

// reload compiles src and, when its fact kinds match the running ones, switches the
// session to it. Facts, revisions and the refraction memory of unchanged rules are kept.
func (s *Session) reload(name string, src []byte) error {
	rs, err := LoadRules(name, src)
	if err != nil {
		return err
	}
	if err := sameKinds(s.rs, rs); err != nil {
		return err
	}
	env := rs.NewEnv()
	for i := range rs.Kinds() { // the same kinds, in the same order (sameKinds)
		env.Elem().Field(i).Set(s.wm.env.Elem().Field(i))
	}
	firedAt := make([]uint64, len(rs.Rules()))
	for i, r := range rs.Rules() {
		for j, old := range s.rs.Rules() {
			if old.Name == r.Name && old.When == r.When {
				firedAt[i] = s.firedAt[j]
			}
		}
	}
	s.rs = rs
	s.wm.setRuleSet(rs, env)
	s.firedAt = firedAt
	return nil
}

// sameKinds requires identical fact kinds: the facts in memory must mean the same thing
// under the new rules.
func sameKinds(a, b *ruleset.RuleSet) error {
	ak, bk := a.Kinds(), b.Kinds()
	if len(ak) != len(bk) {
		return fmt.Errorf("the new rules declare other fact kinds; a running session keeps its kinds (restart the run to change them)")
	}
	for i, k := range ak {
		n := bk[i]
		if k.Name != n.Name || k.Many != n.Many || k.Type() != n.Type() {
			return fmt.Errorf("fact kind %q differs in the new rules; a running session keeps its kinds (restart the run to change them)", k.Name)
		}
	}
	return nil
}
