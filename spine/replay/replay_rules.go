package replay

import (
	"cmp"
	"fmt"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// MaxRecordedRuleFile caps the size of a rule file that a replay takes from a trace: the
// source its header carries, or a file a host opens by a path taken from the trace. A
// trace is outside input: its header may name /dev/zero or a FIFO, and the shipped rule
// files are a few kilobytes.
const MaxRecordedRuleFile = 1 << 20

// EmbeddedRules compiles the rule file the recording's header carries (rules.source),
// named by the recorded path. It returns nil and no error for a trace written before
// headers carried their rules. The source must hash to the recorded hash: a header whose
// source was edited is refused rather than replayed with rules it does not name.
func (r *Recording) EmbeddedRules() (*ruleset.RuleSet, error) {
	ref := r.Header.Rules
	if ref.Source == "" {
		return nil, nil
	}
	if len(ref.Source) > MaxRecordedRuleFile {
		return nil, fmt.Errorf("%s:1: header: rules.source is %d bytes, more than the %d a rule file taken from a trace may have", r.Name, len(ref.Source), MaxRecordedRuleFile)
	}
	if h := ruleset.HashOf([]byte(ref.Source)); h != ref.Hash {
		return nil, fmt.Errorf("%s:1: header: rules.source hashes to %s, not the recorded rules.hash %s: the header was edited", r.Name, h, ref.Hash)
	}
	rs, err := engine.LoadRules(cmp.Or(ref.Path, "rules.source"), []byte(ref.Source))
	if err != nil {
		return nil, fmt.Errorf("%s:1: header: rules.source: %w", r.Name, err)
	}
	return rs, nil
}
