package secrets

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// benchSecrets are five values of the shapes a run hides: an OpenAI key, a GitHub token,
// an AWS secret key, a password, and a path-like value of a variable named *_AUTH_*.
var benchSecrets = []string{key, "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	pass, "/tmp/ssh-XXXXq1w2e3/agent.4242"}

// toolOutput is 32 KiB of what a shell call prints: a listing and a test log.
func toolOutput(leak bool) string {
	var b strings.Builder
	for i := 0; b.Len() < 32<<10; i++ {
		fmt.Fprintf(&b, "-rw-r--r-- 1 user user %6d Jan %2d 12:%02d internal/pkg%d/file_%d.go\n", 1000+i*37, 1+i%28, i%60, i%7, i)
		fmt.Fprintf(&b, "=== RUN   TestCase%d/sub-%x\n--- PASS: TestCase%d (0.%02ds)\n", i, i*2654435761, i, i%100)
		if leak && i%40 == 20 {
			fmt.Fprintf(&b, "OPENAI_API_KEY=%s\n%s\n", key, base64.StdEncoding.EncodeToString([]byte("AWS="+benchSecrets[2])))
		}
	}
	return b.String()[:32<<10]
}

func BenchmarkScrub(b *testing.B) {
	s := New(benchSecrets...)
	for _, bc := range []struct {
		name string
		leak bool
	}{{"clean", false}, {"leaks", true}} {
		text := toolOutput(bc.leak)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				_ = s.String(text)
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = New(benchSecrets...)
	}
}
