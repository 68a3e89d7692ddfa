package engine

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
)

// Errors returned by WorkingMemory operations; wrapped with the kind and id involved.
var (
	ErrUnknownKind = errors.New("unknown fact kind")
	ErrFactExists  = errors.New("fact already asserted")
	ErrNoFact      = errors.New("no such fact")
)

// Change operations reported to a WorkingMemory observer.
const (
	OpAssert  = "asserted"
	OpUpdate  = "updated"
	OpRetract = "retracted"
)

// WorkingMemory holds the facts of one run, typed by a rule set's fact kinds. Every change
// takes the next value of one global revision counter. It keeps the rule environment in
// step with the facts, so evaluating a rule never copies working memory.
//
// A payload that working memory has handed out (in a Fact returned by a method, or to an
// observer) is never written again. One that nobody outside has seen is working memory's
// own: the next change of a singleton kind may reuse its memory instead of allocating.
//
// A WorkingMemory is not safe for concurrent use; a Session owns one.
type WorkingMemory struct {
	rs       *ruleset.RuleSet
	kinds    []kindFacts
	rev      uint64
	env      reflect.Value   // pointer to the rule set's environment struct
	envKinds []reflect.Value // env's field of each kind, set on every change
	// in is what the rule set's matcher reads: each kind's presence and the value of
	// each field its conditions compare, refreshed when a singleton fact changes.
	in       cond.Input
	slotsOf  [][]inputSlot // per kind, the input slots its fields fill
	inGen    uint64        // counts bindInput calls: moves bound at another count are stale
	observer func(op string, f Fact)
	// observerKeeps is false when the observer is known not to keep the facts it is
	// given (a session's tracer: a Sink must not keep an event).
	observerKeeps bool
	// counter, when not nil, stands in for the observer: a change only takes the next
	// number from it. A session whose trace discards every event numbers its fact
	// events this way, without building them.
	counter *int64
	stamps  uint64 // counts moves bound, each stamped with the count (see Binding)
}

// setRuleSet switches working memory to a reloaded rule set with the same kinds, whose
// environment struct env already points at the current payloads.
func (wm *WorkingMemory) setRuleSet(rs *ruleset.RuleSet, env reflect.Value) {
	wm.rs, wm.env = rs, env
	wm.bindEnv()
	// The new rules' matcher reads other fields: fill its input from the facts.
	wm.bindInput()
	for _, k := range rs.Kinds() {
		wm.refreshInput(k)
	}
}

// inputSlot is a field the matcher reads, as working memory refreshes it.
type inputSlot struct {
	slot, field int
	typ         cond.Type
}

// bindInput makes the rule set's matcher input and lists, per kind, the fields working
// memory copies into it on every change.
func (wm *WorkingMemory) bindInput() {
	m := wm.rs.Matcher()
	wm.in = m.NewInput(len(wm.kinds))
	wm.inGen++
	wm.slotsOf = make([][]inputSlot, len(wm.kinds))
	for i, s := range m.Slots() {
		wm.slotsOf[s.Kind] = append(wm.slotsOf[s.Kind], inputSlot{slot: i, field: s.Field, typ: s.Type})
	}
}

// bindEnv finds each kind's field in the environment struct.
func (wm *WorkingMemory) bindEnv() {
	wm.envKinds = wm.envKinds[:0]
	for i, k := range wm.rs.Kinds() {
		wm.kinds[i].kind = k
		wm.envKinds = append(wm.envKinds, wm.env.Elem().Field(i))
	}
}

// kindFacts holds the facts of one kind. A singleton kind keeps its one fact in a slot,
// a many kind in a map by id: the singleton path runs on every decision.
type kindFacts struct {
	kind   *ruleset.FactKind
	many   bool
	single Fact
	has    bool
	byID   map[string]Fact
	rev    uint64 // revision of the latest change to any fact of this kind

	// Singleton kinds only: the payload of single (nil exactly when has is false) and,
	// when spare is set, a payload nobody has seen that the next change writes into.
	live, spare *payload
	shared      bool        // live has been handed out: it must not be written again
	plan        *cachedPlan // the plan of the struct type the kind was last given
	free        *payload    // the buffer of a payload handed out, reused for a new one
}

// payload is a payload struct seen three ways, found once: a buffer is written and read
// many times, and finding a field through reflect costs more than reading it.
type payload struct {
	ptr    reflect.Value   // a pointer to the struct
	iface  any             // the pointer, as Fact.Payload holds it
	fields []reflect.Value // the struct's fields
	ptrs   []fieldPtr      // typed pointers to the same fields
	moves  moves           // from the struct a whole write last came from
}

