package memory

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReadImportFile: a file of Megrams (objects or envelopes) or of exported records,
// blank lines skipped, every entry with its line; a bad line or a file of both kinds
// is refused naming the line.
func TestReadImportFile(t *testing.T) {
	const (
		megram   = `{"id":"x1","space":"tool:go","entity":"path:x","level":"M","state":"ok","f":0.5,"sigma":1,"k":0.1}`
		envelope = `{"type":"Megram","payload":` + megram + `}`
		exported = `{"type":"MemoryRecord","record":{"id":"x1"}}`
	)
	for _, tc := range []struct {
		name, in string
		megrams  int
		lines    string // the entries' lines, or the error when want is set
		want     string
	}{
		{name: "megrams", in: megram + "\n\n" + envelope + "\n", megrams: 2, lines: "1 3"},
		{name: "empty", in: "\n  \n", lines: ""},
		{name: "unknown field", in: megram + "\n" + `{"colour":"red"}`, want: `line 2: megram: json: unknown field "colour"`},
		{name: "ls --json", in: `{"attention":1}`, want: `line 1: megram: json: unknown field "attention" (memory ls --json lists a store; memory export writes what import restores)`},
		{name: "other envelope", in: `{"type":"FinalResult","payload":{}}`, want: `line 1: envelope of type "FinalResult", want "Megram"`},
		{name: "not JSON", in: `[1`, want: `line 1: not a JSON object: unexpected end of JSON input`},
		{name: "both kinds", in: megram + "\n" + exported, want: "line 2: an exported record among Megrams; a file holds one kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadImportFile("in.jsonl", strings.NewReader(tc.in))
			if tc.want != "" {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range f.Lines {
				lines = append(lines, strconv.Itoa(l))
			}
			if len(f.Megrams) != tc.megrams || strings.Join(lines, " ") != tc.lines || f.Exported != nil {
				t.Errorf("megrams %d lines %q exported %d, want %d %q", len(f.Megrams), lines, len(f.Exported), tc.megrams, tc.lines)
			}
		})
	}
}

// FuzzReadImportFile: any input is a file of entries or an error naming a line, never
// a panic, and every entry has its line.
func FuzzReadImportFile(f *testing.F) {
	f.Add([]byte(`{"type":"Megram","payload":{"id":"a"}}` + "\n" + `{"id":"b"}`))
	f.Add([]byte(`{"type":"MemoryRecord","record":{"id":"x1"}}`))
	f.Add([]byte("\n{\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := ReadImportFile("f.jsonl", strings.NewReader(string(b)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.HasPrefix(err.Error(), "f.jsonl") {
				t.Fatalf("an error that names no line: %v", err)
			}
			return
		}
		if len(file.Lines) != len(file.Megrams)+len(file.Exported) {
			t.Fatalf("%d lines for %d entries", len(file.Lines), len(file.Megrams)+len(file.Exported))
		}
	})
}

// TestOpenImportFile: "-" reads stdin; a named file must be a regular one, and its lines
// are named by the file.
func TestOpenImportFile(t *testing.T) {
	const megram = `{"id":"x1","space":"tool:go","entity":"path:x","level":"M","state":"ok","f":0.5,"sigma":1,"k":0.1}`
	if f, err := OpenImportFile("-", strings.NewReader(megram+"\n")); err != nil || len(f.Megrams) != 1 {
		t.Fatalf("stdin: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(megram+"\n{}x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenImportFile(path, nil); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad second line: %v", err)
	}
	if _, err := OpenImportFile(dir, nil); err == nil {
		t.Error("a directory was read as an import file")
	}
}
