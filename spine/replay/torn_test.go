package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestCheckTornEveryLine tears recorded runs in the middle of every line after the
// header and checks the replay's verdict: the complete lines are reproduced (no
// difference is reported for lines the replay only failed to reach), and a replay that
// stops, stops because the recording ended. A recording torn between an effector call
// and its result used to report a difference at the call before the right message.
func TestCheckTornEveryLine(t *testing.T) {
	for _, path := range []string{
		"../../fixtures/ggs/change_path_then_success.trace.jsonl",
		"../../fixtures/pipeline/change_path_then_accept.trace.jsonl",
	} {
		full, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(strings.TrimSuffix(string(full), "\n"), "\n")
		for cut := 1; cut < len(lines); cut++ {
			torn := strings.Join(lines[:cut], "") + lines[cut][:len(lines[cut])/2]
			out := CheckBytes(context.Background(), path, []byte(torn), CheckOptions{Compare: true})
			switch {
			case out.Failed != nil:
				t.Fatalf("%s torn in line %d: %v", path, cut+1, out.Failed)
			case out.Incomplete == "":
				t.Errorf("%s torn in line %d: not reported incomplete", path, cut+1)
			case out.Diff != nil:
				t.Errorf("%s torn in line %d: differs at %s (replay: %v)", path, cut+1, out.Diff, out.ReplayErr)
			case out.ReplayErr != nil && !errors.Is(out.ReplayErr, ErrRecordingEnded):
				t.Errorf("%s torn in line %d: %v, want ErrRecordingEnded", path, cut+1, out.ReplayErr)
			case !bytes.HasPrefix(out.Replayed, []byte(strings.Join(lines[:cut], ""))):
				t.Errorf("%s torn in line %d: the replay does not reproduce the %d complete lines", path, cut+1, cut)
			}
		}
	}
}
