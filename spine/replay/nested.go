package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// Exchanges serves a recorded effector call's nested exchanges (model calls, tool
// calls, checks, memory queries) to the effector re-running that call, in the order
// they were recorded. A Continue with Rerun puts one in the context of every effector
// call it makes before the switch (ExchangesFrom); an effector's model or tool client
// asks it before each exchange and, when served, journals the recorded exchange as its
// own instead of calling out. The first exchange of an in-flight call that the
// recording does not hold is where the run goes live.
type Exchanges struct {
	c        *Continue
	t        engine.Tape
	call     int
	queue    []*trace.Event // the call's recorded exchanges, in order
	complete bool           // the recording holds the call's result
	// marks are the resumed lines inside the call (an earlier continuation went live in
	// its middle), written again where the recording has them.
	marks map[int64]*trace.Event

	mu   sync.Mutex
	next int
	live bool
}

type exchangesKey struct{}

// ExchangesFrom is the server of the effector call ctx belongs to, nil when the call is
// live (then every exchange is made as usual).
func ExchangesFrom(ctx context.Context) *Exchanges {
	x, _ := ctx.Value(exchangesKey{}).(*Exchanges)
	return x
}

// ExchangeDivergenceError is an effector that asked, before the switch, for a nested
// exchange other than the recorded one: its re-run departs from what was recorded.
type ExchangeDivergenceError struct {
	Seq      int64  // the recorded exchange's seq
	Name     string // what the effector asked
	Field    string // JSON path of the first difference in the request, "name" for another exchange
	Recorded string
	Got      string
}

func (e *ExchangeDivergenceError) Error() string {
	return fmt.Sprintf("re-run diverged at seq %d (%s): request field %s: recorded %s, the effector asked %s", e.Seq, e.Name, e.Field, e.Recorded, e.Got)
}