// fill makes p the buffer of the new struct pv points to.
func (p *payload) fill(pv reflect.Value) {
	p.ptr, p.iface = pv, pv.Interface()
	p.fields = p.fields[:0]
	for i := range pv.Elem().NumField() {
		p.fields = append(p.fields, pv.Elem().Field(i))
	}
	p.ptrs = p.ptrs[:0]
	for _, f := range p.fields {
		p.ptrs = append(p.ptrs, ptrOf(f))
	}
	p.moves.from, p.moves.gen = nil, 0 // its pointers were the old struct's: bind again
}

// fieldPtr is a typed pointer to one field of a struct, found once through reflect: a
// load or a store through it is all a hot write or read then costs, where
// reflect.Value's getters and setters check flags on every call. At most one pointer is
// set, the one of the field's type; none for a field of any other type or an
// unexported one of a host's struct.
type fieldPtr struct {
	f *float64
	i *int
	b *bool
	s *string
	l *[]string
}

// ptrOf returns the typed pointer of v, an addressable field.
func ptrOf(v reflect.Value) fieldPtr {
	var p fieldPtr
	if !v.CanAddr() || !v.CanInterface() {
		return p
	}
	switch v.Type() {
	case floatType:
		p.f = v.Addr().Interface().(*float64)
	case intType:
		p.i = v.Addr().Interface().(*int)
	case boolType:
		p.b = v.Addr().Interface().(*bool)
	case stringType:
		p.s = v.Addr().Interface().(*string)
	case stringsType:
		p.l = v.Addr().Interface().(*[]string)
	}
	return p
}

var (
	floatType   = reflect.TypeFor[float64]()
	intType     = reflect.TypeFor[int]()
	boolType    = reflect.TypeFor[bool]()
	stringType  = reflect.TypeFor[string]()
	stringsType = reflect.TypeFor[[]string]()
)

func (kf *kindFacts) get(id string) (Fact, bool) {
	if !kf.many {
		return kf.single, kf.has && kf.single.ID == id
	}
	f, ok := kf.byID[id]
	return f, ok
}

// NewWorkingMemory returns an empty working memory for the rule set's fact kinds.
// observe, when not nil, is called after every change.
func NewWorkingMemory(rs *ruleset.RuleSet, observe func(op string, f Fact)) *WorkingMemory {
	wm := &WorkingMemory{
		rs:            rs,
		kinds:         make([]kindFacts, len(rs.Kinds())),
		env:           rs.NewEnv(),
		observer:      observe,
		observerKeeps: true,
	}
	for i, k := range rs.Kinds() {
		if k.Many {
			wm.kinds[i] = kindFacts{many: true, byID: map[string]Fact{}}
		}
	}
	wm.bindEnv()
	wm.bindInput()
	return wm
}

// Rev returns the global revision: the number of changes made so far.
func (wm *WorkingMemory) Rev() uint64 { return wm.rev }

// KindRev returns the revision of the latest change to a fact of the kind (0 if none).
func (wm *WorkingMemory) KindRev(kind string) uint64 {
	k, ok := wm.rs.Kind(kind)
	if !ok {
		return 0
	}
	return wm.kinds[k.Index()].rev
}

func (wm *WorkingMemory) kind(name, id string) (*ruleset.FactKind, string, error) {
	k, ok := wm.rs.Kind(name)
	if !ok {
		return nil, "", fmt.Errorf("%w %q", ErrUnknownKind, name)
	}
	switch {
	case k.Many && id == "":
		return nil, "", fmt.Errorf("kind %q holds many facts: an id is required", name)
	case !k.Many && id != "" && id != name:
		// Rules see a singleton kind through the fact whose id is the kind's name; a
		// second id would make a second, invisible fact.
		return nil, "", fmt.Errorf("kind %q holds one fact: its id is %q or empty, not %q", name, name, id)
	case id == "":
		id = name
	}
	return k, id, nil
}

// Assert adds a new fact. It fails if a fact with the same kind and id exists.
func (wm *WorkingMemory) Assert(kind, id string, payload any) (Fact, error) {
	return wm.handOut(wm.change(kind, id, payload, OpAssert))
}

// Update changes the fields that payload names in an existing fact, keeping the others.
func (wm *WorkingMemory) Update(kind, id string, payload any) (Fact, error) {
	return wm.handOut(wm.change(kind, id, payload, OpUpdate))
}

