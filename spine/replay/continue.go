package replay

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// ContinueOptions say how a recording is continued.
type ContinueOptions struct {
	Mode    string // trace.Resumed's mode: "resume", or "fork" (the default with Fork)
	From    string // the recording as named to the user; default the Recording's name
	Host    string // where the run continues, for the resumed line
	Stopped string // why the recording stopped (trace.Continuation.Stopped)
	// Fork, when set, hands over to the live run at this cycle boundary whatever the
	// recording holds after it, and applies Rules there.
	Fork *Boundary
	// Rules, with Fork, are the edited rules applied at the boundary as a hot reload
	// would apply them: recorded as rules_reloaded with their source, so the fork
	// replays. Empty: the fork keeps the running rules.
	RulesName string
	Rules     []byte
	// Rerun makes every effector call before the switch live as well, serving it the
	// recording's nested exchanges through its context (ExchangesFrom) and holding its
	// result to the recorded one: an effector with state of its own (GGS's loop, the
	// role pipeline) rebuilds it, and a call in flight when the recording stopped goes
	// live at its first exchange the recording does not hold, not from its start.
	Rerun bool
}

// Switch is where a continued run handed over to the live run.
type Switch struct {
	Seq    int64  // seq of the resumed line in the continued trace
	Line   int    // the recording's last line the continued run reproduced
	Call   int    // the effector call made live first, 0 when the hand-over was at a cycle boundary or the epilogue
	Reason string // why here
}

// Continue is the exchanger of a continued run (a resume or a fork). Until the switch
// it is the recorded Exchanger: clock readings, the run id, effector results, reloads
// and resumed lines come from the recording, and a run that asks for an effector call
// other than the recorded one is refused with a *DivergenceError. It switches to the
// live exchanger at the first effector call the recording does not hold whole (not at
// all, or its call without its result: a call in flight when the recording stopped is
// made again, after its request is checked against the recorded one), at a fork's
// boundary, or at the epilogue of a recording that ends before it. At the switch it
// writes a resumed line; from there on everything is live. The recorded cancellation
// of a run stopped by Ctrl-C is not served: the continued run goes on past it.
//
// Make one with NewContinue and give Option() to engine.NewEngine.
type Continue struct {
	rec  *recorded
	live engine.Exchanger
	opts ContinueOptions

	mu       sync.Mutex
	switched bool
	departed bool // the run asked for other than the recorded: nothing goes live
	sw       Switch
}

// recorded is the recorded exchanger with the recording's usable end: events from
// limit on (a cancellation and what followed) are not served.
type recorded struct {
	*Exchanger
	limit  int64 // seq: events before it are served
	usable int   // events before limit
}

// NewContinue continues rec. The engine must run the recorded rules (the header's), with
// the recorded meta and limits, for the run to reproduce the recording up to the switch.
func NewContinue(rec *Recording, opts ContinueOptions) (*Continue, error) {
	if opts.Mode == "" {
		opts.Mode = "resume"
		if opts.Fork != nil {
			opts.Mode = "fork"
		}
	}
	if opts.From == "" {
		opts.From = rec.Name
	}
	r := &recorded{Exchanger: &Exchanger{rec: rec}, limit: rec.canceledAt}
	if r.limit == 0 {
		r.limit = 1 << 62
	}
	for r.usable < len(rec.Events) && rec.Events[r.usable].Seq < r.limit {
		r.usable++
	}
	if opts.Fork != nil && opts.Fork.Seq >= r.limit {
		return nil, fmt.Errorf("%s: the fork's boundary (seq %d) is after the recorded cancellation (seq %d)", rec.Name, opts.Fork.Seq, r.limit)
	}
	return &Continue{rec: r, opts: opts}, nil
}

// Option puts c between the engine and its live exchanger.
func (c *Continue) Option() engine.Option {
	return engine.WithExchangerOverLive(func(live engine.Exchanger) engine.Exchanger {
		c.live = live
		return c
	})
}

// Seed re-applies the facts the recorded host seeded before the loop, for a host that
// does not seed them itself.
func (c *Continue) Seed(s *engine.Session) error { return c.rec.seed(s) }

// Switched reports where the run went live, and whether it has.
func (c *Continue) Switched() (Switch, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sw, c.switched
}

func (c *Continue) isDeparted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.departed
}

func (c *Continue) isLive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.switched
}

var _ engine.Exchanger = (*Continue)(nil)

// Now serves the recorded readings up to the recording's usable end, then live ones.
func (c *Continue) Now() time.Time {
	if !c.isLive() {
		r := c.rec
		r.mu.Lock()
		if r.next < r.usable {
			r.next++
			t := r.rec.Events[r.next-1].Time
			r.mu.Unlock()
			return t
		}
		r.mu.Unlock()
	}
	return c.live.Now()
}

// NewID is the recorded run id: a continued run is the same run.
func (c *Continue) NewID() string { return c.rec.NewID() }

