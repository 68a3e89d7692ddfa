package roles

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/effectors/sandbox"
)

// TestMCPFilesystemServerBlockedAndAvoided: R3 writes and reads through the npm reference
// filesystem server, run inside the sandbox. The first round's edit fails logically, so
// GGS breaks symmetry and blocks mcp__fs__edit_file by its full name; the next plan reads
// with mcp__fs__read_text_file instead and R3 is not offered the blocked tool. The trace
// replays byte for byte (the rig checks) without any server.
func TestMCPFilesystemServerBlockedAndAvoided(t *testing.T) {
	wd, _ := os.Getwd()
	third, err := mcp.ThirdPartyDir(wd)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	jail, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	r := newRig(t)
	r.file("notes.txt", "port: 8080\n")
	box, err := sandbox.New(r.dir, sandbox.Options{Jail: jail, Timeout: 5 * 1e9})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	if _, err := box.Isolation(); err != nil {
		t.Fatal(err)
	}
	tb, err := mcp.Open(context.Background(), box, mcp.Options{Dir: box.Root(), Starter: jail, Env: os.LookupEnv,
		Servers: []mcp.Server{mcp.NpmServer(third, "fs", "server-filesystem", box.Root())}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	if st := tb.Status(); st[0].Unavailable != "" {
		t.Fatalf("the filesystem server did not start: %s", st[0].Unavailable)
	}
	r.cfg.Tools = tb

	edit := sub{Intent: "Change the port in notes.txt to 9090", Criteria: []string{"notes.txt sets port 9090"},
		Sequence: 1, Tools: []string{"mcp__fs__edit_file"}, Targets: []string{"notes.txt"}}
	read := sub{Intent: "Read notes.txt and report its port", Criteria: []string{"the port is read from notes.txt"},
		Sequence: 1, Tools: []string{"mcp__fs__read_text_file"}, Targets: []string{"notes.txt"}}
	criteria := []string{"the answer names the port notes.txt sets"}
	r.script(llm.R1, perceived("Find the port notes.txt sets"))
	r.script(llm.R2, planned(criteria, edit), planned(criteria, read))
	r.script(llm.R3,
		toolCall("c1", "mcp__fs__edit_file", `{"path":"notes.txt","edits":[{"oldText":"8080","newText":"9090"}]}`),
		done("completed", "edited"),
		toolCall("c2", "mcp__fs__read_text_file", `{"path":"notes.txt"}`),
		done("completed", "port: 9090"))
	r.script(llm.R4a, judged("the task asked to find the port, not change it", verdict(edit.Criteria[0], "fail", "logical", "the task does not ask for an edit")),
		judged("", verdict(read.Criteria[0], "pass", "", "port: 9090")))
	r.script(llm.R4b, merged("port 9090", "9090", verdict(criteria[0], "pass", "", "port: 9090")))

	got := r.run(context.Background(), "What port does notes.txt set?")
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	// The write went through the server, in the work dir.
	if b, _ := os.ReadFile(filepath.Join(r.dir, "notes.txt")); string(b) != "port: 9090\n" {
		t.Errorf("notes.txt = %q", b)
	}
	d := decode[contract.PlanDirective](t, messages(t, got.trace, contract.TypePlanDirective)[0])
	if d.Directive != contract.DirectiveBreakSymmetry || strings.Join(d.BlockedTools, ",") != "mcp__fs__edit_file" {
		t.Fatalf("directive = %+v", d)
	}
	for _, req := range r.requests(llm.R3)[2:] {
		for _, tool := range req.Chat.Tools {
			if strings.Contains(string(tool), `"mcp__fs__edit_file"`) {
				t.Errorf("R3 was offered the blocked tool in round 2")
			}
		}
	}
	// Each call is a tool:mcp__… exchange with the server's answer.
	for _, name := range []string{`"tool:mcp__fs__edit_file"`, `"tool:mcp__fs__read_text_file"`} {
		if !bytes.Contains(got.trace, []byte(name)) {
			t.Errorf("no %s exchange in the trace", name)
		}
	}
	if !bytes.Contains(got.trace, []byte(`mcp__fs__read_text_file:notes.txt`)) {
		t.Errorf("the evidence entry does not name the target")
	}
}
