package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Exchanger is the engine's one door to what it does not decide itself: every clock
// reading, the run id it draws, every effector call, the rule source it polls at cycle
// boundaries, the host's events after the halt and where the run is cancelled. The
// engine takes the same path whichever exchanger it is given: the live one (the
// default) reads the injected Clock and IDSource and calls the effector; a recorded one
// (package replay's) serves what a trace holds and reports where the run departs from it.
type Exchanger interface {
	clock.Clock // every event's timestamp, one reading per event
	IDSource    // the run id, when the host fixes none

	// Makes reports whether the optional effector call n with op (observe, finish) is
	// made; implemented says whether the live effector offers op.
	Makes(n int, op string, implemented bool) bool
	// Exchange makes the effector call c and writes its events to t. invoke is the live
	// call (nil when the engine has no effector); a result that is not invoke's is
	// decoded into into. callErr is the call's failure, which the engine reports as the
	// effector's; stop is the run departing from what the exchanger holds, which ends
	// the run as it is.
	Exchange(ctx context.Context, t Tape, c trace.EffectorCall, invoke Invoke, into any) (callErr, stop error)
	// StopAt is the seq of the event before which the run is cancelled, 0 for none.
	StopAt() int64
	// PollRules is called before every select_objective and may switch the rule set
	// through t. offered says a new rule set was offered; err is why it was not taken.
	PollRules(t Tape) (offered bool, err error)
	// Epilogue writes the events that follow the halt.
	Epilogue(t Tape) error
}

// Invoke is one live effector call; its result is what the trace records.
type Invoke func(ctx context.Context) (result any, err error)

// Tape is what an exchanger may do to the run it serves.
type Tape interface {
	// Write appends an event, stamped with the exchanger's next clock reading.
	Write(kind string, body any)
	// Next is the seq the next event gets.
	Next() int64
	// Reload switches the run to the rule set compiled from src, as a hot reload does:
	// facts, revisions and the refraction memory of unchanged rules are kept.
	Reload(name string, src []byte) error
}

// WithExchanger makes the session take its clock readings, run id and effector results
// from x instead of the injected clock.Clock, IDSource and effector; see package replay.
func WithExchanger(x Exchanger) Option { return func(o *options) { o.exchanger = x } }

// WithExchangerOverLive makes the session use the exchanger wrap returns, given the
// live one (the injected clock and ids, the effector, the rule source, the epilogue):
// an exchanger that serves a recording first and hands over to the live run where the
// recording ends (package replay's Continue) stands between the two.
func WithExchangerOverLive(wrap func(live Exchanger) Exchanger) Option {
	return func(o *options) { o.overLive = wrap }
}

// tape is a session's Tape.
type tape struct{ s *Session }

func (t tape) Write(kind string, body any)          { t.s.tracer.emit(kind, body) }
func (t tape) Next() int64                          { return t.s.tracer.count() + 1 }
func (t tape) Reload(name string, src []byte) error { return t.s.reload(name, src) }

// live is the default exchanger: the injected clock and ids, the effector itself, the
// host's rule source and epilogue.
type live struct {
	s     *Session
	clock clock.Clock
	ids   IDSource
}

func (l *live) Now() time.Time { return l.clock.Now() }
func (l *live) NewID() string  { return l.ids.NewID() }
func (l *live) StopAt() int64  { return 0 }

func (l *live) Makes(_ int, _ string, implemented bool) bool { return implemented }

// Exchange journals the call: the request with its hash, then the result or the error
// with the call's duration on the injected clock. Effectors may journal their own
// nested exchanges in between (see Journal).
func (l *live) Exchange(ctx context.Context, _ Tape, body trace.EffectorCall, invoke Invoke, _ any) (error, error) {
	if invoke == nil {
		return errors.New("the engine has no effector"), nil
	}
	t := &l.s.tracer
	start, _ := t.emit(trace.KindEffectorCall, body)
	t.flush()   // the call is on the file before the effector acts
	t.publish() // the journal counts on from the session's events
	res, cerr := invoke(withJournal(ctx, l.s))
	now := t.clock.Now()
	rb := trace.EffectorResult{Call: body.Call, Op: body.Op, DurationMS: now.Sub(start).Milliseconds()}
	if cerr != nil {
		rb.Error = cerr.Error()
		t.emitAt(now, trace.KindEffectorResult, rb)
		return cerr, nil
	}
	if !t.discard { // nobody reads it: do not encode the result
		raw, err := json.Marshal(res)
		if err != nil {
			t.failAt(trace.KindEffectorResult, err)
			return nil, nil
		}
		rb.Result = raw
	}
	t.emitAt(now, trace.KindEffectorResult, rb)
	return nil, nil
}

// PollRules applies a changed rule source. Errors never stop the run: they are traced
// and the running rule set stays.
func (l *live) PollRules(_ Tape) (bool, error) {
	s := l.s
	if s.opts.ruleSource == nil {
		return false, nil
	}
	name, src, err := s.opts.ruleSource.Poll()
	if err == nil && src == nil {
		return false, nil
	}
	if err != nil {
		s.tracer.emit(trace.KindRulesReloadFailed, trace.Reload{Path: name, Error: err.Error()})
		return true, err
	}
	if err := s.reload(name, src); err != nil {
		s.tracer.emit(trace.KindRulesReloadFailed, trace.Reload{Path: name, Hash: ruleset.HashOf(src), Error: err.Error()})
		return true, err
	}
	s.tracer.emit(trace.KindRulesReloaded, trace.Reload{Path: name, Hash: s.rs.Hash(), Source: string(src)})
	return true, nil
}

// Epilogue lets the host append its events (see WithEpilogue).
func (l *live) Epilogue(_ Tape) error {
	if fn := l.s.opts.epilogue; fn != nil {
		fn(func(kind string, body any) { l.s.Emit(kind, body) })
	}
	return nil
}
