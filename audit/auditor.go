package audit

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// Auditor is R6. It is safe for concurrent use, but a message stream must be observed in
// seq order from one goroutine at a time (the bus delivers that way).
type Auditor struct {
	cfg Config

	mu       sync.Mutex
	tasks    map[string]*task
	owners   map[string]owner // subtask_id → the task that first claimed it
	reported map[string]bool  // findings already made, for those raised once
	lastSeq  int64
	lastTask string // task of the latest message that named one
	messages int
	ended    bool
	findings []contract.AuditReport
	fresh    []contract.AuditReport // findings of the current Observe / End call
}

// owner is where a subtask ID was first seen.
type owner struct {
	task string
	seq  int64
}

// New returns an Auditor with the operator's thresholds. The configuration is copied and
// never changes afterwards.
func New(cfg Config) (*Auditor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Auditor{
		cfg:      cfg,
		tasks:    map[string]*task{},
		owners:   map[string]owner{},
		reported: map[string]bool{},
	}, nil
}

// Config returns the thresholds the Auditor was made with.
func (a *Auditor) Config() Config { return a.cfg }

// Observe reads one message and returns the findings it completes, ordered by seq then
// kind. The message is evidence only: nothing in it configures the Auditor.
func (a *Auditor) Observe(m trace.Message) []contract.AuditReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fresh = nil
	a.messages++
	if m.Seq <= a.lastSeq {
		a.raise(KindMalformedMessage, m.TaskID, fmt.Sprintf("%s from %s has seq %d after seq %d; messages must be observed in publish order", m.Type, m.From, m.Seq, a.lastSeq), m.Seq)
	} else {
		a.lastSeq = m.Seq
	}
	a.observe(&m)
	return a.flush()
}

// End closes the stream: every DispatchManifest still waiting for outcomes is reported
// as fan-in incomplete, and every task that began with a TaskSpec and has no FinalResult
// as no_final_result. It returns those findings; later calls return none.
func (a *Auditor) End() []contract.AuditReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fresh = nil
	if a.ended {
		return nil
	}
	a.ended = true
	for _, id := range sortedKeys(a.tasks) {
		a.closeManifests(a.tasks[id], 0, "by the end of the stream")
		a.checkEnded(a.tasks[id])
	}
	return a.flush()
}

// Findings returns every finding so far, ordered by seq then kind.
func (a *Auditor) Findings() []contract.AuditReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Clone(a.findings)
	sortFindings(out)
	return out
}

// Messages is the number of messages observed.
func (a *Auditor) Messages() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.messages
}

// raise records a finding whose evidence is the given seqs (sorted, without repeats).
func (a *Auditor) raise(kind, taskID, msg string, evidence ...int64) {
	ev := slices.Clone(evidence)
	ev = slices.DeleteFunc(ev, func(s int64) bool { return s <= 0 })
	slices.Sort(ev)
	ev = slices.Compact(ev)
	f := contract.AuditReport{Kind: kind, Severity: Severity(kind), TaskID: taskID, Message: msg, Evidence: ev}
	a.fresh = append(a.fresh, f)
	a.findings = append(a.findings, f)
}

// once reports whether key is new, and remembers it.
func (a *Auditor) once(key string) bool {
	if a.reported[key] {
		return false
	}
	a.reported[key] = true
	return true
}

func (a *Auditor) flush() []contract.AuditReport {
	out := a.fresh
	a.fresh = nil
	sortFindings(out)
	return out
}

// sortFindings orders findings by their first evidence seq, then kind, task and message,
// so the order is total.
func sortFindings(fs []contract.AuditReport) {
	slices.SortStableFunc(fs, func(x, y contract.AuditReport) int {
		return cmp.Or(
			cmp.Compare(firstSeq(x), firstSeq(y)),
			cmp.Compare(x.Kind, y.Kind),
			cmp.Compare(x.TaskID, y.TaskID),
			cmp.Compare(x.Message, y.Message),
			slices.Compare(x.Evidence, y.Evidence),
		)
	})
}

func firstSeq(f contract.AuditReport) int64 {
	if len(f.Evidence) == 0 {
		return 0
	}
	return f.Evidence[0]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
