package textview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Timeline renders trace events as a readable, one-line-per-step account. It works on
// decoded events (package trace), so the same code shows a recorded trace and a run as
// it happens (the CLI decodes each line as it is written).
type Timeline struct {
	W   io.Writer
	All bool // also show state changes and every rule evaluation, and full exchanges

	// Messages makes the writer of bus messages, called once at the first message with
	// GGS's ε from the header's params (0.1 when the rules name none): the live display
	// of a run, so that both show a message alike. Its lines go under the event.
	Messages func(w io.Writer, epsilon float64) func(trace.Message)
	// Header gives more lines for the header, after its params: what the CLI reads from
	// its meta with packages this one does not import (the MCP tools R3 was offered).
	Header func(h trace.Header, all bool) []string

	start   time.Time
	epsilon *float64
	message func(trace.Message)
	msgBuf  bytes.Buffer
}

// NewTimeline is the timeline spine trace show, play and demo print on w: the bus
// messages as the live display of a run shows them (Pipeline), and the MCP tools R3 was
// offered under the header (MCPToolLines).
func NewTimeline(w io.Writer, all bool) *Timeline {
	return &Timeline{W: w, All: all, Header: MCPToolLines,
		Messages: func(w io.Writer, eps float64) func(trace.Message) { return (&Pipeline{W: w, Epsilon: eps}).Message }}
}

// Line decodes one encoded event line and shows it; a line that is not an event of the
// trace's layout is the decoder's error.
func (tl *Timeline) Line(raw []byte) error {
	e, err := trace.DecodeLine(raw)
	if err != nil {
		return err
	}
	tl.Event(&e)
	return nil
}

// Event shows one event.
func (tl *Timeline) Event(e *trace.Event) {
	if tl.start.IsZero() {
		tl.start = e.Time
	}
	at := fmt.Sprintf("%5d %9s", e.Seq, "+"+e.Time.Sub(tl.start).Round(time.Microsecond).String())
	// Every value shown is the trace's, so from a model, a tool or a file: one step is
	// one line, and nothing in it reaches the terminal raw.
	p := func(format string, args ...any) {
		termtext.Printf(tl.W, "%s  %s", at, fmt.Sprintf(format, args...))
	}
	switch b := e.Body.(type) {
	case trace.Header:
		hash := b.Rules.Hash
		if len(hash) > 19 {
			hash = hash[:19] + "…"
		}
		p("run %s · rules %s (%s) · %s", b.Run, b.Rules.Name, hash, b.Format)
		var params map[string]any
		_ = json.Unmarshal(b.Params, &params)
		if len(params) > 0 {
			p("params %s", CompactJSON(params))
		}
		if tl.Header != nil {
			for _, l := range tl.Header(b, tl.All) {
				p("%s", l)
			}
		}
		tl.epsilon = runlog.Epsilon(b)
	case trace.FactChange:
		f := b.Fact
		verb := strings.TrimPrefix(e.Kind, "fact_")
		switch {
		case f.Kind == ruleset.KindState:
			if tl.All {
				p("state     %s", string(f.Payload))
			}
		case f.Kind == ruleset.KindObjective:
			var o struct{ Name, Rule string }
			_ = json.Unmarshal(f.Payload, &o)
			p("objective %s (set by %s)", o.Name, o.Rule)
		case e.Kind == trace.KindFactRetracted:
			p("fact      %s/%s retracted (rev %d)", f.Kind, f.ID, f.Rev)
		default:
			p("fact      %s/%s %s (rev %d) %s", f.Kind, f.ID, verb, f.Rev, string(f.Payload))
		}
	case trace.ConflictSet:
		tl.conflictSet(b, p)
	case trace.Message:
		tl.showMessage(b, p)
	case trace.Exchange:
		tl.exchange(b, p)
	case trace.Reload:
		if b.Error != "" {
			p("rules     reload of %s failed; the running rules stay: %s", b.Path, b.Error)
		} else {
			p("rules     reloaded %s (%s)", b.Path, b.Hash)
		}
	case trace.RuleFired:
		// Shown with its cycle's conflict set.
	case trace.RuleError:
		p("rule      %s: %s", b.Rule, strings.Join(b.Errors, "; "))
	case trace.Transition:
		if b.To == engine.StateSelect {
			p("── iteration %d", b.Iteration)
		} else if tl.All {
			p("state     %s → %s", b.From, b.To)
		}
	case trace.EffectorCall:
		if tl.All {
			p("%-9s call %d %s", b.Op, b.Call, string(b.Request))
		}
	case trace.EffectorResult:
		switch {
		case b.Error != "":
			p("%-9s call %d failed: %s", b.Op, b.Call, b.Error)
		case tl.All:
			p("%-9s call %d → %s", b.Op, b.Call, string(b.Result))
		default:
			p("%-9s call %d → %s", b.Op, b.Call, summarizeResult(b.Result))
		}
	case trace.Halt:
		msg := fmt.Sprintf("halt      %s · objective %s · %d iteration(s) · %d firing(s)", b.Outcome, b.Objective, b.Iterations, b.Firings)
		if b.Reason != "" {
			msg += " · " + b.Reason
		}
		p("%s", msg)
	default:
		p("%-9s %s", e.Kind, string(e.Raw))
	}
}

