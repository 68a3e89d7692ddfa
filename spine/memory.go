package spine

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"unsafe"
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
// A WorkingMemory is not safe for concurrent use; a Session owns one.
type WorkingMemory struct {
	rs       *RuleSet
	kinds    []kindFacts
	rev      uint64
	env      reflect.Value    // pointer to the rule set's environment struct
	ptrs     []unsafe.Pointer // current payload of each singleton kind, for compiled predicates
	observer func(op string, f Fact)
}

// kindFacts holds the facts of one kind. A singleton kind keeps its one fact in a slot,
// a many kind in a map by id: the singleton path runs on every decision.
type kindFacts struct {
	many   bool
	single Fact
	has    bool
	byID   map[string]Fact
	rev    uint64 // revision of the latest change to any fact of this kind
}

func (kf *kindFacts) get(id string) (Fact, bool) {
	if !kf.many {
		return kf.single, kf.has && kf.single.ID == id
	}
	f, ok := kf.byID[id]
	return f, ok
}

func (kf *kindFacts) set(f Fact) {
	if !kf.many {
		kf.single, kf.has = f, true
		return
	}
	kf.byID[f.ID] = f
}

func (kf *kindFacts) del(id string) {
	if !kf.many {
		kf.single, kf.has = Fact{}, false
		return
	}
	delete(kf.byID, id)
}

func (kf *kindFacts) count() int {
	if !kf.many {
		if kf.has {
			return 1
		}
		return 0
	}
	return len(kf.byID)
}

// NewWorkingMemory returns an empty working memory for the rule set's fact kinds.
// observe, when not nil, is called after every change.
func NewWorkingMemory(rs *RuleSet, observe func(op string, f Fact)) *WorkingMemory {
	wm := &WorkingMemory{
		rs:       rs,
		kinds:    make([]kindFacts, len(rs.kinds)),
		env:      reflect.New(rs.envType),
		ptrs:     make([]unsafe.Pointer, len(rs.kinds)),
		observer: observe,
	}
	for i, k := range rs.kinds {
		if k.Many {
			wm.kinds[i] = kindFacts{many: true, byID: map[string]Fact{}}
		}
	}
	wm.env.Elem().Field(rs.paramsField).Set(rs.paramsVal)
	return wm
}

// Rev returns the global revision: the number of changes made so far.
func (wm *WorkingMemory) Rev() uint64 { return wm.rev }

// KindRev returns the revision of the latest change to a fact of the kind (0 if none).
func (wm *WorkingMemory) KindRev(kind string) uint64 {
	k := wm.rs.kindByName[kind]
	if k == nil {
		return 0
	}
	return wm.kinds[k.index].rev
}

func (wm *WorkingMemory) kind(name, id string) (*FactKind, string, error) {
	k := wm.rs.kindByName[name]
	if k == nil {
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
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, err
	}
	if _, ok := wm.kinds[k.index].get(id); ok {
		return Fact{}, fmt.Errorf("%w: %s/%s", ErrFactExists, kind, id)
	}
	return wm.store(k, id, reflect.New(k.typ), payload, OpAssert)
}

// Update changes the fields that payload names in an existing fact, keeping the others.
func (wm *WorkingMemory) Update(kind, id string, payload any) (Fact, error) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, err
	}
	old, ok := wm.kinds[k.index].get(id)
	if !ok {
		return Fact{}, fmt.Errorf("%w: %s/%s", ErrNoFact, kind, id)
	}
	nv := reflect.New(k.typ)
	nv.Elem().Set(reflect.ValueOf(old.Payload).Elem())
	return wm.store(k, id, nv, payload, OpUpdate)
}

// Put asserts the fact, or updates it when it exists.
func (wm *WorkingMemory) Put(kind, id string, payload any) (Fact, error) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, err
	}
	if _, ok := wm.kinds[k.index].get(id); ok {
		return wm.Update(kind, id, payload)
	}
	return wm.store(k, id, reflect.New(k.typ), payload, OpAssert)
}

