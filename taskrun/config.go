package taskrun

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Config is one task to run live. Task, Workdir and LLM are required; the rest have
// defaults.
type Config struct {
	Task    string     // the user's words, verbatim
	Workdir string     // where R3's tools work; they cannot leave it
	LLM     llm.Config // endpoint, key and models (llm.LoadConfig)
	// ConfigPath is the file LLM was read from, if any: it is kept outside the work dir
	// and out of the sandbox's view, and its secrets are scrubbed like the key.
	ConfigPath string
	// Chat replaces the OpenAI-compatible client of LLM (a scripted model for the demo
	// and tests); the roles still take their model names from LLM.
	Chat llm.ChatModel

	Rules     *ruleset.RuleSet // nil: LoadRules(RulesPath)
	RulesPath string           // the rule file, "" for the shipped rules/ggs.yaml
	Watch     bool             // reload RulesPath at cycle boundaries when it changes
	// MaxIterations bounds the engine's loop (rounds); 0 keeps the engine's default.
	// A run that reaches it still ends in a FinalResult (reason iteration_bound).
	MaxIterations int

	MemoryDir string // the shared memory (LevelDB); "" for none
	// Memory is a store a long-lived process keeps open across tasks, used instead of
	// opening MemoryDir (which, when set, still names its directory for the placement
	// checks). RunTask neither closes it nor runs its own pass: it tells the store's
	// background Dreamer (memory.Service.NotifyFinalResult) after the FinalResult.
	Memory    *memory.Service
	SkipDream bool // no Dreamer pass after the task, even with memory (nor a notice to Memory's)
	// MemoryCorrupt is what to do when MemoryDir holds a corrupt store:
	// MemoryCorruptRefuse ("" too) or MemoryCorruptSkip.
	MemoryCorrupt string

	// TracePath is the trace to create; "" puts spine-<run id>.trace.jsonl in TraceDir,
	// else in the default state directory (EnvTraceDir, XDG_STATE_HOME, ~/.local/state).
	TracePath string
	TraceDir  string

	// SignKey is a private key file (trace.LoadSigner) that signs the trace: it must lie
	// outside the work dir, is hidden from the sandbox and read once, before the run.
	// Signer, when set, is the key already read (a worker reads its own once); SignKey
	// then still names its file for the placement check and the sandbox.
	SignKey string
	Signer  *trace.Signer

	// The tools' isolation: a bubblewrap sandbox reaching AllowNet only; NoSandbox runs
	// them unconfined; Jail, when set, is used as it is.
	AllowNet  []sandbox.NetRule
	NoSandbox bool
	Jail      sandbox.Jail
	// NetCheck, when set, is asked again at every connection about each address an
	// AllowNet name resolves to (a fleet worker's policy: its NATS servers, its own
	// machine), so a name whose answer changes after the run started is still held.
	NetCheck sandbox.AddrCheck

	// A person at a terminal: destructive commands, R1's questions, caution calls. nil:
	// refused, unanswered, refused.
	Confirmer sandbox.Confirmer
	Clarify   roles.Clarifier
	Caution   sandbox.Confirmer
	// CautionPolicy answers memory's Caution verdicts when Caution is nil: CautionRefuse,
	// CautionAllow or CautionLog; "" is the rule set's caution param (refuse as shipped).
	// The memory_* rules read it for the pairs OBSERVE hands them.
	CautionPolicy string

	// A display: every message as it is journalled, what each role is doing, every
	// event as the trace holds it (reload notices, the rule timeline, the fleet's bus),
	// and warnings (root, --no-sandbox).
	OnMessage func(trace.Message)
	OnStatus  func(roles.Status)
	Events    []ggsrun.EventObserver
	Warn      func(string)
	// WrapSink wraps the trace file, under the scrubber and Events: a test's hold on
	// the writes (a kill point, a pause), or the fleet's copy of the file's lines as
	// written. It is not a way to watch the run's events: Events is.
	WrapSink func(trace.Sink) trace.Sink

	// Sources of nondeterminism; nil: the wall clock and random ids.
	Clock clock.Clock
	IDs   engine.IDSource
	RunID string // "" for run-<time>-<random>
	// Meta is added to the trace header's setup fields (a fleet worker's task id and
	// attempt); it must hold no secret, and cannot replace the run's own fields.
	Meta map[string]string
	// MCPServers are MCP servers whose tools R3 is offered beside its own (stdio ones
	// started in the tools' sandbox).
	MCPServers []mcp.Server

	// The process's environment, for the trace directory's default and the secrets to
	// scrub; nil: the real one.
	Getenv  func(string) string
	Home    func() (string, error)
	Environ []string

	// Snapshots, when set, is the store the work dir is snapshotted into before the
	// first round, right after every tool call that may have changed it
	// (roles.ToolChangesWorkdir) and at the end of every round; the trace records each
	// root hash (roles.SnapshotName) and the header the store (meta snapshots, and
	// snapshot_tools). A resumed or forked run snapshots where its recording did, into
	// the store its header names unless this one is set.
	Snapshots *snapshot.Store

	resume *resumption // set by Resume: the run continues a recording
}

