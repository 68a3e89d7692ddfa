package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

// TestListingIsBounded: a directory of many entries is listed as its first entries in
// order and a count of the rest, and a listing of long names stops at the limit of a
// tool's output.
func TestListingIsBounded(t *testing.T) {
	dir := t.TempDir()
	const n = 5000
	long := strings.Repeat("n", 250)
	for i := n - 1; i >= 0; i-- { // created in reverse, so the directory's order is not the answer's
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%05d", long, i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := New(dir, Options{Jail: Unconfined{}, MaxList: n})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res, err := sb.ListFiles(context.Background(), "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) > contract.MaxToolOutput+100 || !res.Truncated {
		t.Fatalf("listing of %d bytes (truncated %v), want at most about %d", len(res.Output), res.Truncated, contract.MaxToolOutput)
	}
	lines := strings.Split(res.Output, "\n")
	shown := len(lines) - 1
	if want := fmt.Sprintf("[%d more entries not shown]", n-shown); lines[shown] != want {
		t.Errorf("last line %q, want %q", lines[shown], want)
	}
	for i, l := range lines[:shown] {
		if want := fmt.Sprintf("%s%05d", long, i); l != want {
			t.Fatalf("entry %d is %.20s…, want the %d-th in order", i, l[len(l)-5:], i)
		}
	}

	small, err := New(dir, Options{Jail: Unconfined{}, MaxList: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	res, err = small.ListFiles(context.Background(), "", "*9", false)
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(res.Output, "\n")
	if len(lines) != 8 || lines[0] != long+"00009" || lines[6] != long+"00069" || lines[7] != fmt.Sprintf("[%d more entries not shown]", n/10-7) {
		t.Errorf("the first 7 of the entries ending in 9:\n%s", res.Output)
	}
}

// TestOutputLimitsWithinTheTraceBudget: a sandbox cannot be set to return more than a
// trace line holds of a tool's output.
func TestOutputLimitsWithinTheTraceBudget(t *testing.T) {
	for _, o := range []Options{{MaxOutput: contract.MaxToolOutput + 1}, {MaxRead: contract.MaxToolOutput + 1}} {
		if sb, err := New(t.TempDir(), o); err == nil {
			sb.Close()
			t.Errorf("%+v was accepted", o)
		}
	}
}

// TestShellOutputOfAHundredMebibytes: a command printing 100 MiB returns the start and
// the end of its output within the limit, with the count of what was left out; the
// output is never held whole.
func TestShellOutputOfAHundredMebibytes(t *testing.T) {
	sb, err := New(t.TempDir(), Options{Jail: Unconfined{}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res, err := sb.Shell(context.Background(), "head -c 104857600 /dev/zero", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[output truncated: %d bytes omitted]", 100<<20-DefaultMaxOutput)
	if !res.Truncated || len(res.Output) > DefaultMaxOutput+100 || !strings.Contains(res.Output, want) {
		t.Errorf("output of %d bytes, truncated %v, want at most %d with %q", len(res.Output), res.Truncated, DefaultMaxOutput, want)
	}
}
