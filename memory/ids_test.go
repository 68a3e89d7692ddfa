package memory

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
)

// megramIDScheme is the one ID scheme of every Megram: 128 bits, 32 lowercase hex digits.
var megramIDScheme = regexp.MustCompile(`^[0-9a-f]{32}$`)

// RandomIDs is deterministic given its clock and random source: the creation millisecond
// in the first 12 digits, then 80 bits of Rand, so IDs made later sort later.
func TestRandomIDsLayout(t *testing.T) {
	clock := newClock()
	g := &RandomIDs{Clock: clock, Rand: bytes.NewReader(bytes.Repeat(seq(0, 256), 16))}
	first := g.NewID()
	clock.Advance(time.Second)
	second := g.NewID()
	for _, tc := range []struct{ got, want string }{
		{first, "01955193de0000010203040506070809"},  // 2025-03-01T12:00:00Z = 0x1955193de00 ms
		{second, "01955193e1e80a0b0c0d0e0f10111213"}, // one second later, the next 10 bytes
	} {
		if tc.got != tc.want {
			t.Errorf("NewID = %q, want %q", tc.got, tc.want)
		}
	}
	if !(first < second) {
		t.Errorf("%s made before %s sorts after it", first, second)
	}
}

func seq(from, to int) []byte {
	b := make([]byte, 0, to-from)
	for i := from; i < to; i++ {
		b = append(b, byte(i))
	}
	return b
}

// The IDs the store mints (an import or a write without an id) and the IDs GGS gives
// its writes in a live run (engine.RandomIDs) have one form.
func TestOneIDScheme(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			e := newEnv(t, bc, func(o *Options) { o.IDs = nil }) // the store's default source
			ids, err := e.s.Import(context.Background(), []contract.Megram{megram("tool:a", "path:b", "change_path", 0.3, 0, 0.2)})
			if err != nil || len(ids) != 1 {
				t.Fatalf("Import = %v, %v", ids, err)
			}
			w, err := e.s.WriterFor(RoleGGS)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(megram("tool:a", "env:local", "change_approach", 0.85, -1, 0.05))
			ggsID := engine.RandomIDs{}.NewID()
			g := megram("tool:a", "path:c", "refine", 0.1, 0.5, 0.5)
			g.ID = ggsID
			w.Write(g)
			e.flush()
			e.noErrors()
			var got []string
			if err := e.s.List(context.Background(), ListFilter{}, func(r Record) error {
				got = append(got, r.ID)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 {
				t.Fatalf("stored %v, want 3 records", got)
			}
			for _, id := range got {
				if !megramIDScheme.MatchString(id) {
					t.Errorf("id %q, want 32 lowercase hex digits", id)
				}
			}
		})
	}
}

// Stores written before the scheme hold 26-character ULIDs (and tests' own IDs): they
// are still imported, read, scanned and verified as they are, beside new IDs, and after
// the store is reopened.
func TestOldIDsStillRead(t *testing.T) {
	const ulid = "01JN8ZQ4W3X5Y6Z7A8B9C0D1EF"
	dir := t.TempDir()
	clock := newClock()
	open := func() *Service {
		s, err := OpenLevelDB(dir, Options{Clock: clock, Storage: StorageOptions{NoSync: true}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	old := megram("tool:a", "path:b", "change_path", 0.3, 0, 0.2)
	old.ID, old.CreatedAt = ulid, t0
	ids, err := s.Import(context.Background(), []contract.Megram{old, megram("tool:a", "path:b", "change_path", 0.3, 0, 0.2)})
	if err != nil || len(ids) != 2 || ids[0] != ulid || !megramIDScheme.MatchString(ids[1]) {
		t.Fatalf("Import = %v, %v; want the ULID kept and a new hex id", ids, err)
	}
	s.Close()
	s = open()
	defer s.Close()
	ctx := context.Background()
	r, err := s.Get(ctx, ulid)
	if err != nil || r.ID != ulid || r.State != "change_path" {
		t.Fatalf("Get(%s) = %+v, %v", ulid, r, err)
	}
	pot, err := s.QueryMK(ctx, "tool:a", "path:b")
	if err != nil || !near(pot.Attention, 0.6) {
		t.Errorf("potentials over both ids = %+v, %v; want attention 0.6", pot, err)
	}
	rep, err := s.Verify(ctx)
	if err != nil || rep.Records != 2 || len(rep.Problems) != 0 {
		t.Errorf("verify = %+v, %v", rep, err)
	}
}
