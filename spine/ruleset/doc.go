// Package ruleset turns a rule file into an immutable, compiled rule set: the first stage
// of the spine, as expr's parser and checker are of expr.
//
// It owns the rule file's language: YAML loading with positions (every problem reported
// at its file:line:col with a caret snippet, never just the first), params, the fact
// kinds and their payload struct types, objectives with their compiled score and
// satisfied, rules with their compiled `when` programs, specificity and the static agenda
// order, the typed environment struct every program runs against, and the matcher that
// package cond builds from the rules' conditions.
//
// Each rule's `when` is compiled once, against a typed environment built from the
// declared fact kinds, so a misspelt field or a type error fails the load with its
// position. An objective may carry the seed's score and satisfied: expr expressions over
// the same facts and params (a score is a number, satisfied a bool), able to read only
// the objectives declared before them.
//
// A RuleSet is immutable once loaded and safe to share between goroutines and sessions.
// The package holds no facts, runs no cycle, evaluates no program and does no I/O: it
// compiles the bytes it is given. Working memory, the agenda and the loop that run a rule
// set are package engine's, which also checks the matcher against expr's VM when it
// loads a rule set through engine.LoadRules.
package ruleset
