// Package engine is the deterministic control spine for agents: facts in a working
// memory, production rules loaded from YAML with expr predicates, an agenda that fires
// exactly one rule per cycle, and a five-state FSM that calls effectors at its edge.
// Every fact change, rule evaluation, conflict resolution, transition and effector call
// is written to an append-only JSONL trace. The spine is split by stage: package
// spine/ruleset loads and compiles rule sets, package spine/cond reads a condition and
// builds the matcher, this package runs rule sets (working memory, the agenda, the
// session and its loop, hot reload, the exchanger), package spine/trace owns the
// trace's layout (the events' types, the sinks, the hash chain and the reader), and
// package spine/replay replays a trace through this package's Exchanger. The engine
// imports none of the packages that build on it (replay, the roles, the hosts).
//
// The package owns the engine and nothing domain-specific: it knows no role, no loss
// function and no model, and it neither parses nor compiles rules. It does no I/O of its
// own except through the Sink it is given (and the file helpers that open rule files
// and traces), reads time only from the injected clock.Clock and identifiers only from the
// injected IDSource, and never iterates a map into its output. Given the same rule set, the same clock readings, the same ids
// and the same effector results, it writes the same trace, byte for byte.
//
// # Rule sets
//
// LoadRules compiles a YAML rule file with ruleset.Load into an immutable RuleSet that
// may be shared by any number of sessions and goroutines, then checks its matcher
// against expr's VM on the witnesses of its regions. The engine names the rule set's
// types (RuleSet, Rule, FactKind, Fields, ...) as aliases of package ruleset's. Scored
// objectives are evaluated at the start of every cycle, recorded in its conflict_set
// event when the rule set declares any, and read by rules as objectives.NAME.score and
// objectives.NAME.satisfied.
//
// # The agenda
//
// A cycle evaluates every rule against working memory. The rules that are true and not
// refracted (a rule does not fire again until a fact kind it reads has changed) form the
// conflict set, ordered by salience ↓, specificity ↓ (top-level conjuncts of `when`),
// recency ↓ (newest revision among the kinds the rule reads) and name ↑. The first rule
// fires; its `then` sets the objective, asserts, updates or retracts facts, or requests
// a transition. A predicate that errors or panics is that rule's outcome for the cycle.
//
// # The caller's loop
//
// Engine.Run drives this loop; hosts that only need decisions drive a Session with
// Cycle themselves.
//
//  1. Load a RuleSet once (LoadRulesFile, LoadRulesFS).
//  2. Create an Engine with an Effector and options: WithClock, WithIDs, WithTrace,
//     WithMaxIterations, WithMaxFirings. The trace header (format, run id, rule-set
//     hash, params) is written at once.
//  3. Optionally seed facts through Engine.Session().Put.
//  4. Call Run with a context. Each iteration:
//     a. observe: the state fact is updated, so rules can match on it; an effector that
//     is also an Observer gates the current construct (or the seed) and its signals
//     become facts;
//     b. select_objective: one agenda cycle over every rule; a terminal objective or a
//     rule's transition request skips act and evaluate; an empty conflict set ends
//     the run with outcome no_rule;
//     c. act: Effector.Mint is called with the objective and every declared fact;
//     d. evaluate: Effector.Gate judges the construct; its changes become facts;
//     e. terminate_or_iterate: one agenda cycle over the rules that set a terminal
//     objective; a terminal objective ends the run, the iteration bound ends it with
//     max_iterations, otherwise the loop goes back to observe.
//  5. Read the Result; the trace ends with a halt event. Cancelling the context stops
//     the loop at the next state boundary with the trace flushed.
//
// A run stopped from outside its rules — cancelled, at the iteration bound, or by an
// effector call that failed — is still ended by a rule when the effector is an
// Interrupter: its Interrupt call turns the reason into facts, the FSM moves to
// terminate_or_iterate (event interrupted) and one cycle over the terminal rules
// decides; a terminal objective gets its Finish call. The recorded interrupt call of a
// cancelled run is where its replay is cancelled.
//
// FSM events are fired only from this loop, never from inside an FSM callback.
//
// # Recording and replay
//
// Every clock reading is the time of one event, the run id is in the header, and every
// effector call is journalled with its request (and the request's hash), its result or
// error and its duration. Effectors journal their own nested work (model calls, tool
// calls, bus messages) through JournalFrom(ctx); a live run flushes the trace after
// each of them and after each effector call, so a run killed mid-cycle keeps what it
// did before the kill, while a replay's writes stay batched. All of it passes through one
// Exchanger, the engine's only door to the world: the live one reads the injected clock
// and ids and calls the effector; package replay's, the recorded one, serves a
// recording's clock readings and effector results, calls no effector and writes the
// recorded nested events again. The engine takes the same path with either, so a replay
// gives the same trace byte for byte; a run that asks an effector for anything else
// stops with a replay.DivergenceError naming the recorded seq, the call and the first
// differing field.
//
// # Hot reload
//
// WithRuleSource makes the engine poll for a new rule file before every select_objective.
// A file that loads and declares the same fact kinds replaces the running rules at that
// cycle boundary; the event records the new hash and source, so replays apply it too. A
// file that does not load is traced and the running rules stay.
package engine