func (wm *WorkingMemory) store(k *FactKind, id string, nv reflect.Value, payload any, op string) (Fact, error) {
	if err := k.setPayload(nv.Elem(), payload); err != nil {
		return Fact{}, err
	}
	wm.rev++
	f := Fact{Kind: k.Name, ID: id, Rev: wm.rev, Payload: nv.Interface()}
	kf := &wm.kinds[k.index]
	kf.set(f)
	kf.rev = wm.rev
	wm.syncEnv(k)
	if wm.observer != nil {
		wm.observer(op, f)
	}
	return f, nil
}

// putBuiltin sets a built-in fact (state, objective) without going through Fields: the
// engine does this several times per cycle.
func (wm *WorkingMemory) putBuiltin(kind string, set func(v reflect.Value)) Fact {
	k := wm.rs.kindByName[kind]
	nv := reflect.New(k.typ)
	set(nv.Elem())
	wm.rev++
	f := Fact{Kind: k.Name, ID: k.Name, Rev: wm.rev, Payload: nv.Interface()}
	kf := &wm.kinds[k.index]
	existed := kf.has
	kf.set(f)
	kf.rev = wm.rev
	wm.syncEnv(k)
	if wm.observer != nil {
		op := OpAssert
		if existed {
			op = OpUpdate
		}
		wm.observer(op, f)
	}
	return f
}

// Retract removes a fact.
func (wm *WorkingMemory) Retract(kind, id string) (Fact, error) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, err
	}
	kf := &wm.kinds[k.index]
	old, ok := kf.get(id)
	if !ok {
		return Fact{}, fmt.Errorf("%w: %s/%s", ErrNoFact, kind, id)
	}
	kf.del(id)
	wm.rev++
	kf.rev = wm.rev
	old.Rev = wm.rev
	wm.syncEnv(k)
	if wm.observer != nil {
		wm.observer(OpRetract, old)
	}
	return old, nil
}

// Get returns the fact of the kind with the id ("" for a singleton kind).
func (wm *WorkingMemory) Get(kind, id string) (Fact, bool) {
	k, id, err := wm.kind(kind, id)
	if err != nil {
		return Fact{}, false
	}
	return wm.kinds[k.index].get(id)
}

// Query returns every fact of the kind, ordered by id.
func (wm *WorkingMemory) Query(kind string) []Fact {
	k := wm.rs.kindByName[kind]
	if k == nil {
		return nil
	}
	return wm.sorted(k)
}

// All returns every fact, ordered by kind declaration and then id.
func (wm *WorkingMemory) All() []Fact {
	var out []Fact
	for _, k := range wm.rs.kinds {
		out = append(out, wm.sorted(k)...)
	}
	return out
}

func (wm *WorkingMemory) sorted(k *FactKind) []Fact {
	kf := &wm.kinds[k.index]
	out := make([]Fact, 0, kf.count())
	if !kf.many {
		if kf.has {
			out = append(out, kf.single)
		}
		return out
	}
	for _, f := range kf.byID {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// syncEnv points the kind's environment field at its current payload(s).
func (wm *WorkingMemory) syncEnv(k *FactKind) {
	field := wm.env.Elem().Field(k.index)
	if !k.Many {
		f, ok := wm.kinds[k.index].get(k.Name)
		if !ok {
			field.Set(reflect.Zero(field.Type()))
			wm.ptrs[k.index] = nil
			return
		}
		pv := reflect.ValueOf(f.Payload)
		field.Set(pv)
		wm.ptrs[k.index] = pv.UnsafePointer()
		return
	}
	facts := wm.sorted(k)
	list := reflect.MakeSlice(field.Type(), len(facts), len(facts))
	for i, f := range facts {
		list.Index(i).Set(reflect.ValueOf(f.Payload))
	}
	field.Set(list)
}

// envValue is what compiled predicates run against.
func (wm *WorkingMemory) envValue() any { return wm.env.Interface() }
