package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

// snapshotLines are the seqs and lines (1-based) of the trace's snapshot exchanges,
// with their root hashes and where they were taken.
type snapshotLine struct {
	line int
	root string
	at   roles.SnapshotAt
}

func snapshotsIn(t *testing.T, path string) []snapshotLine {
	t.Helper()
	f, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []snapshotLine
	for i := range f.Events {
		x, ok := trace.As[trace.Exchange](&f.Events[i])
		if !ok || x.Name != roles.SnapshotName {
			continue
		}
		s := snapshotLine{line: f.Events[i].Line}
		if x.Error != "" || json.Unmarshal(x.Response, &s.root) != nil || json.Unmarshal(x.Request, &s.at) != nil {
			t.Fatalf("%s:%d: a snapshot exchange without a root: %+v", path, s.line, x)
		}
		out = append(out, s)
	}
	return out
}

// TestSnapshotRunResumeFork runs the two-round scripted task with snapshots (on by
// default): the trace records a root hash before the first round, after each round and
// after the shell call,
// each in the store, and replays byte for byte. A resume of the run cut short in its
// second round, its work dir edited since, refuses with --no-restore naming the edited
// file, and by default restores the files and ends as the run did. A fork restores the
// snapshot of the round it forks from into a new dir, or into the one given.
func TestSnapshotRunResumeFork(t *testing.T) {
	dir, work, cfg, full, want, e := forkSetup(t)
	store := filepath.Join(dir, "state", "spine", "snapshots")
	snaps := snapshotsIn(t, full)
	// Round 1 reads with read_file, round 2 runs a shell command: a snapshot follows it.
	if len(snaps) != 4 || snaps[0].at != (roles.SnapshotAt{Round: 1, At: roles.SnapshotStart}) || snaps[1].at != (roles.SnapshotAt{Round: 1, At: roles.SnapshotEnd}) ||
		snaps[2].at.At != roles.SnapshotTool || snaps[2].at.Round != 2 || snaps[2].at.ToolCall != "s1" || snaps[3].at != (roles.SnapshotAt{Round: 2, At: roles.SnapshotEnd}) {
		t.Fatalf("the run's snapshots: %+v, want one before the first round, one after each of two and one after round 2's shell call", snaps)
	}
	for _, s := range snaps {
		if code, out := forkRun(t, "snapshot", "show", "--store", store, s.root); code != exitOK || !strings.Contains(out, "config/app.yaml") {
			t.Errorf("snapshot %s of the trace: exit %d\n%s", s.root, code, out)
		}
	}
	if code, out := forkRun(t, "replay", "--check", full); code != exitOK {
		t.Errorf("replay --check of the snapshotted run: exit %d\n%s", code, out)
	}
	// --snapshot=false writes no snapshot line.
	e.next, e.answers, e.order = map[string]int{}, map[[32]byte]llmtest.Reply{}, map[string][][32]byte{}
	plain := filepath.Join(dir, "plain.trace.jsonl")
	if code, out := forkRun(t, "run", "--json", "--snapshot=false", "--config", cfg, "--workdir", work, "--trace", plain, fmTask); code != exitOK {
		t.Fatalf("--snapshot=false: exit %d\n%s", code, out)
	}
	if got := snapshotsIn(t, plain); len(got) != 0 {
		t.Errorf("--snapshot=false recorded %d snapshots", len(got))
	}

	// The run cut short some lines into its second round; the work dir edited since.
	data, _ := os.ReadFile(full)
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := filepath.Join(dir, "cut.trace.jsonl")
	kept := bytes.Join(lines[:snaps[1].line+3], nil)
	writeFile(t, cut, string(kept))
	app := filepath.Join(work, "config", "app.yaml")
	writeFile(t, app, "port: 9090\n")
	asked := len(e.asked)
	code, out := forkRun(t, "resume", "--no-restore", "--config", cfg, cut)
	if code != exitUsage || !strings.Contains(out, "config/app.yaml") || len(e.asked) != asked {
		t.Errorf("resume --no-restore of an edited work dir: exit %d, %d request(s); want %d naming config/app.yaml\n%s", code, len(e.asked)-asked, exitUsage, out)
	}
	e.next, e.answers, e.order = answeredIn(kept), map[[32]byte]llmtest.Reply{}, map[string][][32]byte{}
	resumed := filepath.Join(dir, "resumed.trace.jsonl")
	code, out = forkRun(t, "resume", "--json", "--config", cfg, "--trace", resumed, cut)
	if got := finalOf([]byte(out)); code != exitOK || got != want || !strings.Contains(out, "config/app.yaml") || !strings.Contains(out, "restored it") {
		t.Errorf("resume of an edited work dir: exit %d, final %s, want %s and the file restored named\n%s", code, got, want, out)
	}
	if b, _ := os.ReadFile(app); string(b) != "port: 8080\n" {
		t.Errorf("after the resume the work dir's config/app.yaml holds %q", b)
	}
	if code, out := forkRun(t, "replay", "--check", resumed); code != exitOK {
		t.Errorf("replay --check of the resumed trace: exit %d\n%s", code, out)
	}
	if got := snapshotsIn(t, resumed); len(got) != 4 || got[0].root != snaps[0].root || got[1].root != snaps[1].root || got[2].at.At != roles.SnapshotTool || got[2].at.ToolCall != "s1" {
		t.Errorf("the resumed trace's snapshots %+v, want the recorded two then the live ones", got)
	}

	// A fork at the second cycle: the snapshot after round 1 into a new dir, then into
	// a given dir holding a file the snapshot does not.
	bs := replay.Boundaries(recordingAt(t, full))
	if len(bs) < 2 {
		t.Fatalf("the run has %d cycle boundaries", len(bs))
	}
	e.next, e.answers, e.order = map[string]int{}, map[[32]byte]llmtest.Reply{}, map[string][][32]byte{}
	e.next = answeredIn(bytes.Join(lines[:bs[1].Line-1], nil))
	fork := filepath.Join(dir, "fork.trace.jsonl")
	code, out = forkRun(t, "fork", "--json", "--config", cfg, "--at", fmt.Sprint(bs[1].Seq), "--trace", fork, full)
	m := regexp.MustCompile(`the work dir (\S+) holds the snapshot of round 1 `).FindStringSubmatch(out)
	if code != exitOK || m == nil {
		t.Fatalf("fork without --workdir: exit %d, no new work dir named\n%s", code, out)
	}
	if !strings.HasPrefix(m[1], work+".fork-") {
		t.Errorf("the fork's new work dir %s is not beside %s", m[1], work)
	}
	if b, _ := os.ReadFile(filepath.Join(m[1], "config", "app.yaml")); string(b) != "port: 8080\n" {
		t.Errorf("the fork's work dir holds config/app.yaml %q", b)
	}
	if rec := recordingAt(t, fork); rec.Header.Meta["workdir"] != recordingAt(t, full).Header.Meta["workdir"] {
		t.Errorf("the fork's header is not the recording's")
	}
	if code, out := forkRun(t, "replay", "--check", fork); code != exitOK {
		t.Errorf("replay --check of the fork: exit %d\n%s", code, out)
	}
	given := filepath.Join(dir, "given")
	if err := os.MkdirAll(given, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(given, "stray.txt"), "not in the snapshot\n")
	e.answers, e.order = map[[32]byte]llmtest.Reply{}, map[string][][32]byte{}
	e.next = answeredIn(bytes.Join(lines[:bs[1].Line-1], nil))
	fork2 := filepath.Join(dir, "fork-given.trace.jsonl")
	code, out = forkRun(t, "fork", "--json", "--config", cfg, "--workdir", given, "--at", fmt.Sprint(bs[1].Seq), "--trace", fork2, full)
	if code != exitOK || !strings.Contains(out, "the work dir "+given+" holds the snapshot of round 1 ("+snaps[1].root+")") {
		t.Fatalf("fork --workdir: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(given, "stray.txt")); !os.IsNotExist(err) {
		t.Errorf("the given dir keeps a file the snapshot does not hold: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(given, "config", "app.yaml")); string(b) != "port: 8080\n" {
		t.Errorf("the given dir holds config/app.yaml %q", b)
	}
}
