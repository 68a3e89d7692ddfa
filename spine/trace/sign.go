package trace

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentspine/spine/internal/linecap"
)

// Signed traces.
//
// The hash chain proves a trace's lines are in order and unedited relative to one
// another, but it has no key: whoever rewrites the file can compute every h again. A
// signed trace also proves who wrote it. The run holds an ed25519 private key (read once,
// kept outside the work dir and out of the sandbox's view) and
//
//   - names the key in the header, as the setup field MetaSignKey: its fingerprint,
//     "SHA256:" and the unpadded standard base64 of the SHA-256 of the raw 32-byte public
//     key (Fingerprint);
//   - ends the trace with one more chained line, of kind "signature" (Signature):
//
//     {"seq":N+1,"t":"<the last line's t>","kind":"signature","alg":"ed25519",
//     "key":"SHA256:…","lines":N,"head":"<h of line N>","sig":"<base64>","h":"…"}
//
// sig is the ed25519 signature of the message
//
//	"spine-trace-signature/1\nalg ed25519\nkey <fingerprint>\nlines <N>\nhead <h>\n"
//
// The head covers every line before the signature, the header and its MetaSignKey
// included; the algorithm, key and line count are in the message too, so a signature
// cannot be moved onto another trace, another key or a prefix. The signature line is an
// ordinary chained line after the host's last event, so VerifyChain and every reader take
// it as they take any kind they do not interpret, and a replay writes it again byte for
// byte (its epilogue copies what followed the halt).
//
// VerifySignature refuses, naming why: a trace with no signature (and, when its header
// names a key, says it was cut after signing or its run never finished), lines after the
// signature, a signature whose key is not the header's or is not trusted, a head that is
// not the chain's, or a signature that does not verify — the trace was changed after it
// was signed, even when every h was computed again.

// KindSignature is the last line of a signed trace (Signature).
const KindSignature = "signature"

// MetaSignKey is the header's setup field naming the fingerprint of the key that signs
// the trace.
const MetaSignKey = "sign_key"

// SignatureAlg is the only signature algorithm: Ed25519 (RFC 8032).
const SignatureAlg = "ed25519"

// signatureDomain starts every signed message, so a trace signature is never valid as
// anything else.
const signatureDomain = "spine-trace-signature/1"

// Signature is the body of a trace's signature line.
type Signature struct {
	Alg   string `json:"alg"`
	Key   string `json:"key"`   // the signing key's fingerprint
	Lines int    `json:"lines"` // lines the signature covers: every line before it
	Head  string `json:"head"`  // h of the last of them
	Sig   string `json:"sig"`   // standard base64 of the ed25519 signature
}

// signedMessage is what a trace's signature signs.
func signedMessage(alg, key string, lines int, head string) []byte {
	return []byte(signatureDomain + "\nalg " + alg + "\nkey " + key + "\nlines " + strconv.Itoa(lines) + "\nhead " + head + "\n")
}

// Fingerprint names a public key: "SHA256:" and the unpadded standard base64 of the
// SHA-256 of its 32 raw bytes (as OpenSSH writes them).
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// Signer signs traces with one private key.
type Signer struct {
	priv ed25519.PrivateKey
	fp   string
}

// NewSigner signs with priv.
func NewSigner(priv ed25519.PrivateKey) *Signer {
	return &Signer{priv: priv, fp: Fingerprint(priv.Public().(ed25519.PublicKey))}
}

// Fingerprint is the signing key's fingerprint, what the header's MetaSignKey holds.
func (s *Signer) Fingerprint() string { return s.fp }

// Sign writes the signature line after the last line written: the trace then ends. The
// header must have named s's fingerprint in MetaSignKey; a sink that wrote no line has
// nothing to sign.
func (s *FileSink) Sign(sg *Signer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.chain
	if !c.started {
		return errors.New("trace: nothing to sign: no line was written")
	}
	head, lines := c.head(), c.lines
	msg := signedMessage(SignatureAlg, sg.fp, lines, head)
	body := Signature{Alg: SignatureAlg, Key: sg.fp, Lines: lines, Head: head,
		Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(sg.priv, msg))}
	if s.err != nil {
		return s.err
	}
	line, err := c.encode(&Event{Seq: c.lastSeq + 1, Time: c.lastTime, Kind: KindSignature, Body: body})
	if err != nil {
		return err
	}
	s.queue(line)
	return nil
}

// Key files: PEM, as OpenSSL writes them. A private key is a "PRIVATE KEY" block
// (PKCS #8), a public key a "PUBLIC KEY" block (PKIX); both Ed25519.

// GenerateKey makes a new key pair.
func GenerateKey() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	return ed25519.GenerateKey(rand.Reader)
}

