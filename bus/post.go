package bus

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentspine/spine/internal/strictjson"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// Recorder is where a Post writes each message before delivering it: the trace journal
// of the effector call in progress (*engine.Journal), which numbers the message and feeds
// the observers, or a buffer that writes into the journal later in a fixed order. It
// returns the message's seq, or 0 when the seq is not known yet.
type Recorder interface {
	Message(trace.Message) int64
}

var _ Recorder = (*engine.Journal)(nil)

// Post is the only path between roles. A role sends a message by Send: the post encodes
// the payload once, records the message, and puts it in the addressee's mailbox. A role
// reads only its own mailbox (Receive, Next), and what it reads is decoded from the bytes
// that were recorded, so no role ever holds another role's values, calls another role,
// or acts on a message that is not in the record.
//
// Mailboxes are addressed by role name. A branch (Branch) writes its records to a
// recorder of its own and may have private mailboxes, which is how the runtime gives each
// subtask's executor and validator their own: the branch's R3 is not the next branch's.
// A Post is safe for concurrent use.
type Post struct {
	rec    Recorder
	shared *mailboxes
	// routes sends the mail of some roles to mailboxes of a branch's own, inherited by
	// branches of the branch; own is the set this branch made.
	routes map[string]*mailboxes
	own    *mailboxes
}

// NewPost returns a post with empty mailboxes that records into rec.
func NewPost(rec Recorder) *Post {
	return &Post{rec: rec, shared: newMailboxes()}
}

// Branch returns a post that records into rec and sees this post's mailboxes, except
// those of the roles named in private, which are the branch's own and start empty.
func (p *Post) Branch(rec Recorder, private ...string) *Post {
	b := &Post{rec: rec, shared: p.shared, routes: p.routes}
	if len(private) > 0 {
		b.own = newMailboxes()
		b.routes = make(map[string]*mailboxes, len(p.routes)+len(private))
		for role, m := range p.routes {
			b.routes[role] = m
		}
		for _, role := range private {
			b.routes[role] = b.own
		}
	}
	return b
}

func (p *Post) boxes(role string) *mailboxes {
	if m, ok := p.routes[role]; ok {
		return m
	}
	return p.shared
}

// Send encodes payload, records the message from → to and delivers it to to's mailbox.
// It returns the message as recorded, with its seq when the recorder knows it.
func (p *Post) Send(from, to, typ, taskID string, payload any) (trace.Message, error) {
	m, err := p.Record(from, to, typ, taskID, payload)
	if err != nil {
		return m, err
	}
	p.boxes(to).put(to, m)
	return m, nil
}

// Record encodes payload and records the message from → to as Send does, without
// delivering it: a message to an addressee outside the post (the user, a store) that the
// record must hold but no role of the post reads.
func (p *Post) Record(from, to, typ, taskID string, payload any) (trace.Message, error) {
	if from == "" || to == "" || typ == "" {
		return trace.Message{}, fmt.Errorf("bus: a %q message from %q to %q cannot be posted; every message names from, to and type", typ, from, to)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return trace.Message{}, fmt.Errorf("bus: encoding %s payload from %s to %s: %w", typ, from, to, err)
	}
	m := trace.Message{From: from, To: to, Type: typ, TaskID: taskID, Payload: json.RawMessage(raw)}
	m.Seq = p.rec.Message(m)
	return m, nil
}

// Deliver puts a message that is already in the record into role's mailbox as well,
// without recording it again: the runtime's dispatch hands each SubTask to the executor
// and the validator of that subtask's own branch.
func (p *Post) Deliver(role string, m trace.Message) {
	p.boxes(role).put(role, m)
}

// Next takes the oldest message in role's mailbox; ok is false when it is empty.
func (p *Post) Next(role string) (m trace.Message, ok bool) {
	return p.boxes(role).take(role)
}

