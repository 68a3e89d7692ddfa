package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
)

// Fact is one unit of working memory. Payload is a pointer to a struct of the kind's
// declared fields; it is never modified after the fact is stored (an update stores a new
// payload), so a Fact read from memory stays valid.
type Fact struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Rev     uint64 `json:"rev"`
	Payload any    `json:"payload"` // encoded with its kind's declared field names
}

// Get returns the value of a declared field of the fact's payload.
func (f Fact) Get(field string) (any, bool) {
	v := reflect.ValueOf(f.Payload)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, false
	}
	sv := v.Elem()
	for i := 0; i < sv.NumField(); i++ {
		if sv.Type().Field(i).Tag.Get("json") == field {
			return sv.Field(i).Interface(), true
		}
	}
	return nil, false
}

// setPayload copies src (Fields, a struct, or a pointer to a struct whose json tags name
// declared fields) into dst, a settable struct of kind k's type. Only the fields src
// names are written.
func (kf *kindFacts) setPayload(dst reflect.Value, src any) error {
	k := kf.kind
	switch p := src.(type) {
	case nil:
		return nil
	case ruleset.Fields:
		return setFields(k, dst, p)
	case map[string]any:
		return setFields(k, dst, p)
	}
	sv := reflect.ValueOf(src)
	byPointer := sv.Kind() == reflect.Pointer
	if byPointer {
		if sv.IsNil() {
			return nil
		}
		sv = sv.Elem()
	}
	if sv.Kind() != reflect.Struct {
		return fmt.Errorf("payload of kind %q must be ruleset.Fields or a struct, got %T", k.Name, src)
	}
	plan, err := kf.structPlan(sv.Type())
	if err != nil {
		return err
	}
	for _, m := range plan {
		if m.same {
			// Same Go type as the declared field: copy without boxing. Floats still
			// need the finiteness check the declared type promises.
			f := sv.Field(m.src)
			if err := badNumber(k, m.dst, f, byPointer); err != nil {
				return err
			}
			if f.Kind() == reflect.Slice {
				dst.Field(m.dst).Set(reflect.ValueOf(slices.Clone(f.Interface().([]string))))
				continue
			}
			dst.Field(m.dst).Set(f)
			continue
		}
		if err := k.Fields[m.dst].Assign(dst.Field(m.dst), sv.Field(m.src).Interface()); err != nil {
			return fmt.Errorf("field %q of kind %q: %w", k.Fields[m.dst].Name, k.Name, err)
		}
	}
	return nil
}

func setFields(k *ruleset.FactKind, dst reflect.Value, fields map[string]any) error {
	// Sorted so that the first error reported does not depend on map order.
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		i, ok := k.FieldIndex(name)
		if !ok {
			return fmt.Errorf("kind %q has no field %q (fields: %s)", k.Name, name, strings.Join(k.FieldNames(), ", "))
		}
		if err := k.Fields[i].Assign(dst.Field(i), fields[name]); err != nil {
			return fmt.Errorf("field %q of kind %q: %w", name, k.Name, err)
		}
	}
	return nil
}

type fieldMove struct {
	src, dst int
	same     bool              // the source field has the declared field's Go type
	typ      ruleset.FieldType // the declared type
}

// structPlans caches, per (kind, Go struct type), which source field goes where, so a
// host updating a fact from its own struct pays for reflection on tags once.
var structPlans sync.Map // planKey → []fieldMove

type planKey struct {
	kind *ruleset.FactKind
	typ  reflect.Type
}

func (kf *kindFacts) structPlan(t reflect.Type) ([]fieldMove, error) {
	if last := kf.plan; last != nil && last.typ == t {
		return last.plan, nil
	}
	plan, err := lookupPlan(kf.kind, t)
	if err == nil {
		kf.plan = &cachedPlan{typ: t, ptr: reflect.PointerTo(t), plan: plan, whole: writesWhole(kf.kind, plan)}
	}
	return plan, err
}

// cachedPlan is the plan of the Go type a kind was last given, checked before the
// shared cache because a host almost always updates a kind from one struct type.
type cachedPlan struct {
	typ   reflect.Type
	ptr   reflect.Type // *typ: the dynamic type of a payload given by pointer
	plan  []fieldMove
	whole bool // see writesWhole
}

// writesWhole reports whether plan writes every declared field, each from a field of
// the declared Go type. Such a payload replaces the old one entirely, so the old
// payload need not be copied first, and it is copied without reflection.
func writesWhole(k *ruleset.FactKind, plan []fieldMove) bool {
	written := make([]bool, len(k.Fields))
	for _, m := range plan {
		if !m.same {
			return false
		}
		written[m.dst] = true
	}
	return !slices.Contains(written, false)
}

