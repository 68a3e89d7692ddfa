package contract

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
		{"shell", strings.Repeat("a", 250), "ok", "shell:" + strings.Repeat("a", ToolCallTargetRunes-1) + "… → ok"},
		{"read_file", "x", "refused: " + strings.Repeat("why ", 40) + "end",
			"read_file:x → refused: …hy " + strings.Repeat("why ", 26) + "end"}, // 110 runes after the mark
		{"write_file", "x", "error: " + strings.Repeat("e", 200),
			"write_file:x → error: …" + strings.Repeat("e", ToolCallEvidenceRunes-len("error: ")-1)},
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
		entry string
		want  ToolCall
		ok    bool
	}{
		{"shell:ls -la → a.txt b.txt", ToolCall{"shell", "ls -la", "a.txt b.txt"}, true},
		{"shell:grep -r x . -> no matches", ToolCall{"shell", "grep -r x .", "no matches"}, true},
		{"  read_file : notes/a.md→ hello ", ToolCall{"read_file", "notes/a.md", "hello"}, true},
		{"shell:curl http://x:8080/a → 200 OK → done", ToolCall{"shell", "curl http://x:8080/a", "200 OK → done"}, true},
		{"shell:a -> b → c", ToolCall{"shell", "a", "b → c"}, true},
		{"shell:a → b -> c", ToolCall{"shell", "a", "b -> c"}, true},
		{"web_search:golang fsm", ToolCall{"web_search", "golang fsm", ""}, true},
		{"shell:grep a->b src", ToolCall{"shell", "grep a->b src", ""}, true},
		{"shell: → x", ToolCall{"shell", "", "x"}, true},
		{"list_files:", ToolCall{"list_files", "", ""}, true},
		{"mcp.fs-read_2:/a:b.log → ok", ToolCall{"mcp.fs-read_2", "/a:b.log", "ok"}, true},
		{"no colon here", ToolCall{}, false},
		{":target → x", ToolCall{}, false},
		{"  : → x", ToolCall{}, false},
		{"two words:target → x", ToolCall{}, false},
		{"→ only evidence", ToolCall{}, false},
		{"tööl:x → y", ToolCall{}, false},
		{"\xff:x → y", ToolCall{}, false},
		{"", ToolCall{}, false},
	} {
		got, ok := ParseToolCall(tc.entry)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseToolCall(%q) = %+v, %v; want %+v, %v", tc.entry, got, ok, tc.want, tc.ok)
		}
	}
}

// GGS blocks what R3 recorded: an entry's key is its "<tool>:<target>" and splits back
// into the tool and target of the memory tags tool:<name> and path:<target>.
func TestToolCallKey(t *testing.T) {
	for _, tc := range []struct{ tool, target, output, key string }{
		{"shell", "ls /var/log/nginx", "ls: cannot access '/var/log/nginx': No such file or directory", "shell:ls /var/log/nginx"},
		{"read_file", "/srv/a:b.log", "permission denied", "read_file:/srv/a:b.log"},
		{"list_files", "", "", "list_files"},
	} {
		entry := FormatToolCall(tc.tool, tc.target, tc.output)
		c, ok := ParseToolCall(entry)
		if !ok || c.Tool != tc.tool || c.Target != tc.target || c.Key() != tc.key {
			t.Errorf("%q parsed to %+v, %v; want tool %q target %q key %q", entry, c, ok, tc.tool, tc.target, tc.key)
		}
		if tool, target := SplitBlockedTarget(c.Key()); tool != tc.tool || target != tc.target {
			t.Errorf("SplitBlockedTarget(%q) = %q, %q; want %q, %q", c.Key(), tool, target, tc.tool, tc.target)
		}
	}
}

// FuzzParseToolCall reads arbitrary text as a model's run may leave it. Parsing never
// panics; a parsed tool is a name and every part is trimmed; an entry's key splits back
// into its tool and target; and every entry FormatToolCall writes is one valid line that
// parses back to its parts.
func FuzzParseToolCall(f *testing.F) {
	for _, s := range [][2]string{
		{"ls -la", "a\nb"}, {"echo a -> b", "→"}, {"", ""}, {"cat x → y", "z -> w"}, {"a ->", "-> b"},
		{"\xff", "\xfe"}, {strings.Repeat("é", 300), strings.Repeat("x ", 200)},
		{"shell:ls → x", "refused: " + strings.Repeat("no ", 60)}, {" read_file : a:b -> c", "error: x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, target, output string) {
		if c, ok := ParseToolCall(target); ok {
			if !isToolName(c.Tool) {
				t.Fatalf("ParseToolCall(%q) accepted tool %q", target, c.Tool)
			}
			for _, part := range []string{c.Target, c.Evidence} {
				if part != strings.TrimSpace(part) {
					t.Fatalf("ParseToolCall(%q) = %+v: a part is not trimmed", target, c)
				}
			}
			// A tool name holds no colon, so the key's first one separates the two.
			if tool, tgt := SplitBlockedTarget(c.Key()); tool != c.Tool || tgt != c.Target {
				t.Fatalf("SplitBlockedTarget(%q) = %q, %q", c.Key(), tool, tgt)
			}
		} else if c != (ToolCall{}) {
			t.Fatalf("ParseToolCall(%q) refused the entry but returned %+v", target, c)
		}
		for _, tool := range []string{"shell", "read_file", "list_files"} {
			entry := FormatToolCall(tool, target, output)
			if !utf8.ValidString(entry) || strings.ContainsAny(entry, "\n\r") {
				t.Fatalf("entry %q is not one valid line", entry)
			}
			got, ok := ParseToolCall(entry)
			want := ToolCall{Tool: tool, Target: toolCallTarget(target), Evidence: toolCallEvidence(output)}
			if !ok || got != want {
				t.Fatalf("round trip of %q: got %+v, %v; want %+v", entry, got, ok, want)
			}
			if n := utf8.RuneCountInString(got.Evidence); n > ToolCallEvidenceRunes {
				t.Fatalf("evidence has %d runes", n)
			}
			if n := utf8.RuneCountInString(got.Target); n > ToolCallTargetRunes {
				t.Fatalf("target has %d runes", n)
			}
		}
	})
}

func BenchmarkParseToolCall(b *testing.B) {
	entry := FormatToolCall("shell", "grep -rn 'TODO' src | head -20", strings.Repeat("src/main.go:12: // TODO fix\n", 20))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ParseToolCall(entry); !ok {
			b.Fatal("not parsed")
		}
	}
}

func TestLongRefusalKeepsItsMark(t *testing.T) {
	reason := "refused: " + strings.Repeat("the path leads somewhere it must not; ", 10) + "end"
	c, ok := ParseToolCall(FormatToolCall("read_file", "x", reason))
	if !ok || !strings.HasPrefix(c.Evidence, "refused: …") || !strings.HasSuffix(c.Evidence, "end") || len([]rune(c.Evidence)) != ToolCallEvidenceRunes {
		t.Errorf("evidence = %q (%d runes)", c.Evidence, len([]rune(c.Evidence)))
	}
}
