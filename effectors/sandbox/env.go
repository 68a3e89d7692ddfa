package sandbox

import (
	"slices"
	"strings"

	"github.com/agentspine/spine/internal/secrets"
)

// inheritedNames are the variables taken from the host when no environment is given.
var inheritedNames = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM"}

// looksSecret tells whether a variable name suggests a credential; the list of markers
// is shared with the scrubber that keeps secrets out of the trace.
func looksSecret(name string) bool { return secrets.NameLooksSecret(name) }

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
