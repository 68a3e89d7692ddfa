package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentspine/spine/internal/golden"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata/")

// TestExtractJSONGolden runs ExtractJSON on every testdata/extract/*.txt model output and
// compares the result (the JSON, or "error: …") with the .golden file next to it.
func TestExtractJSONGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "extract", "*.txt"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs under testdata/extract: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".txt")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if v, err := ExtractJSON(string(text)); err != nil {
				if !errors.Is(err, ErrNoJSON) {
					t.Errorf("error %v does not wrap ErrNoJSON", err)
				}
				got = "error: " + err.Error() + "\n"
			} else {
				got = string(v) + "\n"
			}
			goldenPath := strings.TrimSuffix(in, ".txt") + ".golden"
			golden.Check(t, goldenPath, []byte(got), *rewrite)
		})
	}
}

func TestStripThinkBlocks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<think>a</think>b<think>c</think>d", "bd"},
		{"x</think>y", "y"},
		{"a<think>never closed", "a"},
		{"<thinking>plan</thinking>{}", "{}"},
		{"no tags", "no tags"},
		{"</think>", ""},
	} {
		if got := StripThinkBlocks(tc.in); got != tc.want {
			t.Errorf("StripThinkBlocks(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// extractSeeds are realistic model outputs beyond the golden corpus.
var extractSeeds = []string{
	"```json\n{\"a\":[1,2,{\"b\":null}]}\n```",
	"<think>{\"draft\":1}</think>\n\n```\n{\"final\":2}\n```",
	"{\"x\":\"\\u00e9\\\"}\"}",
	"[[[[[[[[",
	"{\"a\":1}]}",
	"```json\n{\"cut\": \"off",
	"\xff\xfe{\"bin\":true}",
	"<think></think>",
}

// FuzzExtractJSON checks that ExtractJSON never panics, that what it returns is valid
// JSON starting with { or [, and that a bare JSON object comes back unchanged.
func FuzzExtractJSON(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "extract", "*.txt"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range extractSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ExtractJSON(text)
		if err != nil {
			if v != nil || !errors.Is(err, ErrNoJSON) {
				t.Fatalf("error %v with value %q", err, v)
			}
			if !utf8.ValidString(err.Error()) && utf8.ValidString(text) {
				t.Fatalf("error message is not valid UTF-8: %q", err)
			}
			return
		}
		if !json.Valid(v) || (v[0] != '{' && v[0] != '[') {
			t.Fatalf("ExtractJSON(%q) = %q, not a JSON object or array", text, v)
		}
		if !strings.Contains(StripThinkBlocks(text), string(v)) {
			t.Fatalf("ExtractJSON(%q) = %q, which is not part of the input", text, v)
		}
		trimmed := bytes.TrimSpace([]byte(text))
		if json.Valid(trimmed) && len(trimmed) > 0 && trimmed[0] == '{' && !strings.Contains(text, "think>") && !strings.Contains(text, "```") {
			if !bytes.Equal(v, trimmed) {
				t.Fatalf("bare object %q came back as %q", trimmed, v)
			}
		}
	})
}

func BenchmarkExtractJSON(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("testdata", "extract", "think_and_fence.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ExtractJSON(string(text)); err != nil {
			b.Fatal(err)
		}
	}
}
