// Package rules ships the project's rule sets as data: rules/ggs.yaml (the Goal Gradient
// Solver's macro-states and the Law 2 kill-switch), rules/harness.yaml (the Signals &
// Boundaries meta-harness rule set) and rules.schema.json (a JSON Schema that editors
// with a YAML language server use to validate and complete rule files).
//
// It owns the files and their embedding only. It must not interpret them: loading and
// compiling is package spine/ruleset's job (through spine/engine's LoadRules), and the
// decisions belong to the rule files, so that editing a rule or a threshold never needs
// a rebuild (pass the edited copy with --rules).
package rules

import "embed"

// FS holds every shipped rule file and the rule-file JSON Schema.
//
//go:embed *.yaml *.json
var FS embed.FS

// Shipped rule files, as paths inside FS.
const (
	GGS     = "ggs.yaml"
	Harness = "harness.yaml"
)