// EncodePrivateKey is priv as a PEM PKCS #8 block.
func EncodePrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// EncodePublicKey is pub as a PEM PKIX block.
func EncodePublicKey(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// ParsePrivateKey reads an Ed25519 private key from a PEM PKCS #8 block.
func ParsePrivateKey(b []byte) (ed25519.PrivateKey, error) {
	return parseKey[ed25519.PrivateKey](b, "PRIVATE KEY", "PKCS #8 private key", x509.ParsePKCS8PrivateKey)
}

// ParsePublicKey reads an Ed25519 public key from a PEM PKIX block.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	return parseKey[ed25519.PublicKey](b, "PUBLIC KEY", "PKIX public key", x509.ParsePKIXPublicKey)
}

// parseKey reads the one PEM block of type block, decodes it with parse (what names its
// encoding in errors) and accepts only an Ed25519 key of type K.
func parseKey[K ed25519.PrivateKey | ed25519.PublicKey](b []byte, block, what string, parse func([]byte) (any, error)) (K, error) {
	der, err := pemBlock(b, block)
	if err != nil {
		return nil, err
	}
	k, err := parse(der)
	if err != nil {
		return nil, fmt.Errorf("not a %s: %w", what, err)
	}
	key, ok := k.(K)
	if !ok {
		return nil, fmt.Errorf("a %T, not an Ed25519 key", k)
	}
	return key, nil
}

func pemBlock(b []byte, want string) ([]byte, error) {
	blk, rest := pem.Decode(b)
	switch {
	case blk == nil:
		return nil, fmt.Errorf("no PEM block (expected -----BEGIN %s-----)", want)
	case blk.Type != want:
		return nil, fmt.Errorf("a PEM %s block, expected %s", linecap.ExcerptString(blk.Type), want)
	case len(blk.Headers) > 0:
		return nil, fmt.Errorf("the PEM block has headers (an encrypted key?); expected a plain %s", want)
	case len(bytes.TrimSpace(rest)) > 0:
		return nil, fmt.Errorf("more after the %s block", want)
	}
	return blk.Bytes, nil
}

// maxKeyFile bounds a key file read: a PEM Ed25519 key is about 120 bytes.
const maxKeyFile = 16 << 10

// LoadSigner reads the private key file once. It refuses a key others may read (it must
// be mode 0600 or stricter, as ssh asks), a file that is not a regular file, and
// anything but an Ed25519 key.
func LoadSigner(path string) (*Signer, error) {
	b, fi, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%s: the private key is readable by others (mode %04o); chmod 600 it", path, perm)
	}
	// A second hard link is a name the placement checks never see: it may lie inside a
	// work dir that a sandboxed command can read.
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return nil, fmt.Errorf("%s: the private key has %d hard links; keep one (a second name may be readable from a sandbox)", path, st.Nlink)
	}
	priv, err := ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return NewSigner(priv), nil
}

