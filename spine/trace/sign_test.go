package trace

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testKey is a fixed key pair (seeded), so the tests need no randomness.
func testKey(seed byte) (*Signer, ed25519.PublicKey) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	return NewSigner(priv), priv.Public().(ed25519.PublicKey)
}

// signedTrace writes a small trace through a FileSink, signed by sg (nil: unsigned).
func signedTrace(t *testing.T, sg *Signer) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	s, err := CreateFileSink(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	meta := map[string]string{"workdir": "/w"}
	if sg != nil {
		meta[MetaSignKey] = sg.Fingerprint()
	}
	events := []Event{
		{Seq: 1, Time: at, Kind: KindHeader, Body: Header{Format: Format, Run: "run-1", Meta: meta}},
		{Seq: 2, Time: at.Add(time.Second), Kind: KindTransition, Body: Transition{From: "observe", To: "plan", Event: "amount-100", Iteration: 1}},
		{Seq: 3, Time: at.Add(2 * time.Second), Kind: KindHalt, Body: Halt{Outcome: "success", Objective: "done"}},
	}
	for i := range events {
		if err := s.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if sg != nil {
		if err := s.Sign(sg); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readTrace reads a trace and its chain as ReadFile does.
func readTrace(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := Read("t.jsonl", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("read: %v\n%s", err, b)
	}
	f.Chain, f.ChainErr = VerifyChain(bytes.NewReader(b))
	return f
}

// rechain is what an attacker who knows the chain does after editing a trace: every
// line's h is computed again from the genesis value, so VerifyChain finds nothing.
func rechain(t *testing.T, b []byte, edit func(lines []string) []string) []byte {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		content, _, ok := splitChained([]byte(l))
		if !ok {
			t.Fatalf("not a chained line: %s", l)
		}
		lines = append(lines, string(content))
	}
	lines = edit(lines)
	out, err := SealTrace([]byte(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyChain(bytes.NewReader(out)); err != nil {
		t.Fatalf("the attacker's chain does not hold: %v", err)
	}
	return out
}

// setField rewrites one string field of a JSON line, as an editor would.
func setField(t *testing.T, line, key, value string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	old, ok := m[key]
	if !ok {
		t.Fatalf("no %s in %s", key, line)
	}
	v, _ := json.Marshal(value)
	return strings.Replace(line, `"`+key+`":`+string(old), `"`+key+`":`+string(v), 1)
}

func TestSignedTrace(t *testing.T) {
	sg, pub := testKey(1)
	other, otherPub := testKey(2)
	trusted := KeyRing{Fingerprint(pub): pub}
	good := signedTrace(t, sg)

	for _, tc := range []struct {
		name  string
		trace []byte
		keys  KeyRing
		want  string // "" for accepted; else part of the refusal
	}{
		{"good", good, trusted, ""},
		{"good among several trusted keys", good, KeyRing{Fingerprint(pub): pub, Fingerprint(otherPub): otherPub}, ""},
		{"one byte edited, every hash computed again", rechain(t, good, func(l []string) []string {
			l[1] = strings.Replace(l[1], "100", "900", 1)
			return l
		}), trusted, "the signature covers head"},
		{"one byte edited, every hash and the signature's head computed again", rechainHead(t, good, func(l []string) []string {
			l[1] = strings.Replace(l[1], "100", "900", 1)
			return l
		}), trusted, "does not verify: the trace was changed after it was signed"},
		{"signed by another key", signedTrace(t, other), trusted, "signed by " + other.Fingerprint() + ", which is not a trusted key (trusted: " + sg.Fingerprint() + ")"},
		{"unsigned", signedTrace(t, nil), trusted, "the trace is not signed"},
		{"cut after signing", cutLast(good), trusted, "no signature line, but the header names the signing key " + sg.Fingerprint() + ": the trace was cut after line 3"},
		{"a line added after signing", rechain(t, good, func(l []string) []string {
			return append(l, `{"seq":5,"t":"2026-03-01T09:00:02Z","kind":"audit","finding":{}}`)
		}), trusted, `line 5: a "audit" line follows the signature of line 4`},
		{"torn bytes after the signature", append(bytes.Clone(good), `{"seq":5,"t":"20`...), trusted, "a torn line follows the signature"},
		{"signing key dropped from the header", rechainHead(t, good, func(l []string) []string {
			l[0] = strings.Replace(l[0], `"sign_key":"`+sg.Fingerprint()+`",`, "", 1)
			return l
		}), trusted, "the header names no signing key"},
		{"signature moved to another key's name", rechain(t, good, func(l []string) []string {
			l[3] = setField(t, l[3], "key", other.Fingerprint())
			return l
		}), KeyRing{Fingerprint(otherPub): otherPub}, "but the header names " + sg.Fingerprint()},
		{"line count changed", rechain(t, good, func(l []string) []string {
			l[3] = strings.Replace(l[3], `"lines":3`, `"lines":2`, 1)
			return l
		}), trusted, "the signature covers 2 lines, but 3 lines precede it"},
		{"chain broken", bytes.Replace(good, []byte("100"), []byte("900"), 1), trusted, "the hash chain is broken"},
		{"no key trusted", good, KeyRing{}, "which is not a trusted key (trusted: none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := readTrace(t, tc.trace)
			rep, err := f.VerifySignature(tc.keys)
			if tc.want == "" {
				if err != nil || !rep.Signed || rep.Key != sg.Fingerprint() {
					t.Fatalf("refused a good trace: %v (%+v)", err, rep)
				}
				return
			}
			var se *SignatureError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal holding %q\n%s", err, tc.want, tc.trace)
			}
		})
	}
}

// rechainHead edits, then also puts the new chain's head into the signature line, so
// that only the signature itself can tell.
func rechainHead(t *testing.T, b []byte, edit func(lines []string) []string) []byte {
	t.Helper()
	edited := rechain(t, b, func(l []string) []string { return edit(l)[:len(l)-1] })
	f := readTrace(t, edited)
	head := f.Events[len(f.Events)-1].H
	return rechain(t, b, func(l []string) []string {
		l = edit(l)
		l[len(l)-1] = setField(t, l[len(l)-1], "head", head)
		return l
	})
}

func cutLast(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return append(bytes.Clone(b[:bytes.LastIndexByte(b, '\n')]), '\n')
}

// TestSignatureLine: the signature line is an ordinary chained line after the last one,
// with the last line's time, and Signature reports who signed without a key.
func TestSignatureLine(t *testing.T) {
	sg, _ := testKey(1)
	b := signedTrace(t, sg)
	f := readTrace(t, b)
	if f.ChainErr != nil || f.Chain.Lines != 4 {
		t.Fatalf("chain: %v, %d lines", f.ChainErr, f.Chain.Lines)
	}
	last := f.Events[3]
	if last.Kind != KindSignature || last.Seq != 4 || !last.Time.Equal(f.Events[2].Time) {
		t.Fatalf("last line: %s seq %d at %s", last.Kind, last.Seq, last.Time)
	}
	if rep := f.Signature(); !rep.Signed || rep.Key != sg.Fingerprint() || rep.Lines != 3 || rep.String() != "signed by "+sg.Fingerprint() {
		t.Errorf("Signature: %+v", rep)
	}
	if rep := readTrace(t, signedTrace(t, nil)).Signature(); rep.Signed || rep.String() != "unsigned" {
		t.Errorf("unsigned: %+v", rep)
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	sg, pub := testKey(3)
	privPEM, err := EncodePrivateKey(sg.priv)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := EncodePublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := LoadSigner(write("k", privPEM, 0o600))
	if err != nil || got.Fingerprint() != sg.Fingerprint() {
		t.Fatalf("LoadSigner: %v", err)
	}
	if _, err := LoadSigner(write("open", privPEM, 0o644)); err == nil || !strings.Contains(err.Error(), "readable by others (mode 0644)") {
		t.Errorf("a key others can read: %v", err)
	}
	linked := write("linked", privPEM, 0o600)
	if err := os.Link(linked, filepath.Join(dir, "second-name")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigner(linked); err == nil || !strings.Contains(err.Error(), "has 2 hard links") {
		t.Errorf("a key with a second name: %v", err)
	}
	if _, err := LoadSigner(write("pubaspriv", pubPEM, 0o600)); err == nil || !strings.Contains(err.Error(), `a PEM "PUBLIC KEY" block, expected PRIVATE KEY`) {
		t.Errorf("a public key as private: %v", err)
	}
	write("k.pub", pubPEM, 0o644)
	ring, err := LoadKeyRing(filepath.Join(dir, "k.pub"))
	if err != nil || len(ring) != 1 || !ring[sg.Fingerprint()].Equal(pub) {
		t.Fatalf("LoadKeyRing file: %v %v", ring, err)
	}
	keys := t.TempDir()
	_, pub2 := testKey(4)
	pub2PEM, _ := EncodePublicKey(pub2)
	os.WriteFile(filepath.Join(keys, "a.pub"), pubPEM, 0o644)
	os.WriteFile(filepath.Join(keys, "b.pem"), pub2PEM, 0o644)
	os.WriteFile(filepath.Join(keys, "README"), []byte("not a key"), 0o644)
	if ring, err := LoadKeyRing(keys); err != nil || len(ring) != 2 {
		t.Fatalf("LoadKeyRing dir: %v %v", ring, err)
	}
	os.WriteFile(filepath.Join(keys, "c.pub"), privPEM, 0o644)
	if _, err := LoadKeyRing(keys); err == nil || !strings.Contains(err.Error(), `c.pub: a PEM "PRIVATE KEY" block, expected PUBLIC KEY`) {
		t.Errorf("a private key among the public ones: %v", err)
	}
	if _, err := LoadKeyRing(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no public key") {
		t.Errorf("an empty directory: %v", err)
	}
	if fp := Fingerprint(pub); !strings.HasPrefix(fp, "SHA256:") || len(fp) != len("SHA256:")+43 {
		t.Errorf("fingerprint %q", fp)
	}
}

// FuzzParseKey: key parsing never panics, and what it accepts encodes back to a key it
// reads the same.
func FuzzParseKey(f *testing.F) {
	sg, pub := testKey(5)
	privPEM, _ := EncodePrivateKey(sg.priv)
	pubPEM, _ := EncodePublicKey(pub)
	f.Add(privPEM)
	f.Add(pubPEM)
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END PUBLIC KEY-----\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if priv, err := ParsePrivateKey(b); err == nil {
			again, err := EncodePrivateKey(priv)
			if err != nil {
				t.Fatal(err)
			}
			if p2, err := ParsePrivateKey(again); err != nil || !p2.Equal(priv) {
				t.Fatalf("private key does not round-trip: %v", err)
			}
		}
		if pub, err := ParsePublicKey(b); err == nil {
			again, _ := EncodePublicKey(pub)
			if p2, err := ParsePublicKey(again); err != nil || !p2.Equal(pub) {
				t.Fatalf("public key does not round-trip: %v", err)
			}
		}
	})
}

// FuzzVerifySignature: any trace bytes are read and their signature judged without a
// panic; only the untouched signed trace is accepted.
func FuzzVerifySignature(f *testing.F) {
	sg, pub := testKey(6)
	good := signedTraceBytes(f, sg)
	f.Add(good)
	f.Add(cutLast(good))
	f.Add(bytes.Replace(good, []byte(`"lines":3`), []byte(`"lines":-1`), 1))
	f.Add(bytes.Replace(good, []byte(`"alg":"ed25519"`), []byte(`"alg":7`), 1))
	keys := KeyRing{Fingerprint(pub): pub}
	f.Fuzz(func(t *testing.T, b []byte) {
		tf, err := Read("fuzz", bytes.NewReader(b))
		if err != nil || len(tf.Events) == 0 {
			return
		}
		tf.Chain, tf.ChainErr = VerifyChain(bytes.NewReader(b))
		_ = tf.Signature()
		if _, err := tf.VerifySignature(keys); err == nil && !bytes.Equal(b, good) {
			t.Fatalf("accepted a trace that is not the signed one:\n%s", b)
		}
	})
}

// signedTraceBytes is signedTrace for a fuzz target's seed corpus.
func signedTraceBytes(f *testing.F, sg *Signer) []byte {
	dir := f.TempDir()
	s, err := CreateFileSink(filepath.Join(dir, "t.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s.Write(&Event{Seq: 1, Time: at, Kind: KindHeader, Body: Header{Format: Format, Run: "r", Meta: map[string]string{MetaSignKey: sg.Fingerprint()}}})
	s.Write(&Event{Seq: 2, Time: at, Kind: KindHalt, Body: Halt{Outcome: "success"}})
	if err := s.Sign(sg); err != nil {
		f.Fatal(err)
	}
	s.Close()
	b, err := os.ReadFile(filepath.Join(dir, "t.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	return b
}
