// Package cond is the one reading of a rule's condition. It takes the tree expr has
// checked, typed and optimised (program.Node()), and classifies it into comparisons of
// fact fields against constants combined by and/or/not, leaving everything else (function
// calls, arithmetic on fields, lists, ...) opaque. Package ruleset compiles the
// classified conditions of a rule set into a Matcher; package analysis partitions the
// space of facts by the same thresholds.
//
// The package knows nothing of rule files or working memory: an Env resolves names, and
// an Input carries the facts' values. It must never evaluate a condition differently
// from expr's VM: where it cannot be sure, a part is opaque and the VM decides.
package cond