// Put asserts the fact, or updates it when it exists.
func (wm *WorkingMemory) Put(kind, id string, payload any) (Fact, error) {
	return wm.handOut(wm.change(kind, id, payload, ""))
}

// Set is Put for callers that do not need the stored fact back. Its payload stays
// working memory's own, so the next change of a singleton kind can reuse its memory.
func (wm *WorkingMemory) Set(kind, id string, payload any) error {
	_, _, err := wm.write(kind, id, payload, "")
	return err
}

// Binding writes a singleton kind's fact from one struct of the host's, as
// Set(kind, "", src) does, for a host that writes it every cycle from the same variable
// (the GGS decider): while the live payload's moves are the ones bound to src, a write
// looks up neither the kind nor the moves.
type Binding struct {
	wm    *WorkingMemory
	kf    *kindFacts // the kind's: a reload keeps the kinds and their order
	src   any
	stamp uint64 // of the moves Write last bound to src, 0 for none
}

// Bind returns the Binding of singleton kind to src, a pointer to a struct; see Set for
// what src may be.
func (wm *WorkingMemory) Bind(kind string, src any) (*Binding, error) {
	k, _, err := wm.kind(kind, "")
	if err != nil {
		return nil, err
	}
	return &Binding{wm: wm, kf: &wm.kinds[k.Index()], src: src}, nil
}

// Write puts the current values of the bound struct into working memory, as Set does.
func (b *Binding) Write() error { return b.wm.inPlace(b) }

// handOut marks the payload of a fact that leaves working memory as seen.
func (wm *WorkingMemory) handOut(f Fact, err error) (Fact, error) {
	if err == nil {
		wm.seen(f)
	}
	return f, err
}

// seen records that f's payload left working memory: it is never written again.
func (wm *WorkingMemory) seen(f Fact) {
	if k, ok := wm.rs.Kind(f.Kind); ok && !k.Many {
		kf := &wm.kinds[k.Index()]
		if kf.has && kf.single.Payload == f.Payload {
			kf.shared = true
		}
	}
}

// change asserts (op OpAssert), updates (OpUpdate) or puts (op "") a fact and returns it.
func (wm *WorkingMemory) change(kind, id string, payload any, op string) (Fact, error) {
	kf, id, err := wm.write(kind, id, payload, op)
	if err != nil {
		return Fact{}, err
	}
	f, _ := kf.get(id)
	return f, nil
}

// write is change without returning the fact, which Set, once a decision, does not need.
// It returns the facts of the kind and the fact's id.
func (wm *WorkingMemory) write(kind, id string, payload any, op string) (*kindFacts, string, error) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return nil, "", err
	}
	kf := &wm.kinds[k.Index()]
	var old Fact     // the fact being updated, for a many kind
	exists := kf.has // a singleton's id is its kind's name (see kind)
	if k.Many {
		old, exists = kf.byID[id]
	}
	switch {
	case op == OpAssert && exists:
		return nil, "", fmt.Errorf("%w: %s/%s", ErrFactExists, kind, id)
	case op == OpUpdate && !exists:
		return nil, "", fmt.Errorf("%w: %s/%s", ErrNoFact, kind, id)
	case exists:
		op = OpUpdate
	default:
		op = OpAssert
	}
	if k.Many {
		nv := reflect.New(k.Type())
		if exists {
			nv.Elem().Set(reflect.ValueOf(old.Payload).Elem())
		}
		if err := kf.setPayload(nv.Elem(), payload); err != nil {
			return nil, "", err
		}
		wm.stored(k, Fact{Kind: k.Name, ID: id, Payload: nv.Interface()}, op)
		return kf, id, nil
	}
	if exists && !kf.shared && wm.bindLive(kf, payload) { // nobody has seen the live payload
		return kf, id, wm.moveLive(kf)
	}
	buf := kf.takeSpare(k)
	dst := buf.ptr.Elem()
	// payload may name only some fields: start from the old payload (or zero).
	if exists {
		dst.Set(kf.live.ptr.Elem())
	} else {
		dst.SetZero()
	}
	if err := kf.setPayload(dst, payload); err != nil {
		kf.spare = buf // nobody saw it; the next change overwrites it
		return nil, "", err
	}
	wm.replaceLive(kf, buf)
	wm.storedSingle(kf)
	return kf, id, nil
}

