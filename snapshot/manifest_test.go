package snapshot

import (
	"strings"
	"testing"
)

const h64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseManifest(t *testing.T) {
	good := manifestHeader + "\nd 755 - - \"a\"\nf 644 3 " + h64 + " \"a/b c\"\nl 777 - - \"a/l\" \"../x\"\n"
	m, err := ParseManifest("m", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Encode()) != good {
		t.Fatalf("re-encoded:\n%s\nwant\n%s", m.Encode(), good)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"header", "spine-snapshot/9\n", "m:1: expected the header"},
		{"cut", manifestHeader + "\nd 755 - - \"a\"", "m:2: the last line has no newline"},
		{"fields", manifestHeader + "\nd 755 - -\n", "m:2: expected TYPE MODE SIZE HASH PATH"},
		{"type", manifestHeader + "\nx 755 - - \"a\"\n", "type \"x\": expected f, d or l"},
		{"mode", manifestHeader + "\nd 7777 - - \"a\"\n", "mode \"7777\""},
		{"size", manifestHeader + "\nf 644 -1 " + h64 + " \"a\"\n", "size \"-1\""},
		{"hash", manifestHeader + "\nf 644 1 abc \"a\"\n", "hash \"abc\""},
		{"dir size", manifestHeader + "\nd 755 1 - \"a\"\n", "expected \"- -\""},
		{"unquoted", manifestHeader + "\nd 755 - - a\n", "path: expected a double-quoted string"},
		{"dotdot", manifestHeader + "\nd 755 - - \"../a\"\n", "expected a clean relative path"},
		{"absolute", manifestHeader + "\nd 755 - - \"/a\"\n", "expected a clean relative path"},
		{"order", manifestHeader + "\nd 755 - - \"b\"\nd 755 - - \"a\"\n", "m:3: path \"a\" does not follow \"b\""},
		{"dup", manifestHeader + "\nd 755 - - \"a\"\nd 755 - - \"a\"\n", "sorted and unique"},
		{"orphan", manifestHeader + "\nf 644 1 " + h64 + " \"a/b\"\n", "its parent \"a\" is not a directory entry"},
		{"file parent", manifestHeader + "\nf 644 1 " + h64 + " \"a\"\nf 644 1 " + h64 + " \"a/b\"\n", "its parent \"a\""},
		{"link out", manifestHeader + "\nl 777 - - \"l\" \"../x\"\n", "points outside"},
		{"link abs", manifestHeader + "\nl 777 - - \"l\" \"/etc\"\n", "absolute"},
		{"link no target", manifestHeader + "\nl 777 - - \"l\"\n", "expected its quoted target"},
		{"trailing", manifestHeader + "\nd 755 - - \"a\" x\n", "unexpected text after the entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("m", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want …%s…", err, tc.want)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(manifestHeader + "\nd 755 - - \"a\"\nf 644 3 " + h64 + " \"a/b c\"\nl 777 - - \"a/l\" \"../x\"\n"))
	f.Add([]byte(manifestHeader + "\n"))
	f.Add([]byte("f 0644 1 x \"\\x00\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("fuzz", data)
		if err != nil {
			return
		}
		// What parses is what Restore may act on: check its promises again.
		for i, e := range m.Entries {
			if checkPath(e.Path) != nil || (i > 0 && m.Entries[i-1].Path >= e.Path) {
				t.Fatalf("accepted entry %q", e.Path)
			}
			if e.Type == TypeSymlink && checkTarget(e.Path, e.Target) != nil {
				t.Fatalf("accepted target %q", e.Target)
			}
		}
		enc := m.Encode()
		m2, err := ParseManifest("again", enc)
		if err != nil {
			t.Fatalf("re-encoded manifest does not parse: %v\n%s", err, enc)
		}
		if string(m2.Encode()) != string(enc) {
			t.Fatalf("encoding is not stable")
		}
	})
}
