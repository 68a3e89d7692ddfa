package sandbox

import (
	"slices"
	"strings"
)

// inheritedNames are the variables taken from the host when no environment is given.
var inheritedNames = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM"}

// secretMarkers flag variable names that probably hold credentials (OPENAI_API_KEY,
// GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK, PGPASSWORD, …).
var secretMarkers = []string{"KEY", "TOKEN", "SECRET", "PASS", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE"}

// looksSecret tells whether a variable name suggests a credential.
func looksSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, m := range secretMarkers {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

// inheritEnv keeps the harmless variables of a host environment.
func inheritEnv(host []string) []string {
	var out []string
	for _, kv := range host {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(inheritedNames, name) {
			out = append(out, kv)
		}
	}
	return out
}

// shellEnv is the environment shell commands get: base without secret-looking names or
// malformed entries, HOME and PWD set to the root, sorted so runs are reproducible.
func shellEnv(base []string, root string) []string {
	vars := map[string]string{}
	for _, kv := range base {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || looksSecret(name) {
			continue
		}
		vars[name] = value
	}
	if _, ok := vars["PATH"]; !ok {
		vars["PATH"] = "/usr/local/bin:/usr/bin:/bin"
	}
	vars["HOME"], vars["PWD"] = root, root
	out := make([]string, 0, len(vars))
	for name, value := range vars {
		out = append(out, name+"="+value)
	}
	slices.Sort(out)
	return out
}