// bindLive reports whether src writes the live payload of kf in place, through moves
// bound to it: src must be a non-nil pointer to a struct type that writes every
// declared field (see writesWhole), the pointer the moves are bound to or one to the
// type the kind was last given. Any other src (a nil pointer writes nothing: the old
// payload stays) takes the general path: copy the old payload into a new one, then
// setPayload.
func (wm *WorkingMemory) bindLive(kf *kindFacts, src any) bool {
	m := &kf.live.moves
	// Moves bound to src stay right while the input does: a type's plan never changes.
	if m.from == src && m.gen == wm.inGen {
		return true
	}
	c := kf.plan
	if c == nil || !c.whole || reflect.TypeOf(src) != c.ptr || reflect.ValueOf(src).IsNil() {
		return false
	}
	m.bind(c, reflect.ValueOf(src), kf.live.ptrs, wm.slotsOf[kf.kind.Index()], &wm.in)
	wm.stamps++
	m.gen, m.stamp = wm.inGen, wm.stamps
	return true
}

// rejected is the error of moves m whose values moveLive took back: setPayload's, which
// names the first bad number in plan order.
func (wm *WorkingMemory) rejected(kf *kindFacts, m *moves) error {
	wm.refreshInput(kf.kind) // the input holds some of the values moveLive took back
	return kf.setPayload(reflect.New(kf.kind.Type()).Elem(), m.from)
}

// moves are a whole plan bound to one source struct, one payload and the matcher's
// input: typed pointers grouped by type, so a write is a few tight loops without a
// switch per field. A host mostly updates a fact from one variable, and a pointer found
// once reads that variable's current value every time.
type moves struct {
	// from is the pointer the moves read through, nil when unbound. Holding it keeps the
	// struct alive, so no other struct can take its address: the same pointer is the
	// same struct.
	from  any
	gen   uint64 // the WorkingMemory.inGen of the input pointers
	stamp uint64 // tells this binding from every other one (see Binding)
	fused bool   // every input slot of the kind is written; see bind
	f     []move[float64, float64]
	i     []move[int, int64]
	b     []move[bool, bool]
	s     []move[string, string]
	l     []move[[]string, struct{}] // the matcher reads no list: in is nil
	sink  inputSink                  // where a field the matcher does not read goes
}

// move copies *src to *dst and to the matcher's input slot *in; old is *dst before.
type move[T, I any] struct {
	dst, src *T
	in       *I
	old      T
}

// bindMove appends the move of src to dst, which also stores into input slot j, or
// into sink when the matcher does not read the field (j < 0).
func bindMove[T, I any](ms []move[T, I], dst, src *T, sink *I, input []I, j int) []move[T, I] {
	mv := move[T, I]{dst: dst, src: src, in: sink}
	if j >= 0 {
		mv.in = &input[j]
	}
	return append(ms, mv)
}

// inputSink takes the values of the fields the matcher does not read, so that every
// move stores the same way.
type inputSink struct {
	f float64
	i int64
	b bool
	s string
}

// bind makes the moves of whole plan c from the struct src points to into the payload
// fields dst, and into the input slots of in that slots lists. fused is false when the
// matcher reads a field twice or as another type than its own (it does neither today):
// the caller then refreshes the input from the payload instead.
func (m *moves) bind(c *cachedPlan, src reflect.Value, dst []fieldPtr, slots []inputSlot, in *cond.Input) {
	m.f, m.i, m.b, m.s, m.l = m.f[:0], m.i[:0], m.b[:0], m.s[:0], m.l[:0]
	m.fused = true
	slotOf := func(field int, t cond.Type) int { // -1 for none
		slot := -1
		for _, s := range slots {
			if s.field == field {
				if s.typ != t || slot >= 0 {
					m.fused = false
					return -1
				}
				slot = s.slot
			}
		}
		return slot
	}
	sv := src.Elem()
	for _, mv := range c.plan {
		s, d := ptrOf(sv.Field(mv.src)), dst[mv.dst]
		switch mv.typ {
		case ruleset.TypeFloat:
			m.f = bindMove(m.f, d.f, s.f, &m.sink.f, in.Num, slotOf(mv.dst, cond.TFloat))
		case ruleset.TypeInt:
			m.i = bindMove(m.i, d.i, s.i, &m.sink.i, in.Int, slotOf(mv.dst, cond.TInt))
		case ruleset.TypeBool:
			m.b = bindMove(m.b, d.b, s.b, &m.sink.b, in.Bool, slotOf(mv.dst, cond.TBool))
		case ruleset.TypeString:
			m.s = bindMove(m.s, d.s, s.s, &m.sink.s, in.Str, slotOf(mv.dst, cond.TString))
		default:
			slotOf(mv.dst, cond.TOther) // refreshInput writes no other slot either
			m.l = append(m.l, move[[]string, struct{}]{dst: d.l, src: s.l})
		}
	}
	m.from = src.Interface()
}

