package engine

import (
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/trace"
)

// Option configures a Session or an Engine.
type Option func(*options)

type options struct {
	clock         clock.Clock
	ids           IDSource
	sink          trace.Sink
	runID         string
	meta          map[string]string
	maxFirings    int
	maxIterations int
	exchanger     Exchanger
	overLive      func(live Exchanger) Exchanger // see WithExchangerOverLive
	ruleSource    RuleSource
	journalTap    func(seq int64, kind string, body any)
	epilogue      func(emit func(kind string, body any))
	rulesPath     string // header path override; see WithRecordedRules
	noRulesSource bool   // header without rules.source; see WithRecordedRules
}

func defaultOptions() options {
	return options{
		clock:         clock.NewStep(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond),
		ids:           &SeqIDs{Prefix: "run"},
		sink:          trace.Discard,
		maxFirings:    10000,
		maxIterations: 20,
	}
}

// WithClock sets the clock. The default is a deterministic clock.Step starting at
// 2000-01-01T00:00:00Z, so that a caller who injects nothing gets reproducible traces.
func WithClock(c clock.Clock) Option { return func(o *options) { o.clock = c } }

// WithIDs sets the id source. The default is SeqIDs{Prefix: "run"}.
func WithIDs(ids IDSource) Option { return func(o *options) { o.ids = ids } }

// WithTrace sets the trace sink. The default discards events.
func WithTrace(s trace.Sink) Option { return func(o *options) { o.sink = s } }

// WithRunID fixes the run id instead of drawing one from the id source.
func WithRunID(id string) Option { return func(o *options) { o.runID = id } }

// WithMeta adds string metadata to the trace header (task text, model names, …).
func WithMeta(m map[string]string) Option { return func(o *options) { o.meta = m } }

// WithMaxFirings bounds the rule firings of a session; the next cycle past it fails with
// a *RunawayError. The default is 10000.
func WithMaxFirings(n int) Option { return func(o *options) { o.maxFirings = n } }

// WithMaxIterations bounds the observe→…→terminate_or_iterate iterations of an Engine.
// The default is 20.
func WithMaxIterations(n int) Option { return func(o *options) { o.maxIterations = n } }

// WithJournalTap passes every event an effector journals (kind trace.KindExchange or
// trace.KindMessage, with the body it journalled) to tap, with the seq the event got in
// the trace, on the effector's goroutine. Use it to feed a live bus; a replay does not call it.
func WithJournalTap(tap func(seq int64, kind string, body any)) Option {
	return func(o *options) { o.journalTap = tap }
}

// WithEpilogue lets the host append events after the run's halt event (an audit's
// findings, say). A replay writes the recorded epilogue again instead of calling fn.
func WithEpilogue(fn func(emit func(kind string, body any))) Option {
	return func(o *options) { o.epilogue = fn }
}

// WithRecordedRules makes the header name the rule file as a recording's did: as path,
// and without its source when withSource is false (a trace written before headers
// carried it). A replay of the recorded rules, perhaps found under another name, writes
// the recording's header so.
func WithRecordedRules(path string, withSource bool) Option {
	return func(o *options) { o.rulesPath, o.noRulesSource = path, !withSource }
}