// Receive takes the oldest message in role's mailbox, which must be of type typ, and
// decodes its payload into a T. An empty mailbox, a message of another type and a
// payload that is not a T are errors naming the role and what it found; a message of
// another type stays in the mailbox.
func Receive[T any](p *Post, role, typ string) (T, trace.Message, error) {
	var v T
	box := p.boxes(role)
	m, ok := box.takeIf(role, typ)
	if !ok {
		if got, found := box.peek(role); found {
			return v, got, fmt.Errorf("bus: %s expected %s, and its next message is %s from %s", role, Article(typ), Article(got.Type), got.From)
		}
		return v, m, fmt.Errorf("bus: %s expected %s, and its mailbox is empty", role, Article(typ))
	}
	err := Decode(m, &v)
	return v, m, err
}

// Decode decodes a posted message's payload into v, strictly: an unknown field means
// the message is not of v's type. Numbers keep their text, so a payload decoded into
// an interface encodes again to the same bytes.
func Decode(m trace.Message, v any) error {
	if err := strictjson.DecodeNumbers(m.Payload, v); err != nil {
		return fmt.Errorf("bus: %s from %s to %s: the payload is not a %s: %w", m.Type, m.From, m.To, m.Type, err)
	}
	return nil
}

// Unread lists the messages still in any mailbox this post can see, one line each
// ("R3: a CorrectionSignal from R4a"), sorted; a round that ends with mail unread has a
// role that did not read what it was sent.
func (p *Post) Unread() []string {
	seen := map[*mailboxes]bool{p.shared: true}
	out := p.shared.unread()
	for _, m := range p.routes {
		if !seen[m] {
			seen[m] = true
			out = append(out, m.unread()...)
		}
	}
	sort.Strings(out)
	return out
}

// UnreadOwn is Unread for the mailboxes this branch made.
func (p *Post) UnreadOwn() []string {
	if p.own == nil {
		return nil
	}
	out := p.own.unread()
	sort.Strings(out)
	return out
}

// Article names a message type with its indefinite article: "a SubTask", "an
// OutcomeSummary".
func Article(typ string) string {
	if typ != "" && strings.ContainsAny(typ[:1], "AEIOU") {
		return "an " + typ
	}
	return "a " + typ
}

// mailboxes are FIFO queues of messages by role.
type mailboxes struct {
	mu sync.Mutex
	m  map[string][]trace.Message
}

func newMailboxes() *mailboxes { return &mailboxes{m: map[string][]trace.Message{}} }

func (b *mailboxes) put(role string, m trace.Message) {
	b.mu.Lock()
	b.m[role] = append(b.m[role], m)
	b.mu.Unlock()
}

func (b *mailboxes) take(role string) (trace.Message, bool) { return b.takeIf(role, "") }

// takeIf takes the oldest message of role when it is of type typ, or of any type when
// typ is "".
func (b *mailboxes) takeIf(role, typ string) (trace.Message, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[role]
	if len(q) == 0 || typ != "" && q[0].Type != typ {
		return trace.Message{}, false
	}
	m := q[0]
	q[0] = trace.Message{}
	b.m[role] = q[1:]
	return m, true
}

func (b *mailboxes) peek(role string) (trace.Message, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[role]
	if len(q) == 0 {
		return trace.Message{}, false
	}
	return q[0], true
}

func (b *mailboxes) unread() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for role, q := range b.m {
		for _, m := range q {
			out = append(out, fmt.Sprintf("%s: %s from %s", role, Article(m.Type), m.From))
		}
	}
	return out
}

// Log is a Recorder that keeps the messages in memory and numbers them from 1: the
// record of a post that runs outside an engine (tests, tools).
type Log struct {
	mu   sync.Mutex
	msgs []trace.Message
}

var _ Recorder = (*Log)(nil)

// Message keeps m and returns its number.
func (l *Log) Message(m trace.Message) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	m.Seq = int64(len(l.msgs) + 1)
	l.msgs = append(l.msgs, m)
	return m.Seq
}

// Messages returns what was recorded, in order.
func (l *Log) Messages() []trace.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]trace.Message(nil), l.msgs...)
}