// takeSpare returns a payload nobody has seen, allocating one when there is no spare.
func (kf *kindFacts) takeSpare(k *ruleset.FactKind) *payload {
	buf := kf.spare
	kf.spare = nil
	if buf == nil {
		buf = kf.free // not the environment's: a change made another payload live since
		kf.free = nil
		if buf == nil {
			buf = new(payload)
		}
		buf.fill(reflect.New(k.Type()))
	}
	return buf
}

// replaceLive makes buf the singleton's payload, in the fact and the environment; the
// old one becomes the spare when nobody has seen it.
func (wm *WorkingMemory) replaceLive(kf *kindFacts, buf *payload) {
	if kf.has && !kf.shared {
		kf.spare = kf.live
	} else if kf.has {
		// The struct is someone else's now, but its buffer is still ours: the next
		// payload reuses it.
		kf.free = kf.live
	}
	kf.live, kf.shared = buf, false
	kf.single.Kind, kf.single.ID, kf.single.Payload = kf.kind.Name, kf.kind.Name, buf.iface
	wm.pointEnv(kf.kind.Index(), kf)
}

// stored records f, a fact of a many kind written already, as the kind's latest change
// and reports it.
func (wm *WorkingMemory) stored(k *ruleset.FactKind, f Fact, op string) {
	wm.rev++
	f.Rev = wm.rev
	kf := &wm.kinds[k.Index()]
	kf.byID[f.ID] = f
	kf.rev = wm.rev
	wm.syncEnv(k)
	wm.notify(op, &f)
}

// storedSingle records the live payload of singleton kind kf, written already (and
// made live by replaceLive when new), as the kind's latest change: an update when the
// kind had a fact.
func (wm *WorkingMemory) storedSingle(kf *kindFacts) {
	updated := kf.has
	kf.has = true
	if i := kf.kind.Index(); len(wm.slotsOf[i]) == 0 { // the matcher reads no field of most kinds
		wm.in.SetPresent(i, true)
	} else {
		wm.refreshInput(kf.kind)
	}
	wm.rev++
	kf.single.Rev, kf.rev = wm.rev, wm.rev
	if wm.counter != nil {
		*wm.counter++ // as notify does, without a call
		return
	}
	op := OpAssert
	if updated {
		op = OpUpdate
	}
	wm.notify(op, &kf.single)
}

// notify tells the observer about a change, f.
func (wm *WorkingMemory) notify(op string, f *Fact) {
	if wm.counter != nil {
		*wm.counter++
		return
	}
	if wm.observer == nil {
		return
	}
	if wm.observerKeeps {
		wm.seen(*f)
	}
	wm.observer(op, *f)
}

// putBuiltin sets a built-in fact (state, objective) without going through Fields: the
// engine does this several times per cycle. Its two fields are a string and a (string or
// int) second one.
func (wm *WorkingMemory) putBuiltin(index int, name, second string, iteration int) {
	kf := &wm.kinds[index]
	if !kf.has || kf.shared { // written in place only when nobody has seen the payload
		wm.replaceLive(kf, kf.takeSpare(kf.kind))
	}
	p := kf.live.ptrs[:2]
	*p[0].s = name
	if p[1].s != nil {
		*p[1].s = second
	} else {
		*p[1].i = iteration
	}
	wm.storedSingle(kf)
}

// objectiveInPlace is putBuiltin for the objective a rule sets, outside the general
// fact path, when fact events are only counted (see WorkingMemory.counter) and nobody
// has seen the fact's payload: its fields are written in place and the caller takes
// the event's seq. It reports false, having changed nothing, otherwise.
func (wm *WorkingMemory) objectiveInPlace(name, rule string) bool {
	if !wm.objectiveWritable() {
		return false
	}
	kf := &wm.kinds[objectiveIndex]
	p := kf.live.ptrs[:2]
	*p[0].s, *p[1].s = name, rule
	if len(wm.slotsOf[objectiveIndex]) > 0 {
		wm.refreshInput(kf.kind)
	}
	wm.rev++
	kf.single.Rev, kf.rev = wm.rev, wm.rev
	return true
}

// objectiveWritable reports whether objectiveInPlace would write the objective.
func (wm *WorkingMemory) objectiveWritable() bool {
	kf := &wm.kinds[objectiveIndex]
	return kf.has && !kf.shared && wm.counter != nil
}

// Retract removes a fact.
func (wm *WorkingMemory) Retract(kind, id string) (Fact, error) {
	return wm.handOut(wm.retract(kind, id))
}

