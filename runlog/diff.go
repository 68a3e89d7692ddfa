package runlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

// Diff is where two traces part (`spine trace diff`): the first differing event, found by
// replay.CompareTraces on the lines without their timestamp, and, kind by kind, what each
// side decided, sent and exchanged. Events are compared without their hash-chain link
// (the link differs on every line after any difference; it is not a field CompareTraces
// reads apart from the line) and, first, without their timestamp: two live runs never
// share a clock.
type Diff struct {
	A, B Side
	// Header is set when the headers differ, Event at the first differing event after
	// them; when neither differs, Clock is set at the first line whose timestamp does.
	// All three nil: the traces are identical.
	Header, Event, Clock           *Difference
	Decisions, Messages, Exchanges Sequence
	// Branch is set when the first differing event is one side's resumed line continuing
	// the other's lines: a fork (or resume) of it, parting there.
	Branch *Branch
}

// Branch is where a continued trace parts from the trace it continued: Side ("A" or
// "B") holds the resumed line, after Shared lines that are the other side's, and the
// rules it reloaded there ("" when it kept them).
type Branch struct {
	Side    string
	Shared  int
	Resumed trace.Resumed
	Reload  string // the reloaded rules' path and hash
}

// Side is one trace as the diff reads it.
type Side struct {
	Header *trace.Event
	Events []trace.Event // every event after the header
}

// Difference is one difference: the event on each side (nil past a trace's end) and,
// when both are of one kind, the field and both values as replay.CompareTraces found
// them.
type Difference struct {
	A, B                  *trace.Event
	Field, ValueA, ValueB string
}

// SameKind reports whether both events are there and of one kind, so that their fields
// compare; otherwise their kinds are the difference.
func (d *Difference) SameKind() bool {
	return d.A == nil || d.B == nil || d.A.Kind == d.B.Kind
}

// Sequence compares one kind of what two runs did: decisions ("cycle N: rule →
// objective"), messages ("from → to type") or exchanges (names).
type Sequence struct {
	Kind string
	A, B []string
	// At is the index of the first item where the two differ; len of both when the
	// sequences are the same.
	At int
	// Counts are, for messages by type and exchanges by name, the keys whose counts
	// differ, in key order.
	Counts []KeyCount
}

// KeyCount is how often one key occurs on each side.
type KeyCount struct {
	Key  string
	A, B int
}

// Same reports whether the two sequences are equal.
func (s Sequence) Same() bool { return s.At == len(s.A) && s.At == len(s.B) }

// Identical reports whether the traces are the same, timestamps included.
func (d *Diff) Identical() bool { return d.Header == nil && d.Event == nil && d.Clock == nil }

// Compare compares two traces read whole.
func Compare(a, b *trace.File) *Diff {
	d := &Diff{A: side(a), B: side(b)}
	d.Header = difference(lineList(d.A.Header), lineList(d.B.Header), true)
	d.Event = difference(d.A.Events, d.B.Events, true)
	if d.Header == nil && d.Event == nil {
		la, lb := append(lineList(d.A.Header), d.A.Events...), append(lineList(d.B.Header), d.B.Events...)
		d.Clock = difference(la, lb, false)
	}
	d.Branch = branchAt(d.Event, a, b)
	da, ma, xa := sequences(d.A.Events)
	db, mb, xb := sequences(d.B.Events)
	d.Decisions = sequence("decisions", da, db)
	d.Messages = sequence("messages", ma, mb)
	d.Exchanges = sequence("exchanges", xa, xb)
	return d
}

func side(f *trace.File) Side {
	var s Side
	for i := range f.Events {
		e := &f.Events[i]
		if i == 0 && e.Kind == trace.KindHeader {
			s.Header = e
			continue
		}
		s.Events = append(s.Events, *e)
	}
	return s
}