// Validate checks the fields that choose a policy or set a bound, before anything is
// opened: CautionPolicy, MemoryCorrupt and MaxIterations. Its error names the field the
// way a flag spells it (caution "ask": expected refuse, allow or log).
func (c *Config) Validate() error {
	switch c.CautionPolicy {
	case "", CautionRefuse, CautionAllow, CautionLog:
	default:
		return fmt.Errorf("caution %q: expected refuse, allow or log", c.CautionPolicy)
	}
	switch c.MemoryCorrupt {
	case "", MemoryCorruptRefuse, MemoryCorruptSkip:
	default:
		return fmt.Errorf("memory-corrupt %q: expected refuse or skip", c.MemoryCorrupt)
	}
	if c.MaxIterations < 0 {
		return fmt.Errorf("max-iterations %d: expected at least 1, or 0 for the engine's default", c.MaxIterations)
	}
	return nil
}

// Result is how a task ended and where its record is.
type Result struct {
	ggsrun.TaskResult
	RunID     string
	TracePath string // "" only when RunTask refused before creating it
	// TraceHead is the hash of the last line on the trace file: a copy outside the file,
	// so that a rewrite of the whole file can be told. TraceLines is that line's number.
	TraceHead  string
	TraceLines int
	// TraceCut is the write error that cut the trace short (a full disk), nil when every
	// line reached the file: the file then ends at line TraceLines, perhaps followed by
	// part of the next, and the run's error says so too.
	TraceCut  error
	SignedBy  string // the fingerprint of the key that signed the trace, "" when unsigned
	Isolation sandbox.Isolation
	// The live Auditor's findings (also in the trace, after the halt) and the messages
	// its bus could not take.
	Findings    []contract.AuditReport
	AuditErrors []string
	Dream       *DreamOutcome // the Dreamer's pass after the task; nil when none ran
	// MemoryWrites is what became of the Megrams GGS sent to memory; nil without memory
	// or when the run did not reach its halt. Lost() > 0 is a fault of the run.
	MemoryWrites *memory.TallyReport
	Pipeline     *roles.Pipeline
}

// LoadRules loads a GGS rule file, or the shipped rules/ggs.yaml when path is "", and
// checks it is one (ggs.CheckRuleSet).
func LoadRules(path string) (*ruleset.RuleSet, error) {
	rs, err := ggs.LoadRules(path)
	if err != nil {
		return nil, err
	}
	if err := ggs.CheckRuleSet(rs); err != nil {
		return nil, fmt.Errorf("%s: %w", rs.Path(), err)
	}
	return rs, nil
}

// runMeta is what the trace header says about the run's setup; never the key.
func runMeta(cfg llm.Config, workdir, memDir string, iso sandbox.Isolation) map[string]string {
	meta := map[string]string{"base_url": cfg.APIKey.Scrub(cfg.BaseURL)}
	isolationMeta(meta, iso)
	var models []string
	for _, r := range llm.Roles {
		if res, err := cfg.For(r); err == nil {
			models = append(models, string(r)+"="+res.Model)
		}
	}
	meta["models"] = strings.Join(models, " ")
	if abs, err := filepath.Abs(workdir); err == nil {
		meta["workdir"] = abs
	}
	if memDir != "" {
		meta["memory"] = memDir
	}
	return meta
}

// withMeta adds the caller's header fields to the run's own, which win a clash.
func withMeta(meta, extra map[string]string) map[string]string {
	for k, v := range extra {
		if _, own := meta[k]; !own {
			meta[k] = v
		}
	}
	return meta
}