func (wm *WorkingMemory) retract(kind, id string) (Fact, error) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, err
	}
	kf := &wm.kinds[k.Index()]
	old, ok := kf.get(id)
	if !ok {
		return Fact{}, fmt.Errorf("%w: %s/%s", ErrNoFact, kind, id)
	}
	if k.Many {
		delete(kf.byID, id)
	} else {
		// The retracted fact keeps its payload; it is the observer's and the caller's.
		kf.single, kf.has, kf.live, kf.shared = Fact{}, false, nil, false
	}
	wm.rev++
	kf.rev = wm.rev
	old.Rev = wm.rev
	wm.syncEnv(k)
	wm.notify(OpRetract, &old)
	return old, nil
}

// Get returns the fact of the kind with the id ("" for a singleton kind).
func (wm *WorkingMemory) Get(kind, id string) (Fact, bool) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, false
	}
	f, ok := wm.kinds[k.Index()].get(id)
	if ok {
		wm.seen(f)
	}
	return f, ok
}

// Query returns every fact of the kind, ordered by id.
func (wm *WorkingMemory) Query(kind string) []Fact {
	k, ok := wm.rs.Kind(kind)
	if !ok {
		return nil
	}
	return wm.sorted(k)
}

// All returns every fact, ordered by kind declaration and then id.
func (wm *WorkingMemory) All() []Fact {
	var out []Fact
	for _, k := range wm.rs.Kinds() {
		out = append(out, wm.sorted(k)...)
	}
	return out
}

func (wm *WorkingMemory) sorted(k *ruleset.FactKind) []Fact {
	kf := &wm.kinds[k.Index()]
	if !kf.many {
		if !kf.has {
			return []Fact{}
		}
		kf.shared = true
		return []Fact{kf.single}
	}
	out := slices.AppendSeq(make([]Fact, 0, len(kf.byID)), maps.Values(kf.byID))
	slices.SortFunc(out, func(a, b Fact) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// syncEnv points the kind's environment field at its current payload(s) and refreshes
// the matcher's input.
func (wm *WorkingMemory) syncEnv(k *ruleset.FactKind) {
	if !k.Many {
		wm.pointEnv(k.Index(), &wm.kinds[k.Index()])
		wm.refreshInput(k)
		return
	}
	field := wm.env.Elem().Field(k.Index())
	facts := wm.sorted(k)
	list := reflect.MakeSlice(field.Type(), len(facts), len(facts))
	for i, f := range facts {
		list.Index(i).Set(reflect.ValueOf(f.Payload))
	}
	field.Set(list)
}

// pointEnv points singleton kind i's environment field at its payload, kf's live one,
// or at none.
func (wm *WorkingMemory) pointEnv(i int, kf *kindFacts) {
	if kf.live != nil {
		wm.envKinds[i].Set(kf.live.ptr)
	} else {
		wm.envKinds[i].SetZero()
	}
}

// refreshInput copies singleton kind k's presence and the fields the matcher reads into
// its input.
func (wm *WorkingMemory) refreshInput(k *ruleset.FactKind) {
	if k.Many {
		return
	}
	kf := &wm.kinds[k.Index()]
	wm.in.SetPresent(k.Index(), kf.has)
	if !kf.has {
		return
	}
	ptrs := kf.live.ptrs // a declared field's pointer of its type is always set
	for _, s := range wm.slotsOf[k.Index()] {
		p := &ptrs[s.field]
		switch s.typ {
		case cond.TFloat:
			wm.in.Num[s.slot] = *p.f
		case cond.TInt:
			wm.in.Int[s.slot] = int64(*p.i)
		case cond.TBool:
			wm.in.Bool[s.slot] = *p.b
		case cond.TString:
			wm.in.Str[s.slot] = *p.s
		}
	}
}

// Every rule set's kinds start with the built-in ones, at these indexes.
const (
	stateIndex     = 0
	objectiveIndex = 1
)

// builtin reads string field i of the built-in fact at index (state, objective) without
// handing its payload out; "" when the fact is absent. TestBuiltinPayloadLayout checks
// the fields' types.
func (wm *WorkingMemory) builtin(index, i int) string {
	kf := &wm.kinds[index]
	if !kf.has {
		return ""
	}
	return *kf.live.ptrs[i].s
}

// envValue is what compiled predicates run against.
func (wm *WorkingMemory) envValue() any { return wm.env.Interface() }
