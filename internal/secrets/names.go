package secrets

import "strings"

// NameMarkers flag variable names that probably hold credentials (OPENAI_API_KEY,
// GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK, PGPASSWORD, …). A name looks secret
// when its upper-case form contains one of them.
var NameMarkers = []string{"KEY", "TOKEN", "SECRET", "PASS", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE"}

// NameLooksSecret tells whether a variable or field name suggests a credential.
func NameLooksSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, m := range NameMarkers {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

// FromEnviron returns the values of the KEY=VALUE entries whose names look secret, in
// the order given. Entries without '=' and empty values are skipped; values too short to
// be secrets are left to New, which ignores them.
func FromEnviron(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" && value != "" && NameLooksSecret(name) {
			out = append(out, value)
		}
	}
	return out
}
