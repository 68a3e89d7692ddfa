package engine

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/agentspine/spine/spine/ruleset"
)

// The rule set and its parts are package ruleset's, named here as hosts know them.
type ()

const ()

// LoadRulesFile reads and compiles a rule file.
func LoadRulesFile(path string) (*ruleset.RuleSet, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadRules(path, src)
}

// LoadRulesFS reads and compiles a rule file from a file system, such as the embedded
// rules.FS.
func LoadRulesFS(fsys fs.FS, path string) (*ruleset.RuleSet, error) {
	src, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	return LoadRules(path, src)
}

// LoadRules compiles a rule file with ruleset.Load, then checks its matcher against
// expr's VM (checkMatcher). name is used in error messages and as the rule set's path.
// On failure the error is a LoadErrors listing every problem found.
func LoadRules(name string, src []byte) (_ *ruleset.RuleSet, err error) {
	rs, err := ruleset.Load(name, src)
	if err != nil {
		return nil, err
	}
	defer func() { // a bug in the check must not take the process down either
		if r := recover(); r != nil {
			err = ruleset.LoadErrors{{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while loading: %v", r)}}
		}
	}()
	if r, err := checkMatcher(rs); err != nil {
		return nil, ruleset.LoadErrors{{File: name, Line: r.Line, Col: 1, Rule: r.Name, Msg: "internal error: " + err.Error()}}
	}
	return rs, nil
}
