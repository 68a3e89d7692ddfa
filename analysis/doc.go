// Package analysis checks rule files beyond what loading them proves: static warnings
// (params no rule reads, rules that can never fire, conditions that are never true), a
// completeness and overlap analysis of a rule set over declared signal domains, and the
// what-if re-decision of recorded traces with edited rules.
//
// The completeness analysis partitions the signal space by every threshold the rules'
// conditions compare against and decides, region by region, which rule wins: regions where
// no rule fires are gaps, regions where rules of equal salience and specificity both fire
// are overlaps. Every region's witness input is evaluated by an engine.Session, so a claim
// the engine disagrees with is an error, never a finding. Conditions the analysis cannot
// model (calls, lists, arithmetic on fields) are reported as not analysable, never
// assumed true or false.
//
// A rule switched off by a param (a top-level conjunct over params alone that is false,
// as `params.replan_cap > 0` with replan_cap 0) is reported off, not warned about; an
// expectation cell switched off the same way is off, not empty.
//
// The package owns the analysis and its text reports. It must not change a rule set, call
// an effector or write a trace: what-if replay evaluates rules on recorded facts in
// throwaway sessions whose traces are discarded. It reads no clock and no random source,
// and sorts everything it prints.
package analysis