// conflictSet shows a cycle: the rule fired and how it was decided, with --all every
// rule's evaluation.
func (tl *Timeline) conflictSet(c trace.ConflictSet, p func(string, ...any)) {
	scope := "select"
	if c.Scope == "terminal" {
		scope = "check"
	}
	if tl.All {
		for _, ev := range c.Evaluated {
			mark := ev.Result
			if ev.Refracted {
				mark += " (refracted)"
			}
			if ev.Error != "" {
				mark += ": " + ev.Error
			}
			p("  eval    %s = %s", ev.Rule, mark)
		}
	}
	errs := 0
	for _, ev := range c.Evaluated {
		if ev.Result == engine.ResultError {
			errs++
		}
	}
	suffix := ""
	if errs > 0 {
		suffix = fmt.Sprintf(" · %d predicate error(s)", errs)
	}
	if c.Fired == "" {
		p("%-9s cycle %d: no rule fired (%d evaluated)%s", scope, c.Cycle, len(c.Evaluated), suffix)
		return
	}
	p("%-9s cycle %d: fired %s (decided by %s) · conflict set [%s]%s", scope, c.Cycle, c.Fired, c.DecidedBy, strings.Join(c.ConflictSet, ", "), suffix)
}

// CompactJSON is v as one line of JSON (its fmt form when it does not encode).
func CompactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// summarizeResult names a construct by its id and counts a gate's changes.
func summarizeResult(raw json.RawMessage) string {
	var r struct {
		ID      *string           `json:"id"`
		Changes []json.RawMessage `json:"changes"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return string(raw)
	}
	if r.ID != nil {
		return "construct " + *r.ID
	}
	return fmt.Sprintf("%d change(s)", len(r.Changes))
}

// Trace shows a trace read whole, marking where its hash chain broke: what it says from
// there on is shown but not vouched for.
func (tl *Timeline) Trace(f *trace.File) {
	breakAt, marked := 0, false
	if ce := f.Broken(); ce != nil {
		breakAt = ce.Line
	}
	mark := func() {
		if breakAt > 0 && !marked {
			fmt.Fprintf(tl.W, "%15s  !! hash chain broken at %v: not verified from here on\n", "", f.ChainErr)
			marked = true
		}
	}
	for i := range f.Events {
		if f.Events[i].Line >= breakAt {
			mark()
		}
		tl.Event(&f.Events[i])
	}
	mark()
}

// ShowNotes says on errw, under prefix, what trace show says before a trace's
// timeline: who signed it (SignatureNote), then whether its chain holds (ChainNote). A
// trace the keys do not vouch for is the error, and is not to be shown at all.
func ShowNotes(errw io.Writer, prefix, path string, f *trace.File, keys trace.KeyRing, readErr error) error {
	note, err := SignatureNote(f, keys)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if note != "" {
		fmt.Fprintf(errw, "%s: %s: %s\n", prefix, path, note)
	}
	ChainNote(errw, prefix, path, f, readErr)
	return nil
}

// ChainNote says on errw, headed by prefix, what a trace's hash chain vouches for: where
// it broke (the timeline marks the place), or that its lines carry no hashes. readErr is
// the reader's error, which the caller reports itself.
func ChainNote(errw io.Writer, prefix, path string, f *trace.File, readErr error) {
	switch ce := f.Broken(); {
	case ce != nil:
		fmt.Fprintf(errw, "%s: warning: %s: hash chain broken at %v; the lines from line %d on are shown as read, not verified\n", prefix, path, f.ChainErr, ce.Line)
	case f.ChainErr != nil && readErr == nil:
		fmt.Fprintf(errw, "%s: warning: %s: %v\n", prefix, path, f.ChainErr)
	case !f.Chain.Chained:
		fmt.Fprintf(errw, "%s: %s: %s: its lines carry no hashes to verify\n", prefix, path, f.Chain)
	}
}
