package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"testing"
)

// key is shaped like an OpenAI project key; pass is a password with characters that
// every escaping changes.
const (
	key  = "sk-proj-Q7vX2mN9pL4rT8wY1zK5bH3cJ6dF0gS"
	pass = `p&ss"w<rd>/ é+1`
)

func b64(s string) string    { return base64.StdEncoding.EncodeToString([]byte(s)) }
func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// wrap cuts s into lines of n characters, as base64(1) does.
func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestScrub(t *testing.T) {
	s := New(key, pass, "/run/user/1000/keyring", "short", "")
	environ := "HOME=/root\x00OPENAI_API_KEY=" + key + "\x00PATH=/usr/bin:/bin\x00LANG=C.UTF-8\x00TERM=xterm"
	for _, tc := range []struct{ name, in, want string }{
		{"clean text is unchanged", "port: 8080\nsk-proj- is how keys begin", "port: 8080\nsk-proj- is how keys begin"},
		{"verbatim", "OPENAI_API_KEY=" + key + "\n", "OPENAI_API_KEY=[REDACTED]\n"},
		{"twice", key + " and " + key, "[REDACTED] and [REDACTED]"},
		// The key's 39 bytes are 52 base64 characters, no padding.
		{"base64 of the key", "b64: " + b64(key), "b64: [REDACTED]"},
		// With two bytes before it, the key's bits start in the third character, and the
		// last character also holds the zero bits the encoder filled in.
		{"base64 url alphabet", b64url("\xff\xfe" + key), b64url("\xff\xfe" + key)[:3] + "[REDACTED]M"},
		// In the dump the key starts at byte 26 and ends at byte 65: characters 35 (the
		// first whose bits are all the key's, ⌈26·8/6⌉) to 86 (⌊65·8/6⌋) go.
		{"base64 of an environ dump, one alignment",
			b64(environ), b64(environ)[:35] + "[REDACTED]" + b64(environ)[86:]},
		{"base64 of an environ dump, another alignment",
			b64("X" + environ), b64("X" + environ)[:36] + "[REDACTED]" + b64("X" + environ)[88:]},
		{"base64 wrapped at 76 columns", wrap(b64(environ), 76), b64(environ)[:35] + "[REDACTED]" + b64(environ)[86:]},
		{"hex", "hex " + hex.EncodeToString([]byte(key)) + ".", "hex [REDACTED]."},
		{"upper-case hex", strings.ToUpper(hex.EncodeToString([]byte(key))), "[REDACTED]"},
		{"first 8 and last 4 shown", "key: sk-proj-…F0gS (project)", "key: [REDACTED] (project)"},
		{"first 6, dots, last 3", "using sk-pro...0gS now", "using [REDACTED] now"},
		{"stars", "sk-proj-Q7v********dF0gS", "[REDACTED]"},
		{"a run of 12 of the key", "mid L4rT8wY1zK5b end", "mid [REDACTED] end"},
		{"the last 12 of the key", "…5bH3cJ6dF0gS", "…[REDACTED]"},
		{"11 characters are not a run", "p L4rT8wY1zK5 q", "p L4rT8wY1zK5 q"},
		{"a prefix with no suffix is no masked echo", "sk-proj-Q7v... (cut)", "sk-proj-Q7v... (cut)"},
		{"a suffix of 2 is too short", "sk-proj-…gS", "sk-proj-…gS"},
		{"password verbatim", "pw=" + pass + ";", "pw=[REDACTED];"},
		{"password in JSON", `{"pw":` + jsonText(pass) + `}`, `{"pw":"[REDACTED]"}`},
		{"password in JSON without HTML escaping", `{"pw":"p&ss\"w<rd>/ é+1"}`, `{"pw":"[REDACTED]"}`},
		{"password in ASCII-only JSON", `"p&ss\"w<rd>/ \u00e9+1"`, `"[REDACTED]"`},
		{"password with escaped slashes", `"p&ss\"w<rd>\/ é+1"`, `"[REDACTED]"`},
		{"password in a query", "https://h/?pw=" + url.QueryEscape(pass), "https://h/?pw=[REDACTED]"},
		{"password in a path", "https://h/" + url.PathEscape(pass), "https://h/[REDACTED]"},
		{"password in lower-case percent escapes", "?pw=" + strings.ToLower(url.QueryEscape(pass)), "?pw=[REDACTED]"},
		{"a path-like value verbatim", "socket /run/user/1000/keyring here", "socket [REDACTED] here"},
		{"but not its parts", "cd /run/user/1000/", "cd /run/user/1000/"},
		{"values under 8 characters are not secrets", "short", "short"},
		{"neighbouring matches are one", key + pass, "[REDACTED]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.String(tc.in); got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if got := s.Contains(tc.in); got != (tc.in != tc.want) {
				t.Errorf("Contains(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   int
	}{
		{nil, 0},
		{[]string{"", "short", "1234567"}, 0},
		{[]string{"12345678"}, 1},
		{[]string{"REDACTED", "[REDACTED]", "EDACTED]"}, 0}, // the replacement would show them
		{[]string{key, key, "  " + key + "\n"}, 2},          // as given, and trimmed
		{[]string{"b-secret-value", "a-secret-value"}, 2},
	} {
		if got := New(tc.values...).Len(); got != tc.want {
			t.Errorf("New(%q).Len() = %d, want %d", tc.values, got, tc.want)
		}
	}
	var none *Scrubber
	if none.String(key) != key || none.Contains(key) || none.Len() != 0 || none.Error(fs.ErrNotExist) != fs.ErrNotExist {
		t.Error("a nil Scrubber changed something")
	}
}

// TestDeterministic: the order values are given in does not change the output.
func TestDeterministic(t *testing.T) {
	in := "a " + key + " b " + b64(pass) + " c " + key[:10] + "…" + key[len(key)-4:]
	a, b := New(key, pass).String(in), New(pass, key, pass).String(in)
	if a != b {
		t.Errorf("order changed the output:\n%q\n%q", a, b)
	}
}

func TestError(t *testing.T) {
	s := New(key)
	base := fmt.Errorf("status 401: invalid key %s: %w", key, fs.ErrPermission)
	err := s.Error(base)
	if err.Error() != "status 401: invalid key [REDACTED]: permission denied" {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, fs.ErrPermission) || !errors.Is(err, base) {
		t.Error("the scrubbed error does not unwrap to the original")
	}
	clean := errors.New("connection refused")
	if s.Error(clean) != clean || s.Error(nil) != nil {
		t.Error("a clean error was wrapped")
	}
}

func TestFromEnviron(t *testing.T) {
	got := FromEnviron([]string{"PATH=/usr/bin", "OPENAI_API_KEY=" + key, "github_token=ghp_x", "PGPASSWORD=", "NOEQUALS",
		"=orphan", "SSH_AUTH_SOCK=/tmp/agent.1", "AWS_SECRET_ACCESS_KEY=a=b=c"})
	want := []string{key, "ghp_x", "/tmp/agent.1", "a=b=c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("FromEnviron = %q, want %q", got, want)
	}
}

func TestNameLooksSecret(t *testing.T) {
	for name, want := range map[string]bool{"OPENAI_API_KEY": true, "github_token": true, "PGPASSWORD": true,
		"XDG_SESSION_ID": true, "api_key": true, "PATH": false, "HOME": false, "LANG": false, "SPINE_MODEL": false} {
		if got := NameLooksSecret(name); got != want {
			t.Errorf("NameLooksSecret(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestKeyLike(t *testing.T) {
	for v, want := range map[string]bool{key: true, "ghp_16C7e42F292c6912E7710c838347Ae178B4a": true,
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": true, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U": true,
		"/run/user/1000/keyring": false, "unix:path=/run/user/1000/bus": false, "correct horse battery 1": false,
		"abcdefghijklmnopqrstuvwxyz": false, "12345678901234567890": false, "short1": false} {
		if got := keyLike(v); got != want {
			t.Errorf("keyLike(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestCleanTextAllocatesNothing: text without secrets is passed through, not copied.
func TestCleanTextAllocatesNothing(t *testing.T) {
	s := New(key, pass)
	text := strings.Repeat("ordinary tool output, nothing to hide here\n", 100)
	if n := testing.AllocsPerRun(10, func() { _ = s.String(text) }); n != 0 {
		t.Errorf("%v allocations on clean text", n)
	}
}
