package runview

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/termui"
	"github.com/agentspine/spine/taskrun"
)

// TestLiveNotATerminal: off a terminal there is no spinner and no prompt, whatever
// Interactive says; --json writes on the raw stream, the display on the text one, and
// Wire points the run's messages at the display and nothing at a prompt.
func TestLiveNotATerminal(t *testing.T) {
	rs, err := taskrun.LoadRules("")
	if err != nil {
		t.Fatal(err)
	}
	for _, asJSON := range []bool{false, true} {
		var text, raw, errw bytes.Buffer
		l := NewLive(Streams{In: strings.NewReader(""), Text: &text, Raw: &raw, Err: &errw, Interactive: true}, rs, asJSON)
		lw, ok := l.Out.(*termui.LockedWriter)
		switch {
		case !ok:
			t.Fatalf("json %v: Out is %T, want a LockedWriter", asJSON, l.Out)
		case asJSON && lw.W != &raw, !asJSON && lw.W != &text:
			t.Errorf("json %v: Out writes on the wrong stream", asJSON)
		case l.spin != nil || l.prompt != nil:
			t.Errorf("json %v: a spinner or a prompt off a terminal", asJSON)
		}
		var tc taskrun.Config
		if ctx := l.Wire(context.Background(), &tc); ctx == nil || tc.OnMessage == nil || tc.Confirmer != nil || tc.OnStatus != nil {
			t.Errorf("json %v: Wire set OnMessage %v, Confirmer %v, OnStatus %v", asJSON, tc.OnMessage != nil, tc.Confirmer != nil, tc.OnStatus != nil)
		}
		l.Stop()
		l.Stop() // twice is harmless
	}
}