// StopAt is 0: a continued run is not stopped where the recording was.
func (c *Continue) StopAt() int64 { return 0 }

// held is the recorded call n when the recording holds it before its usable end.
func (c *Continue) held(n int) *recordedCall {
	rc := c.rec.rec.calls[n]
	if rc == nil || rc.call.Seq >= c.rec.limit {
		return nil
	}
	return rc
}

// Makes is the recording's answer for a call it holds, the live one's after it.
func (c *Continue) Makes(n int, op string, implemented bool) bool {
	if rc := c.held(n); rc != nil && !c.isLive() {
		return rc.body.Op == op
	}
	return c.live.Makes(n, op, implemented)
}

// Exchange serves a call the recording holds whole and makes every other call live,
// switching at the first.
func (c *Continue) Exchange(ctx context.Context, t engine.Tape, body trace.EffectorCall, invoke engine.Invoke, into any) (error, error) {
	if !c.isLive() {
		rc := c.held(body.Call)
		if rc != nil && c.opts.Rerun && rc.body.Op == body.Op && rc.body.RequestHash == body.RequestHash {
			return c.rerun(ctx, t, rc, body, invoke, into)
		}
		if rc != nil && rc.result != nil {
			callErr, stop := c.rec.Exchange(ctx, t, body, invoke, into)
			c.depart(stop)
			return callErr, stop
		}
		if err := c.rec.writeMarks(t); err != nil {
			return nil, err
		}
		why := fmt.Sprintf("effector call %d (%s) is not in the recording", body.Call, body.Op)
		if rc != nil {
			// In flight when the recording stopped: made again, for the same request.
			if d := rc.differsFrom(body); d != nil {
				c.depart(d)
				return nil, d
			}
			why = fmt.Sprintf("effector call %d (%s) has no result in the recording: it was in flight and is made again", body.Call, body.Op)
		}
		c.handOver(t, body.Call, why)
	}
	return c.live.Exchange(ctx, t, body, invoke, into)
}

// PollRules serves the recorded reloads until the switch; at a fork's boundary it
// switches and applies the fork's rules; after the switch it is the live rule source.
func (c *Continue) PollRules(t engine.Tape) (bool, error) {
	if !c.isLive() {
		f := c.opts.Fork
		if f == nil || t.Next() != f.Seq {
			return c.rec.PollRules(t)
		}
		c.handOver(t, 0, fmt.Sprintf("fork at cycle %d (iteration %d), the cycle boundary at seq %d", f.Cycle, f.Iteration, f.Seq))
		if len(c.opts.Rules) > 0 {
			if err := t.Reload(c.opts.RulesName, c.opts.Rules); err != nil {
				t.Write(trace.KindRulesReloadFailed, trace.Reload{Path: c.opts.RulesName, Hash: ruleset.HashOf(c.opts.Rules), Error: err.Error()})
				return true, err
			}
			t.Write(trace.KindRulesReloaded, trace.Reload{Path: c.opts.RulesName, Hash: ruleset.HashOf(c.opts.Rules), Source: string(c.opts.Rules)})
			return true, nil
		}
		return false, nil
	}
	return c.live.PollRules(t)
}

// Epilogue is the recorded one for a recording that holds its halt (nothing was live),
// else the live one after the switch; nothing after a departure.
func (c *Continue) Epilogue(t engine.Tape) error {
	c.mu.Lock()
	departed := c.departed
	c.mu.Unlock()
	if departed {
		return nil
	}
	if !c.isLive() {
		if c.rec.usable == len(c.rec.rec.Events) && c.rec.rec.halted() {
			return c.rec.Epilogue(t)
		}
		c.handOver(t, 0, "the recording ends before the run's halt")
	}
	return c.live.Epilogue(t)
}

// depart notes a run stopped for departing from the recording before the switch.
func (c *Continue) depart(stop error) {
	if stop != nil {
		c.mu.Lock()
		c.departed = true
		c.mu.Unlock()
	}
}

// handOver switches to the live run and writes the resumed line.
func (c *Continue) handOver(t engine.Tape, call int, why string) {
	seq := t.Next()
	line := 0
	var last *trace.Event
	for i := range c.rec.usable {
		if e := &c.rec.rec.Events[i]; e.Seq < seq {
			line, last = e.Line, e
		}
	}
	c.mu.Lock()
	c.switched = true
	c.sw = Switch{Seq: seq, Line: line, Call: call, Reason: why}
	c.mu.Unlock()
	r := trace.Resumed{Mode: c.opts.Mode, From: c.opts.From, Line: line, Host: c.opts.Host, Stopped: c.opts.Stopped, Reason: why}
	if last != nil {
		r.FromSeq, r.Head = last.Seq, last.H
	}
	t.Write(trace.KindResumed, r)
}

// halted reports whether the recording holds its run's halt.
func (r *Recording) halted() bool {
	for i := range r.Events {
		if r.Events[i].Kind == trace.KindHalt {
			return true
		}
	}
	return false
}