// inPlace writes the struct of b through the live payload's moves when they are bound
// to it; moves that are not b's (none yet, or a change since made another payload live)
// take the path of Set, which binds them.
func (wm *WorkingMemory) inPlace(b *Binding) error {
	kf := b.kf
	if p := kf.live; p != nil && p.moves.stamp == b.stamp && !kf.shared && p.moves.gen == wm.inGen {
		return wm.moveLive(kf)
	}
	if _, _, err := wm.write(kf.kind.Name, "", b.src, ""); err != nil {
		return err
	}
	if p := kf.live; p.moves.from == b.src {
		b.stamp = p.moves.stamp
	}
	return nil
}

// moveLive writes the source of the live payload's moves into the payload and the
// input, and records the change, when every number fits its declared type (floats
// finite, ints within ruleset.MaxExactInt); when one does not, it writes nothing and
// returns the error of the first. This runs on every decision: the numbers are checked
// as they are copied, in one pass, and the old ones put back on the rare bad one.
func (wm *WorkingMemory) moveLive(kf *kindFacts) error {
	m := &kf.live.moves
	fs, is := m.f, m.i // locals, which the stores below cannot change
	var z float64      // x−x is 0 for a finite x and NaN otherwise, and a NaN sum stays NaN
	for j := range fs {
		p := &fs[j]
		v := *p.src
		p.old, *p.dst, *p.in = *p.dst, v, v
		z += v - v
	}
	big := false
	for j := range is {
		p := &is[j]
		v := *p.src
		p.old, *p.dst, *p.in = *p.dst, v, int64(v)
		if x := int64(v); x > ruleset.MaxExactInt || x < -ruleset.MaxExactInt {
			big = true
		}
	}
	if z != 0 || big {
		for _, p := range m.f {
			*p.dst = p.old
		}
		for _, p := range m.i {
			*p.dst = p.old
		}
		return wm.rejected(kf, m)
	}
	for _, p := range m.b {
		v := *p.src
		*p.dst, *p.in = v, v
	}
	if len(m.s)+len(m.l) > 0 { // rare in a fact written every cycle: the loops are apart
		m.text()
	}
	if !m.fused {
		wm.refreshInput(kf.kind)
	}
	wm.rev++ // as storedSingle does
	kf.single.Rev, kf.rev = wm.rev, wm.rev
	if wm.counter != nil {
		*wm.counter++
		return nil
	}
	wm.notify(OpUpdate, &kf.single)
	return nil
}

// text copies the strings and the lists of moves m.
func (m *moves) text() {
	for _, p := range m.s {
		v := *p.src
		*p.dst, *p.in = v, v
	}
	for _, p := range m.l {
		*p.dst = slices.Clone(*p.src) // a fact never shares a list with its writer
	}
}

// badNumber is the error of f, a source field of declared field dst's Go type, when the
// declared type rejects its value: a float that is not finite, an int beyond
// ruleset.MaxExactInt. byPointer names an int as the field's own Go type, int, the way
// it was read.
func badNumber(k *ruleset.FactKind, dst int, f reflect.Value, byPointer bool) error {
	switch f.Kind() {
	case reflect.Float64:
		if x := f.Float(); !finite(x) {
			return fmt.Errorf("field %q of kind %q: want a finite number, got %v", k.Fields[dst].Name, k.Name, x)
		}
	case reflect.Int:
		if x := f.Int(); x > ruleset.MaxExactInt || x < -ruleset.MaxExactInt {
			if byPointer {
				return fmt.Errorf("field %q of kind %q: want an integer, got %v (%T)", k.Fields[dst].Name, k.Name, int(x), int(x))
			}
			return fmt.Errorf("field %q of kind %q: want an integer, got %v (%T)", k.Fields[dst].Name, k.Name, x, x)
		}
	}
	return nil
}

func lookupPlan(k *ruleset.FactKind, t reflect.Type) ([]fieldMove, error) {
	key := planKey{k, t}
	if p, ok := structPlans.Load(key); ok {
		return p.([]fieldMove), nil
	}
	var plan []fieldMove
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		j, ok := k.FieldIndex(name)
		if !ok {
			return nil, fmt.Errorf("kind %q has no field %q (from %s.%s; fields: %s)", k.Name, name, t, sf.Name, strings.Join(k.FieldNames(), ", "))
		}
		plan = append(plan, fieldMove{src: i, dst: j, same: sf.Type == k.Type().Field(j).Type, typ: k.Fields[j].Type})
	}
	structPlans.Store(key, plan)
	return plan, nil
}

// finite reports whether x is neither NaN nor ±Inf, in one comparison: x−x is 0 for
// every finite x and NaN otherwise.
func finite(x float64) bool { return x-x == 0 }
