package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/agentspine/spine/spine/trace"
)

// TestWorkerSignsTraces: a worker with a key signs every trace it stores, the attempt
// names the key, and the stored trace verifies against it (and only it).
func TestWorkerSignsTraces(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	sg := trace.NewSigner(priv)
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: t.TempDir(), Prepare: DemoPrepare(rs, noSandbox()), Signer: sg})
	got := waitFinished(t, c, []string{st.ID}, 60*time.Second)[0]
	stop()
	a, ok := got.AcceptedAttempt()
	if !ok || a.SignedBy != sg.Fingerprint() {
		t.Fatalf("accepted attempt %+v: want it signed by %s", a, sg.Fingerprint())
	}
	b, _, err := c.Trace(ctx, st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := trace.Read("stored", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tf.Chain, tf.ChainErr = trace.VerifyChain(bytes.NewReader(b))
	pub := priv.Public().(ed25519.PublicKey)
	if _, err := tf.VerifySignature(trace.KeyRing{sg.Fingerprint(): pub}); err != nil {
		t.Fatalf("the stored trace does not verify: %v", err)
	}
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	if _, err := tf.VerifySignature(trace.KeyRing{trace.Fingerprint(other): other}); err == nil {
		t.Fatal("the stored trace verifies against another key")
	}
}
