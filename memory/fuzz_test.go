package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

func sampleRecords() []Record {
	return []Record{
		{Megram: contract.Megram{ID: "m1", Level: "M", CreatedAt: t0, LastRecalledAt: t0, Space: "tool:go", Entity: "path:./x",
			Content: "build failed", State: "change_path", F: 0.3, K: 0.2}, Origin: OriginGGS},
		{Megram: contract.Megram{ID: "m2", Level: "K", CreatedAt: t0, LastRecalledAt: t0.Add(-time.Hour), Space: "intent:a_b_c", Entity: "env:local",
			Content: "ünïcode", State: "best_practice", F: 1, Sigma: 1, K: 0.05}, Origin: OriginDreamer, Supersedes: "c-9"},
	}
}

func FuzzDecodeRecord(f *testing.F) {
	for _, r := range sampleRecords() {
		b := encodeRecord(r)
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.Replace(b, []byte(`"M"`), []byte(`"Q"`), 1))
		f.Add(append(append([]byte(nil), b...), '{'))
	}
	f.Add([]byte(`{"id":"x","level":"M","f":1e999}`))
	f.Add([]byte(`null`))
	f.Add([]byte{0xff, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRecord(data)
		if err != nil {
			return
		}
		if err := r.validate(); err != nil {
			t.Fatalf("decoded an invalid record: %v", err)
		}
		b := encodeRecord(r)
		if want, _ := json.Marshal(r); !bytes.Equal(b, want) {
			t.Fatalf("encodeRecord differs from encoding/json:\n%s\n%s", b, want)
		}
		r2, err := decodeRecord(b)
		if err != nil || !recordsEqual(r, r2) {
			t.Fatalf("round trip: %+v → %+v, %v", r, r2, err)
		}
	})
}

// FuzzRecordJSONMatchesEncodingJSON holds the hand-written encoder to the bytes of
// encoding/json for every valid record.
func FuzzRecordJSONMatchesEncodingJSON(f *testing.F) {
	f.Add("m1", "tool:go", "path:<a&b>", "line\n\"quoted\" \\ \u2028 é \x01", "success", 0.8, 1.0, 0.05, int64(0), "R7", "")
	f.Add("x", "s", "e", "", "", 1e-7, -1.0, 0.0, int64(123456789), "", "c1")
	f.Add("y", "s", "e", "\u2029", "s", 0.3, 0.0, 1e-300, int64(-1), "o", "")
	f.Fuzz(func(t *testing.T, id, space, entity, content, state string, fv, sigma, k float64, nanos int64, origin, supersedes string) {
		at := t0.Add(time.Duration(nanos))
		r := Record{Megram: contract.Megram{ID: id, Level: "M", CreatedAt: at, LastRecalledAt: at.Add(-time.Duration(nanos) / 3),
			Space: space, Entity: entity, Content: content, State: state, F: fv, Sigma: sigma, K: k}, Origin: origin, Supersedes: supersedes}
		r.normalise()
		if r.validate() != nil {
			return
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := encodeRecord(r); !bytes.Equal(got, want) {
			t.Fatalf("encodeRecord:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}

func FuzzDecodeSummary(f *testing.F) {
	for _, r := range sampleRecords() {
		f.Add(encodeSummary(summarise(r)))
	}
	f.Add([]byte{1, 'M'})
	f.Add(bytes.Repeat([]byte{0xff}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSummary(data)
		if err != nil {
			return
		}
		if got := encodeSummary(s); !bytes.Equal(got, data) {
			t.Fatalf("not canonical: %x decodes to %+v, which encodes to %x", data, s, got)
		}
	})
}

func FuzzParseIdxKey(f *testing.F) {
	f.Add("idx:tool%3Ago:path%3A/a%3Ab:m1")
	f.Add("idx:a:b:c:d")
	f.Add("idx:%2:b:c")
	f.Fuzz(func(t *testing.T, key string) {
		space, entity, id, n, err := parseIdxKey(key)
		if err != nil {
			return
		}
		if got := string(idxKey(space, entity, id)); got != key {
			t.Fatalf("parse(%q) = (%q, %q, %q) which builds %q", key, space, entity, id, got)
		}
		if n != len(pairPrefix(space, entity)) {
			t.Fatalf("pair length %d, want %d", n, len(pairPrefix(space, entity)))
		}
	})
}

func FuzzDecodeRecall(f *testing.F) {
	f.Add(encodeRecall(t0))
	f.Add([]byte("2025-13-01T00:00:00Z"))
	f.Add([]byte("9999-01-01T00:00:00Z"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tm, err := decodeRecall(data); err == nil && validTime("t", tm) != nil {
			t.Fatalf("accepted %s", tm)
		}
	})
}

// FuzzCorruptMegramValue overwrites a stored megram: value in a real LevelDB store with
// arbitrary bytes: reading it must give a record or an error, never a panic.
func FuzzCorruptMegramValue(f *testing.F) {
	s, err := OpenLevelDB(f.TempDir(), Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "m"}, Timer: newManualTimer()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	w, _ := s.WriterFor(RoleGGS)
	w.Write(sampleRecords()[0].Megram)
	if err := s.Flush(context.Background()); err != nil {
		f.Fatal(err)
	}
	good, _ := json.Marshal(sampleRecords()[0])
	f.Add(good)
	f.Add(good[:10])
	f.Add([]byte(`{"id":"m2","level":"M"}`))
	db := s.be.(*levelBackend).db
	f.Fuzz(func(t *testing.T, value []byte) {
		if err := db.Put(megramKey("m1"), value, nil); err != nil {
			t.Fatal(err)
		}
		r, err := s.Get(t.Context(), "m1")
		if err == nil && r.ID != "m1" {
			t.Fatalf("read record %q under megram:m1", r.ID)
		}
		var sink []Record
		_ = s.List(t.Context(), ListFilter{}, func(r Record) error { sink = append(sink, r); return nil })
	})
}
