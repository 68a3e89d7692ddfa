package trace

// Format names the trace layout this package writes. It is the header's "format" and
// changes whenever a reader of the old layout would misread the new one. spine-trace/2
// ends every line in its link of the hash chain (chain.go).
const Format = "spine-trace/2"

// FormatUnchained is the layout before the hash chain: the same lines without h. Such
// traces are read and replayed, and reported as unchained.
const FormatUnchained = "spine-trace/1"

// Event kinds. Each has its body type in bodies.go; Decode maps one to the other.
const (
	// The engine's own events.
	KindHeader            = "header"              // Header
	KindFactAsserted      = "fact_asserted"       // FactChange
	KindFactUpdated       = "fact_updated"        // FactChange
	KindFactRetracted     = "fact_retracted"      // FactChange
	KindConflictSet       = "conflict_set"        // ConflictSet
	KindRuleFired         = "rule_fired"          // RuleFired
	KindRuleError         = "rule_error"          // RuleError
	KindTransition        = "transition"          // Transition
	KindEffectorCall      = "effector_call"       // EffectorCall
	KindEffectorResult    = "effector_result"     // EffectorResult
	KindHalt              = "halt"                // Halt
	KindRulesReloaded     = "rules_reloaded"      // Reload
	KindRulesReloadFailed = "rules_reload_failed" // Reload
	KindEmitError         = "emit_error"          // EmitError

	// Events effectors journal while the engine waits on them.
	KindExchange = "exchange" // Exchange: a model call, a tool call, a plan check, a memory query
	KindMessage  = "message"  // Message: an inter-role bus message

	// Written where a run continues a recording (a resume, a fork): the lines before it
	// are the recording's.
	KindResumed = "resumed" // Resumed

	// Events hosts write after the halt.
	KindAudit      = "audit"       // Audit: one Auditor finding
	KindMemoryLost = "memory_lost" // MemoryLost: Megrams sent to memory that it did not store
)

// Exchange name prefixes: an exchange's Name is "<prefix><what>", e.g. "llm:R3".
const (
	ExchangeModel  = "llm:"    // a role's model call; what is the role
	ExchangeTool   = "tool:"   // a tool call; what is the tool
	ExchangeCheck  = "check:"  // a check of a role's output, e.g. "check:plan"
	ExchangeMemory = "memory:" // a query of shared memory, e.g. "memory:calibrate"
	ExchangeUser   = "user:"   // a question to the user, e.g. "user:clarify"
	// ExchangeSnapshot is a snapshot of the run's files, "snapshot:workdir": its
	// response is the snapshot's root hash.
	ExchangeSnapshot = "snapshot:"
)
