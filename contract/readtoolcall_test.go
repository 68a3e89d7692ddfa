package contract

import (
	"strings"
	"testing"
)

func TestReadToolCall(t *testing.T) {
	for _, tc := range []struct {
		entry, want string
	}{
		{"read_file:a.txt → alpha", ToolCallSucceeded},
		{"shell:true → (no output)", ToolCallSucceeded},
		{"shell:make -> ok", ToolCallSucceeded},
		{"shell:make", ToolCallSucceeded}, // no arrow: no evidence, nothing says it failed
		{"read_file:a.txt → refused: the path is outside the sandbox root", ToolCallRefused},
		{"write_file:port.txt → refused: not confirmed: memory advises caution for this intent", ToolCallRefused},
		{"read_file:x → error: x: no such file or directory", ToolCallFailed},
		{"list_files:gone/* → error: gone: no such file or directory", ToolCallFailed},
		{"shell:grep error: app.log → error: disk full", ToolCallSucceeded}, // grep found a line
		{"shell:kubectl apply -f deploy.yaml → error: quota exceeded [exit status 1]", ToolCallFailed},
		{"shell:ls nope → ls: nope: No such file [exit status 2]", ToolCallFailed},
		{"shell:ls nope → [exit status -1]", ToolCallFailed},
		{"shell:sleep 9 → [timed out after 5s; process group killed]", ToolCallFailed},
		{"shell:big → x [exit status 137] [limit reached: memory]", ToolCallFailed},
		{"shell:echo → [exit status 2] and then more", ToolCallSucceeded},
		{"shell:echo → it said refused: no", ToolCallSucceeded},
		// A refusal longer than the evidence keeps is cut in the middle and keeps its mark.
		{FormatToolCall(shellTool, "x", "refused: "+strings.Repeat("why ", 40)), ToolCallRefused},
		{"", ToolCallUnreadable},
		{"no tool here", ToolCallUnreadable},
		{"a b:c → d", ToolCallUnreadable},
	} {
		if got := ReadToolCall(tc.entry); got != tc.want {
			t.Errorf("ReadToolCall(%q) = %s, want %s", tc.entry, got, tc.want)
		}
	}
}

// FuzzReadToolCall checks that reading never panics, answers one of the four outcomes, and
// reads a short refusal or I/O error that FormatToolCall wrote for what it is.
func FuzzReadToolCall(f *testing.F) {
	for _, s := range []string{"read_file:a → refused: no", "shell:x → [exit status 1]", "", "\xff:→", "a:b -> error: c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		switch got := ReadToolCall(s); got {
		case ToolCallSucceeded, ToolCallRefused, ToolCallFailed, ToolCallUnreadable:
		default:
			t.Fatalf("ReadToolCall(%q) = %q", s, got)
		}
		why := strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ") // as the entry writes it
		if len([]rune(why)) > ToolCallEvidenceRunes-len("refused: ") {
			return
		}
		if got := ReadToolCall(FormatToolCall("read_file", s, "refused: "+s)); got != ToolCallRefused {
			t.Fatalf("a refusal of %q reads %s", s, got)
		}
		if got := ReadToolCall(FormatToolCall("write_file", s, "error: "+s)); got != ToolCallFailed {
			t.Fatalf("an I/O error of %q reads %s", s, got)
		}
	})
}
