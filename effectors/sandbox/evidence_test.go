package sandbox

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFormatToolCall(t *testing.T) {
	long := strings.Repeat("0123456789", 20) + "END"
	for _, tc := range []struct{ tool, target, output, want string }{
		{"shell", "ls -la", "a.txt\nb.txt\n", "shell:ls -la → a.txt b.txt"},
		{"read_file", "notes/a.md", "", "read_file:notes/a.md → (no output)"},
		{"shell", "cat\n  big.log", long, "shell:cat big.log → " + long[len(long)-120:]},
		{"shell", "echo a → b -> c", "x", "shell:echo a => b => c → x"},
		{"shell", "echo ->", "x", "shell:echo => → x"},
		{"shell", "echo a -> -> b", "x", "shell:echo a => => b → x"},
		{"shell", "printf 'é'", strings.Repeat("é", 130), "shell:printf 'é' → " + strings.Repeat("é", 120)},
		{"shell", "x", "bad \xff byte", "shell:x → bad \uFFFD byte"},
		{"shell", strings.Repeat("a", 250), "ok", "shell:" + strings.Repeat("a", TargetRunes-1) + "… → ok"},
	} {
		got := FormatToolCall(tc.tool, tc.target, tc.output)
		if got != tc.want {
			t.Errorf("FormatToolCall(%q, %q, …)\n got %q\nwant %q", tc.tool, tc.target, got, tc.want)
		}
		if strings.ContainsAny(got, "\n\r\t") {
			t.Errorf("entry is not one line: %q", got)
		}
	}
}

func TestParseToolCall(t *testing.T) {
	for _, tc := range []struct {
		entry                  string
		tool, target, evidence string
		ok                     bool
	}{
		{"shell:ls -la → a.txt b.txt", "shell", "ls -la", "a.txt b.txt", true},
		{"shell:grep -r x . -> no matches", "shell", "grep -r x .", "no matches", true},
		{"  read_file : notes/a.md→ hello ", "read_file", "notes/a.md", "hello", true},
		{"shell:curl http://x:8080/a → 200 OK → done", "shell", "curl http://x:8080/a", "200 OK → done", true},
		{"shell:a -> b → c", "shell", "a", "b → c", true},
		{"shell:a → b -> c", "shell", "a", "b -> c", true},
		{"web_search:golang fsm", "web_search", "golang fsm", "", true},
		{"shell:grep a->b src", "shell", "grep a->b src", "", true},
		{"shell: → x", "shell", "", "x", true},
		{"no colon here", "", "", "", false},
		{":target → x", "", "", "", false},
		{"two words:target → x", "", "", "", false},
		{"", "", "", "", false},
	} {
		tool, target, evidence, ok := ParseToolCall(tc.entry)
		if tool != tc.tool || target != tc.target || evidence != tc.evidence || ok != tc.ok {
			t.Errorf("ParseToolCall(%q) = %q, %q, %q, %v; want %q, %q, %q, %v",
				tc.entry, tool, target, evidence, ok, tc.tool, tc.target, tc.evidence, tc.ok)
		}
	}
}

// FuzzParseToolCall checks that parsing never panics, that a parsed tool is a name, and
// that every entry FormatToolCall writes parses back to its parts.
func FuzzParseToolCall(f *testing.F) {
	for _, s := range [][2]string{
		{"ls -la", "a\nb"}, {"echo a -> b", "→"}, {"", ""}, {"cat x → y", "z -> w"}, {"a ->", "-> b"},
		{"\xff", "\xfe"}, {strings.Repeat("é", 300), strings.Repeat("x ", 200)},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, target, output string) {
		if tool, _, _, ok := ParseToolCall(target); ok && (!isToolName(tool) || tool == "") {
			t.Fatalf("ParseToolCall(%q) accepted tool %q", target, tool)
		}
		for _, tool := range []string{ToolShell, ToolReadFile, ToolListFiles} {
			entry := FormatToolCall(tool, target, output)
			if !utf8.ValidString(entry) || strings.ContainsAny(entry, "\n\r") {
				t.Fatalf("entry %q is not one valid line", entry)
			}
			gotTool, gotTarget, gotEvidence, ok := ParseToolCall(entry)
			if !ok || gotTool != tool || gotTarget != entryTarget(target) || gotEvidence != entryEvidence(output) {
				t.Fatalf("round trip of %q: got %q, %q, %q, %v; want %q, %q, %q",
					entry, gotTool, gotTarget, gotEvidence, ok, tool, entryTarget(target), entryEvidence(output))
			}
			if n := utf8.RuneCountInString(gotEvidence); n > EvidenceRunes {
				t.Fatalf("evidence has %d runes", n)
			}
		}
	})
}

func BenchmarkParseToolCall(b *testing.B) {
	entry := FormatToolCall(ToolShell, "grep -rn 'TODO' src | head -20", strings.Repeat("src/main.go:12: // TODO fix\n", 20))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, ok := ParseToolCall(entry); !ok {
			b.Fatal("not parsed")
		}
	}
}

func TestLongRefusalKeepsItsMark(t *testing.T) {
	reason := "refused: " + strings.Repeat("the path leads somewhere it must not; ", 10) + "end"
	e := FormatToolCall(ToolReadFile, "x", reason)
	_, _, ev, ok := ParseToolCall(e)
	if !ok || !strings.HasPrefix(ev, "refused: …") || !strings.HasSuffix(ev, "end") || len([]rune(ev)) != EvidenceRunes {
		t.Errorf("evidence = %q (%d runes)", ev, len([]rune(ev)))
	}
}
