package trace

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/agentspine/spine/contract"
)

// The body of every event kind. Field order and tags are the bytes of the trace: a
// body decoded from a line and encoded again gives the line back (TestRoundTrip holds
// every fixture to it). Values a writer passes through unread (requests, results,
// payloads, parameters) are json.RawMessage: the reader gets them verbatim.

// Header is the first line of every trace (KindHeader).
type Header struct {
	Format string            `json:"format"`
	Run    string            `json:"run"`
	Rules  RulesRef          `json:"rules"`
	Params json.RawMessage   `json:"params"` // the rule file's params after overrides, by name
	Meta   map[string]string `json:"meta,omitempty"`
	Limits Limits            `json:"limits"`
}

// RulesRef names the rule file in a header. Source is the whole file, so that a trace
// replays with no rule file at hand; traces written before it was added have none.
type RulesRef struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Hash   string `json:"hash"`
	Source string `json:"source,omitempty"`
}

// Limits are recorded in the header because they change what a run does; a replay
// applies the recorded ones.
type Limits struct {
	MaxIterations int `json:"max_iterations"`
	MaxFirings    int `json:"max_firings"`
}

// Fact is a working-memory fact as a trace records it.
type Fact struct {
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Rev     uint64          `json:"rev"`
	Payload json.RawMessage `json:"payload"`
}

// FactChange is the body of fact_asserted, fact_updated and fact_retracted.
type FactChange struct {
	Fact Fact `json:"fact"`
}

// RuleEval is one rule's condition in a conflict_set event.
type RuleEval struct {
	Rule      string `json:"rule"`
	Result    string `json:"result"`              // "true", "false" or "error"
	Refracted bool   `json:"refracted,omitempty"` // true, but it already fired on these revisions
	Error     string `json:"error,omitempty"`
}

// ConflictSet is one agenda cycle (KindConflictSet): every rule evaluated, the rules
// whose condition held in agenda order, and the one fired.
type ConflictSet struct {
	Cycle       int        `json:"cycle"`
	Stage       string     `json:"stage"`
	Scope       string     `json:"scope"` // "all", or "terminal" when only rules setting a terminal objective were considered
	Evaluated   []RuleEval `json:"evaluated"`
	ConflictSet []string   `json:"conflict_set"` // in agenda order; the first fired
	Fired       string     `json:"fired"`        // "" when the conflict set was empty
	DecidedBy   string     `json:"decided_by,omitempty"`
	// Objectives are the scored objectives' values the rules saw, in file order; absent
	// when the rule set scores none.
	Objectives []ObjectiveEval `json:"objectives,omitempty"`
}

// ObjectiveEval is one scored objective's value in a cycle: its score and whether it is
// satisfied, each present when the objective declares it, or the error that kept it
// from being evaluated (then neither value is recorded).
type ObjectiveEval struct {
	Objective string   `json:"objective"`
	Error     string   `json:"error,omitempty"`
	Score     *float64 `json:"score,omitempty"`
	Satisfied *bool    `json:"satisfied,omitempty"`
}

// AppendFields writes the body as encoding/json would, without reflection.
func (c *ConflictSet) AppendFields(buf []byte) []byte {
	return AppendConflictSet(buf, c.Cycle, c.Stage, c.Scope, c.Evaluated, c.ConflictSet, c.Fired, c.DecidedBy, c.Objectives)
}

// AppendJSON appends the evaluation as a JSON object, as encoding/json would.
func (o ObjectiveEval) AppendJSON(buf []byte) []byte {
	return AppendObjectiveEval(buf, o.Objective, o.Error, deref(o.Score), o.Score != nil, deref(o.Satisfied), o.Satisfied != nil)
}

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

// AppendFloat appends a finite float as encoding/json writes it.
func AppendFloat(buf []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(buf); n >= 4 && buf[n-4] == 'e' && buf[n-3] == '-' && buf[n-2] == '0' {
			buf[n-2] = buf[n-1]
			buf = buf[:n-1]
		}
	}
	return buf
}

// appendArray appends xs as a JSON array, each element by appendOne, as encoding/json
// would (null for a nil slice).
func appendArray[T any](buf []byte, xs []T, appendOne func([]byte, T) []byte) []byte {
	if xs == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i, x := range xs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendOne(buf, x)
	}
	return append(buf, ']')
}

// appendRuleEval appends one RuleEval as a JSON object, as encoding/json would.
func appendRuleEval(buf []byte, e RuleEval) []byte {
	buf = append(buf, `{"rule":`...)
	buf = AppendString(buf, e.Rule)
	buf = AppendString(AppendKey(buf, "result"), e.Result)
	if e.Refracted {
		buf = append(AppendKey(buf, "refracted"), "true"...)
	}
	if e.Error != "" {
		buf = AppendString(AppendKey(buf, "error"), e.Error)
	}
	return append(buf, '}')
}

// FactAction is one fact a rule's then asserts, updates or retracts. Fields is the
// encoding of the values the rule file gives; package ruleset keeps them typed as well.
type FactAction struct {
	Kind   string          `json:"kind"`
	ID     string          `json:"id,omitempty"`
	Fields json.RawMessage `json:"fields,omitempty"`
}

// Then is what a rule does when it fires, declared once: a compiled rule carries it
// (ruleset.Rule.Then) and its rule_fired event records it.
type Then struct {
	Objective  string       `json:"objective,omitempty"`
	Assert     []FactAction `json:"assert,omitempty"`
	Update     []FactAction `json:"update,omitempty"`
	Retract    []FactAction `json:"retract,omitempty"`
	Transition string       `json:"transition,omitempty"`
}