func readKeyFile(path string) ([]byte, fs.FileInfo, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() > maxKeyFile {
		return nil, nil, fmt.Errorf("%s: %d bytes, too large for a key file", path, fi.Size())
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil && fi.Size() > 0 {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, fi, nil
}

// KeyRing is the public keys a verifier trusts, by fingerprint.
type KeyRing map[string]ed25519.PublicKey

// LoadKeyRing reads the trusted public keys: one PEM file, or every *.pub and *.pem file
// of a directory (one key each). A file that holds no public key is an error naming it.
func LoadKeyRing(path string) (KeyRing, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if fi.IsDir() {
		files = nil
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if ext := filepath.Ext(e.Name()); ext == ".pub" || ext == ".pem" {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no public key (*.pub or *.pem) in the directory", path)
		}
	}
	ring := KeyRing{}
	for _, p := range files {
		b, _, err := readKeyFile(p)
		if err != nil {
			return nil, err
		}
		pub, err := ParsePublicKey(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		ring[Fingerprint(pub)] = pub
	}
	return ring, nil
}

// SignatureReport is what a trace says of its signature.
type SignatureReport struct {
	Signed bool   // the trace ends in a signature line
	Key    string // the fingerprint it names (the header's, when it has no signature line)
	Lines  int    // lines the signature covers
}

// String is "signed by SHA256:…" or "unsigned".
func (r SignatureReport) String() string {
	if !r.Signed {
		return "unsigned"
	}
	return "signed by " + r.Key
}

// SignatureError is why a trace's signature is refused.
type SignatureError struct {
	Line   int // the line concerned, 0 for the whole trace
	Reason string
}

func (e *SignatureError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("signature refused: line %d: %s", e.Line, e.Reason)
	}
	return "signature refused: " + e.Reason
}

// Signature says who a read trace claims signed it, without checking the signature:
// the fingerprint of its signature line, or of its header when it has none.
func (f *File) Signature() SignatureReport {
	var r SignatureReport
	if h, ok := f.Header(); ok {
		r.Key = h.Meta[MetaSignKey]
	}
	if n := len(f.Events); n > 0 {
		if s, ok := As[Signature](&f.Events[n-1]); ok {
			r.Signed, r.Key, r.Lines = true, s.Key, s.Lines
		}
	}
	return r
}

// VerifySignature checks a read trace's signature against the trusted keys: f must come
// from ReadFile (or have Chain and ChainErr set from VerifyChain), since a signature
// vouches for a chain, and only an intact one. A trace that is not signed by a trusted
// key, or whose signature does not cover exactly its lines, is a *SignatureError saying
// why.
func (f *File) VerifySignature(keys KeyRing) (SignatureReport, error) {
	r := f.Signature()
	refuse := func(line int, format string, args ...any) (SignatureReport, error) {
		return r, &SignatureError{Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	if f.ChainErr != nil {
		return refuse(0, "the hash chain is broken (%v)", f.ChainErr)
	}
	if !f.Chain.Chained {
		return refuse(0, "the trace is %s: a signature needs the chained format %s", f.Chain, Format)
	}
	n := len(f.Events)
	sigAt := -1
	for i := range f.Events {
		if f.Events[i].Kind == KindSignature {
			sigAt = i
			break
		}
	}
	switch {
	case sigAt < 0 && r.Key != "":
		return refuse(0, "no signature line, but the header names the signing key %s: the trace was cut after line %d, after it was signed, or its run never finished", showKey(r.Key), n)
	case sigAt < 0:
		return refuse(0, "the trace is not signed (no signature line, no signing key in the header)")
	case sigAt < n-1:
		return refuse(f.Events[sigAt+1].Line, "a %s line follows the signature of line %d: lines were added after signing", linecap.ExcerptString(f.Events[sigAt+1].Kind), f.Events[sigAt].Line)
	case f.Torn != nil:
		return refuse(f.Torn.Line, "a torn line follows the signature: bytes were added after signing")
	}
	ev := &f.Events[sigAt]
	s, ok := As[Signature](ev)
	if !ok {
		return refuse(ev.Line, "the signature line's body is not a signature")
	}
	hdrKey := ""
	if h, ok := f.Header(); ok {
		hdrKey = h.Meta[MetaSignKey]
	}
	switch {
	case s.Alg != SignatureAlg:
		return refuse(ev.Line, "algorithm %s: this build verifies %s", linecap.ExcerptString(s.Alg), SignatureAlg)
	case hdrKey == "":
		return refuse(ev.Line, "signed by %s, but the header names no signing key: the header was changed", showKey(s.Key))
	case hdrKey != s.Key:
		return refuse(ev.Line, "signed by %s, but the header names %s", showKey(s.Key), showKey(hdrKey))
	case sigAt == 0:
		return refuse(ev.Line, "the signature is the first line: it covers nothing")
	case s.Lines != sigAt || f.Events[sigAt-1].Line != sigAt:
		return refuse(ev.Line, "the signature covers %d lines, but %d lines precede it: lines were cut or added before signing", s.Lines, sigAt)
	case s.Head != f.Events[sigAt-1].H:
		return refuse(ev.Line, "the signature covers head %s, but the chain's head before it is %s", linecap.ExcerptString(s.Head), f.Events[sigAt-1].H)
	}
	pub, ok := keys[s.Key]
	if !ok {
		return refuse(ev.Line, "signed by %s, which is not a trusted key (trusted: %s)", showKey(s.Key), keys.names())
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(s.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return refuse(ev.Line, "sig is not a base64 %d-byte Ed25519 signature", ed25519.SignatureSize)
	}
	if !ed25519.Verify(pub, signedMessage(s.Alg, s.Key, s.Lines, s.Head), sig) {
		return refuse(ev.Line, "the signature of %s does not verify: the trace was changed after it was signed (even if every hash was computed again)", s.Key)
	}
	return r, nil
}

// showKey shows a fingerprint as it is when it looks like one, quoted (and cut) when
// not: the trace is outside input.
func showKey(fp string) string {
	b64, ok := strings.CutPrefix(fp, "SHA256:")
	if ok && len(b64) == 43 && strings.Trim(b64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") == "" {
		return fp
	}
	return linecap.ExcerptString(fp)
}

func (k KeyRing) names() string {
	if len(k) == 0 {
		return "none"
	}
	names := make([]string, 0, len(k))
	for fp := range k {
		names = append(names, fp)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