// sequences are the decisions, messages and exchanges of a trace's events, in order.
func sequences(events []trace.Event) (decisions, messages, exchanges []string) {
	for i := range events {
		switch b := events[i].Body.(type) {
		case trace.RuleFired:
			d := fmt.Sprintf("cycle %d: %s", b.Cycle, b.Rule)
			if b.Then != nil && b.Then.Objective != "" {
				d += " → " + b.Then.Objective
			}
			decisions = append(decisions, d)
		case trace.Message:
			messages = append(messages, fmt.Sprintf("%s → %s %s", b.From, b.To, b.Type))
		case trace.Exchange:
			exchanges = append(exchanges, b.Name)
		}
	}
	return decisions, messages, exchanges
}

// sequence compares two sequences of one kind: where they first differ and, for messages
// and exchanges, which keys' counts differ. Decisions carry their cycle, so each is its
// own key and counting them says nothing.
func sequence(kind string, a, b []string) Sequence {
	s := Sequence{Kind: kind, A: a, B: b}
	for s.At < len(a) && s.At < len(b) && a[s.At] == b[s.At] {
		s.At++
	}
	if s.Same() || kind == "decisions" {
		return s
	}
	ca, cb := countKeys(kind, a), countKeys(kind, b)
	keys := []string{}
	for k := range ca {
		keys = append(keys, k)
	}
	for k := range cb {
		if _, ok := ca[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if ca[k] != cb[k] {
			s.Counts = append(s.Counts, KeyCount{Key: k, A: ca[k], B: cb[k]})
		}
	}
	return s
}

// countKeys counts messages by type and exchanges by name.
func countKeys(kind string, items []string) map[string]int {
	c := map[string]int{}
	for _, s := range items {
		if kind == "messages" {
			s = s[strings.LastIndexByte(s, ' ')+1:]
		}
		c[s]++
	}
	return c
}

func lineList(l *trace.Event) []trace.Event {
	if l == nil {
		return nil
	}
	return []trace.Event{*l}
}

func at(ls []trace.Event, i int) *trace.Event {
	if i < 0 || i >= len(ls) {
		return nil
	}
	return &ls[i]
}

// difference compares two runs of events with replay.CompareTraces, each line without
// its hash-chain link and, when noClock, without its timestamp.
func difference(a, b []trace.Event, noClock bool) *Difference {
	td := replay.CompareTraces(comparable(a, noClock), comparable(b, noClock), 0)
	if td == nil {
		return nil
	}
	return &Difference{A: at(a, td.Line-1), B: at(b, td.Line-1), Field: td.Field, ValueA: td.Recorded, ValueB: td.Replayed}
}

func comparable(ls []trace.Event, noClock bool) []byte {
	var buf bytes.Buffer
	for _, l := range ls {
		raw := l.Raw
		if noClock {
			raw = withoutKey(raw, "t")
		}
		buf.Write(raw)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// withoutKey re-encodes a JSON object without one top-level key, numbers kept as
// written; a line that is not an object is returned as it is.
func withoutKey(raw []byte, key string) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return raw
	}
	delete(m, key)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return raw
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

// branchAt is the branch at the first differing event when one side's is a resumed line
// whose recorded head is the other side's line before it.
func branchAt(ev *Difference, a, b *trace.File) *Branch {
	if ev == nil || ev.A == nil || ev.B == nil {
		return nil
	}
	for _, s := range []struct {
		name      string
		at        *trace.Event
		own, peer *trace.File
	}{{"A", ev.A, a, b}, {"B", ev.B, b, a}} {
		r, ok := trace.As[trace.Resumed](s.at)
		n := s.at.Line - 1
		if !ok || r.Line != n || n < 1 || n > len(s.peer.Events) || s.peer.Events[n-1].H != r.Head {
			continue
		}
		br := &Branch{Side: s.name, Shared: n, Resumed: r}
		if s.at.Line < len(s.own.Events) {
			if rl, ok := trace.As[trace.Reload](&s.own.Events[s.at.Line]); ok && s.own.Events[s.at.Line].Kind == trace.KindRulesReloaded {
				br.Reload = rl.Path + " (" + rl.Hash + ")"
			}
		}
		return br
	}
	return nil
}
