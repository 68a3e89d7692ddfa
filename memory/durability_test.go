package memory

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

func burstMegram(i int) contract.Megram {
	return contract.Megram{Space: ToolSpace(fmt.Sprintf("t%d", i%7)), Entity: PathEntity(fmt.Sprintf("/p/%d", i%101)),
		State: "change_path", Content: "burst", F: 0.3, Sigma: 0, K: 0.2}
}

// reopenAndVerify reopens dir, checks it record by record, and returns its M-level IDs.
func reopenAndVerify(t *testing.T, dir string) (*Service, map[string]bool) {
	t.Helper()
	s, err := OpenLevelDB(dir, Options{Clock: newClock(), Timer: newManualTimer(), Storage: StorageOptions{MustExist: true}})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	rep, err := s.Verify(context.Background())
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("store corrupted after reopen: %d problems, first: %s", len(rep.Problems), rep.Problems[0])
	}
	// Verify decoded every record and matched it to its lvl: entry; the IDs come from
	// that index.
	ids := map[string]bool{}
	err = s.be.scanLevel(contract.LevelM, func(id string) error {
		ids[id] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, ids
}

func TestBurstThenCloseKeepsEveryWrite(t *testing.T) {
	const n = 100_000
	dir := t.TempDir()
	rec := newRecorder()
	o := Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "b"}, Timer: newManualTimer()}
	rec.hook(&o)
	s, err := OpenLevelDB(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.WriterFor(RoleGGS)
	start := time.Now()
	for i := 0; i < n; i++ {
		w.Write(burstMegram(i))
	}
	enqueued := time.Since(start)
	s.Close()
	t.Logf("%d writes enqueued in %v, all committed %v after the first", n, enqueued, time.Since(start))
	if got := len(rec.durableIDs()); got != n {
		t.Fatalf("%d of %d writes acknowledged", got, n)
	}
	if errs := rec.errors(); len(errs) > 0 {
		t.Fatalf("errors: %v", errs[0])
	}
	s2, ids := reopenAndVerify(t, dir)
	defer s2.Close()
	if len(ids) != n {
		t.Fatalf("%d of %d writes on disk after Close", len(ids), n)
	}
}

const (
	killDirEnv  = "SPINE_MEMORY_KILL_DIR"
	killSeedEnv = "SPINE_MEMORY_KILL_SEED" // set to replay a failing iteration
)

// TestKillHelperProcess is the child of TestKillDuringBurst: it writes without end and
// prints "ack <id>" for every acknowledged (durable) write until it is killed.
func TestKillHelperProcess(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("helper process for TestKillDuringBurst")
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	s, err := OpenLevelDB(dir, Options{
		Clock: newClock(), IDs: &SequentialIDs{Prefix: "k"}, Timer: newManualTimer(), MaxBatch: 512,
		OnDurable: func(ids []string) {
			for _, id := range ids {
				out.WriteString("ack " + id + "\n")
			}
			out.Flush() // printed only after the commit returned
		},
		OnError: func(err error) { fmt.Fprintln(os.Stderr, err) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	w, _ := s.WriterFor(RoleGGS)
	for i := 0; ; i++ {
		w.Write(burstMegram(i))
		if i%256 == 255 {
			time.Sleep(time.Millisecond) // keep the queue short so acks flow during the burst
		}
	}
}

// TestKillDuringBurst kills a writing process with SIGKILL at a random moment, reopens
// its store and checks that it is consistent and holds every acknowledged write.
func TestKillDuringBurst(t *testing.T) {
	iterations := 3
	baseSeed := uint64(time.Now().UnixNano())
	if v := os.Getenv(killSeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", killSeedEnv, v, err)
		}
		baseSeed, iterations = s, 1
	}
	for it := 0; it < iterations; it++ {
		seed := baseSeed + uint64(it)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			killOnce(t, seed)
		})
	}
}

func killOnce(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	delay := time.Duration(20+rng.IntN(300)) * time.Millisecond
	dir := t.TempDir()
	ids := runKilledWriter(t, dir, delay)

	s, stored := reopenAndVerify(t, dir)
	defer s.Close()
	lost := 0
	for _, id := range ids {
		if !stored[id] {
			lost++
		}
	}
	t.Logf("killed after %v: %d acknowledged, %d stored", delay, len(ids), len(stored))
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged writes lost; replay with %s=%d", lost, len(ids), killSeedEnv, seed)
	}
}

// runKilledWriter runs TestKillHelperProcess on dir, kills it with SIGKILL delay after
// its first acknowledgement, and returns the IDs it acknowledged.
func runKilledWriter(t *testing.T, dir string, delay time.Duration) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelperProcess$")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := make(chan []string, 1)
	first := make(chan struct{})
	go func() { acked <- readAcks(stdout, first) }()
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the child acknowledged nothing in 30s; stderr: %s", stderr.String())
	}
	time.Sleep(delay)                          // the seeded moment of the kill, not a synchronisation
	if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return <-acked
}

// readAcks collects complete "ack <id>" lines; a line cut by the kill is ignored.
func readAcks(r io.Reader, first chan<- struct{}) []string {
	br := bufio.NewReader(r)
	var ids []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ids // a partial last line has no '\n' and is dropped here
		}
		if id, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "ack "); ok {
			if ids == nil {
				close(first)
			}
			ids = append(ids, id)
		}
	}
}