// RuleFired is a rule firing (KindRuleFired).
type RuleFired struct {
	Cycle    int    `json:"cycle"`
	Rule     string `json:"rule"`
	Salience int    `json:"salience"`
	Then     *Then  `json:"then"`
}

// RuleError lists then-actions of a fired rule that could not be carried out
// (KindRuleError).
type RuleError struct {
	Cycle  int      `json:"cycle"`
	Rule   string   `json:"rule"`
	Errors []string `json:"errors"`
}

// Transition is a move of the engine's FSM (KindTransition).
type Transition struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Event     string `json:"event"`
	Iteration int    `json:"iteration"`
}

// AppendFields writes the body as encoding/json would, without reflection.
func (b Transition) AppendFields(buf []byte) []byte {
	buf = AppendString(AppendKey(buf, "from"), b.From)
	buf = AppendString(AppendKey(buf, "to"), b.To)
	buf = AppendString(AppendKey(buf, "event"), b.Event)
	return strconv.AppendInt(AppendKey(buf, "iteration"), int64(b.Iteration), 10)
}

// EffectorCall is the engine asking its effector (KindEffectorCall). Call counts the
// run's effector calls from 1; a replay serves results by it.
type EffectorCall struct {
	Call        int             `json:"call"`
	Op          string          `json:"op"` // mint, gate or finish
	RequestHash string          `json:"request_hash"`
	Request     json.RawMessage `json:"request"`
}

// EffectorResult is the effector's answer to the call of the same number
// (KindEffectorResult): its result or its error.
type EffectorResult struct {
	Call       int             `json:"call"`
	Op         string          `json:"op"`
	DurationMS int64           `json:"duration_ms"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// Halt is how a run ended (KindHalt).
type Halt struct {
	Run        string `json:"run"`
	Outcome    string `json:"outcome"`
	Objective  string `json:"objective"`
	Iterations int    `json:"iterations"`
	Firings    int    `json:"firings"`
	Reason     string `json:"reason,omitempty"`
}

// Reload is a rule file reloaded between cycles (KindRulesReloaded, with its Source)
// or refused (KindRulesReloadFailed, with its Error; the running rules stayed).
type Reload struct {
	Path   string `json:"path"`
	Hash   string `json:"hash,omitempty"`
	Source string `json:"source,omitempty"` // the whole rule file, so a replay can apply it
	Error  string `json:"error,omitempty"`
}

// EmitError records a host event that could not be written as given (KindEmitError).
type EmitError struct {
	Kind  string `json:"event_kind"`
	Error string `json:"error"`
}

// Exchange is one nested exchange an effector journalled while the engine waited on
// it (KindExchange): a model call, a tool call, a check, a memory query. Name says what
// was called ("llm:R2", "tool:shell", …; see the Exchange* prefixes). A model call's
// Usage is its response's, recorded beside it; the request and response shapes of model
// and tool calls are contract's (ModelRequest, ModelResponse, ToolRequest, ToolResponse).
type Exchange struct {
	Name       string               `json:"name"`
	Request    json.RawMessage      `json:"request"`
	Response   json.RawMessage      `json:"response,omitempty"`
	Error      string               `json:"error,omitempty"`
	Usage      *contract.ModelUsage `json:"usage,omitempty"`
	DurationMS int64                `json:"duration_ms"`
}

// Message is one inter-role message: the body of a message event, and what the bus
// carries.
//
// Seq is the trace seq of the event that journalled the message, or the bus's own
// number for a message that is in no trace. In a trace line it is the envelope's seq,
// never a field of the body: a trace writes a Message without it (AppendJSON), and a
// Message decoded from a line gets it from the envelope. Encoded on its own (a bus
// carrying it elsewhere), a Message has its seq.
type Message struct {
	Seq     int64           `json:"seq,omitempty"`
	From    string          `json:"from"`
	To      string          `json:"to"`
	Type    string          `json:"type"`
	TaskID  string          `json:"task_id,omitempty"`
	Payload json.RawMessage `json:"payload"`
}

// Audit is one Auditor finding, written after the halt (KindAudit). The finding is
// wrapped: an AuditReport's own "kind" would clash with the event's.
type Audit struct {
	Finding contract.AuditReport `json:"finding"`
}

// MemoryLost is written after the halt (KindMemoryLost) when Megrams the run sent to
// memory did not reach the store: a fault of the run, whatever its FinalResult says.
type MemoryLost struct {
	Store  string           `json:"store,omitempty"` // the store's directory
	Sent   int              `json:"sent"`
	Stored int              `json:"stored"`
	Lost   []MemoryLostItem `json:"lost"`
}

// MemoryLostItem is one Megram that did not reach the store ("" id: its write was
// refused before it had one), with the store's error.
type MemoryLostItem struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// Resumed marks where a run continued a recording (KindResumed): the lines before it are
// the recording's, byte for byte and chained as they were, and what follows is the
// continued run. Its t is when the run continued.
type Resumed struct {
	Mode    string `json:"mode"`              // "resume", or "fork" for a run branched at a past cycle
	From    string `json:"from"`              // the recording continued, as named to the host
	Line    int    `json:"line"`              // the recording's last line kept (the line before this one)
	FromSeq int64  `json:"from_seq"`          // that line's seq
	Head    string `json:"head,omitempty"`    // that line's h: the prefix this trace shares with the recording
	Host    string `json:"host,omitempty"`    // where the run continued (a host or worker name)
	Stopped string `json:"stopped,omitempty"` // why the recording stopped, when known
	Reason  string `json:"reason,omitempty"`  // why the run continued here (the first exchange not recorded, a fork's cycle)
}