// Serve is asked before the effector makes exchange name with request (the value its
// client will journal as the request). It returns the recorded exchange when the
// recording holds it next (ok): the caller journals it as it is and uses its response.
// It returns ok false when the exchange is to be made live: on a nil server, and from
// the first exchange an in-flight call's recording does not hold, where the run
// switches. An exchange other than the recorded one, or one more than a finished call
// recorded, is an *ExchangeDivergenceError.
func (x *Exchanges) Serve(name string, request any) (rec trace.Exchange, ok bool, err error) {
	if x == nil {
		return rec, false, nil
	}
	req, err := json.Marshal(request)
	if err != nil {
		return rec, false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.live {
		return rec, false, nil
	}
	if err := x.writeMark(); err != nil {
		return rec, false, err
	}
	if x.next >= len(x.queue) {
		if x.complete {
			d := &ExchangeDivergenceError{Name: name, Field: "(whole exchange)", Recorded: "no further exchange in this call", Got: strconv.Quote(name)}
			x.c.depart(d)
			return rec, false, d
		}
		x.live = true
		x.c.handOver(x.t, x.call, fmt.Sprintf("exchange %s of effector call %d is not in the recording", name, x.call))
		return rec, false, nil
	}
	e := x.queue[x.next]
	b := e.Body.(trace.Exchange)
	if b.Name != name {
		d := &ExchangeDivergenceError{Seq: e.Seq, Name: name, Field: "name", Recorded: strconv.Quote(b.Name), Got: strconv.Quote(name)}
		x.c.depart(d)
		return rec, false, d
	}
	if p, va, vb := firstDifference(b.Request, req, false); va != vb {
		d := &ExchangeDivergenceError{Seq: e.Seq, Name: name, Field: p, Recorded: va, Got: vb}
		x.c.depart(d)
		return rec, false, d
	}
	x.next++
	return b, true, nil
}

// Journalled is the recorded exchange as the journal takes it, so that the re-run
// writes the recorded line again byte for byte.
func Journalled(rec trace.Exchange) engine.Exchange {
	x := engine.Exchange{Name: rec.Name, Request: rec.Request, Error: rec.Error, Usage: rec.Usage, DurationMS: rec.DurationMS}
	if rec.Response != nil {
		x.Response = rec.Response
	}
	return x
}

// rerun makes a recorded effector call live, serving its nested exchanges, and holds
// its result to the recorded one.
func (c *Continue) rerun(ctx context.Context, t engine.Tape, rc *recordedCall, body trace.EffectorCall, invoke engine.Invoke, into any) (error, error) {
	if err := c.rec.writeMarks(t); err != nil {
		return nil, err
	}
	// An exchange cut short by the recorded run's cancellation (Ctrl-C) is not served:
	// the call goes live there, as a call in flight at a kill does.
	cut := false
	var queue []*trace.Event
	marks := map[int64]*trace.Event{}
	for _, e := range rc.nested {
		if e.Kind == trace.KindResumed {
			marks[e.Seq] = e
		}
		if e.Kind != trace.KindExchange {
			continue
		}
		b := e.Body.(trace.Exchange)
		if strings.HasSuffix(b.Error, context.Canceled.Error()) {
			cut = true
			break
		}
		// A check (check:plan, check:caution) is the effector's own computation: it is
		// made again and journalled as it comes, not served.
		if !strings.HasPrefix(b.Name, trace.ExchangeCheck) {
			queue = append(queue, e)
		}
	}
	// The call a Ctrl-C stopped (the last before the recorded cancellation) was cut short
	// even when no exchange of it says so: it goes live past what it recorded.
	complete := rc.result != nil && !cut && !c.cancelledIn(body.Call)
	x := &Exchanges{c: c, t: t, call: body.Call, complete: complete, queue: queue, marks: marks}
	callErr, stop := c.live.Exchange(context.WithValue(ctx, exchangesKey{}, x), t, body, invoke, into)
	if stop != nil || c.isDeparted() {
		return callErr, stop
	}
	if !x.wentLive() {
		x.mu.Lock()
		err := x.writeMark() // a resumed line after the call's last exchange
		x.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	if err := c.rec.writeMarks(t); err != nil {
		return nil, err
	}
	if ok := x.wentLive(); ok || !complete {
		if !ok {
			// In flight when the recording stopped, and finished without an exchange
			// the recording lacks: the result is new, and the run is live from here.
			c.handOver(t, 0, fmt.Sprintf("effector call %d (%s) had no result in the recording", body.Call, body.Op))
		}
		return callErr, nil
	}
	d := &DivergenceError{Seq: rc.call.Seq, Call: body.Call, Op: body.Op}
	switch {
	case callErr != nil && callErr.Error() != rc.result.Error:
		d.Field, d.Recorded, d.Got = "error", strconv.Quote(rc.result.Error), strconv.Quote(callErr.Error())
	case callErr == nil && rc.result.Error != "":
		d.Field, d.Recorded, d.Got = "error", strconv.Quote(rc.result.Error), "none"
	case callErr == nil:
		got, err := json.Marshal(into)
		if err != nil {
			return callErr, err
		}
		p, va, vb := firstDifference(rc.result.Result, got, false)
		if va == vb {
			return nil, nil
		}
		d.Field, d.Recorded, d.Got = "result."+p, va, vb
	default:
		return callErr, nil
	}
	c.depart(d)
	return nil, d
}

// writeMark writes again the recording's resumed line inside the call where the run
// now is, if it has one there (all of them, when the run was resumed there more than
// once).
func (x *Exchanges) writeMark() error {
	for {
		e, ok := x.marks[x.t.Next()]
		if !ok {
			return nil
		}
		b, err := e.BodyJSON()
		if err != nil {
			return &RecordingError{fmt.Errorf("%s:%d: %w", x.c.rec.rec.Name, e.Line, err)}
		}
		x.t.Write(e.Kind, b)
	}
}

func (x *Exchanges) wentLive() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.live
}

// cancelledIn reports whether call n is the last effector call before the recorded
// cancellation: the one in progress when the run was told to stop.
func (c *Continue) cancelledIn(n int) bool {
	if c.rec.rec.canceledAt == 0 {
		return false
	}
	last := -1
	for i, rc := range c.rec.rec.calls {
		if rc.call.Seq < c.rec.limit && i > last {
			last = i
		}
	}
	return n == last
}
