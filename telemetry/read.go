package telemetry

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentspine/spine/spine"
)

// event is one trace line with its body decoded by kind; body is nil for a kind the
// conversion does not use.
type event struct {
	seq  int64
	t    time.Time
	kind string
	body any
}

type header struct {
	Format string            `json:"format"`
	Run    string            `json:"run"`
	Rules  rulesRef          `json:"rules"`
	Meta   map[string]string `json:"meta"`
}

type rulesRef struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Hash string `json:"hash"`
}

type transition struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Event     string `json:"event"`
	Iteration int    `json:"iteration"`
}

type ruleFired struct {
	Cycle    int    `json:"cycle"`
	Rule     string `json:"rule"`
	Salience int    `json:"salience"`
	Then     struct {
		Objective string `json:"objective"`
	} `json:"then"`
}

type ruleError struct {
	Cycle  int      `json:"cycle"`
	Rule   string   `json:"rule"`
	Errors []string `json:"errors"`
}

type conflictSet struct {
	Cycle       int      `json:"cycle"`
	Stage       string   `json:"stage"`
	ConflictSet []string `json:"conflict_set"`
	Fired       string   `json:"fired"`
	DecidedBy   string   `json:"decided_by"`
}

type factChange struct {
	Fact struct {
		Kind    string         `json:"kind"`
		ID      string         `json:"id"`
		Payload map[string]any `json:"payload"`
	} `json:"fact"`
}

type effectorResult struct {
	Call       int    `json:"call"`
	Op         string `json:"op"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
}

type exchange struct {
	Name       string          `json:"name"`
	Request    json.RawMessage `json:"request"`
	Response   json.RawMessage `json:"response"`
	Error      string          `json:"error"`
	Usage      *spine.Usage    `json:"usage"`
	DurationMS int64           `json:"duration_ms"`
}

type message struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Type   string `json:"type"`
	TaskID string `json:"task_id"`
}

type halt struct {
	Outcome    string `json:"outcome"`
	Objective  string `json:"objective"`
	Iterations int    `json:"iterations"`
	Firings    int    `json:"firings"`
	Reason     string `json:"reason"`
}

type audit struct {
	Finding struct {
		Kind     string  `json:"kind"`
		Severity string  `json:"severity"`
		Message  string  `json:"message"`
		Evidence []int64 `json:"evidence"`
	} `json:"finding"`
}

type reload struct {
	Rules rulesRef `json:"rules"`
}

// decoders maps the kinds the conversion uses to a new body value.
var decoders = map[string]func() any{
	spine.EvHeader:         func() any { return &header{} },
	spine.EvTransition:     func() any { return &transition{} },
	spine.EvRuleFired:      func() any { return &ruleFired{} },
	spine.EvRuleError:      func() any { return &ruleError{} },
	spine.EvConflictSet:    func() any { return &conflictSet{} },
	spine.EvFactAsserted:   func() any { return &factChange{} },
	spine.EvFactUpdated:    func() any { return &factChange{} },
	spine.EvEffectorResult: func() any { return &effectorResult{} },
	spine.EvExchange:       func() any { return &exchange{} },
	spine.EvMessage:        func() any { return &message{} },
	spine.EvHalt:           func() any { return &halt{} },
	"audit":                func() any { return &audit{} },
	spine.EvRulesReloaded:  func() any { return &reload{} },
}

// readFile reads a trace file into events. A torn last line is left out, as every
// reader does; the run then has no halt and its span says so.
func readFile(path string) ([]event, error) {
	tf, err := spine.ReadTraceFile(path)
	if err != nil {
		return nil, err
	}
	evs := make([]event, 0, len(tf.Lines))
	for _, l := range tf.Lines {
		t, err := time.Parse(time.RFC3339Nano, l.T)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: time %q is not RFC 3339", path, l.Line, excerpt(l.T, 40))
		}
		ev := event{seq: l.Seq, t: t, kind: l.Kind}
		if mk, ok := decoders[l.Kind]; ok {
			b := mk()
			if err := l.Decode(b); err != nil {
				return nil, fmt.Errorf("%s:%d: %s event: %v", path, l.Line, l.Kind, err)
			}
			ev.body = b
		}
		evs = append(evs, ev)
	}
	return evs, nil
}
