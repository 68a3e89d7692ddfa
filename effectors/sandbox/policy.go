package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Policy says which commands the shell tool may run, by name: the first word of every
// simple command (pipeline segment, list element, subshell, command substitution), and
// the command behind wrappers such as env, sudo, nice, timeout, xargs. With Allow set,
// only listed names run (and a name computed at run time, like $CMD, is refused); Deny
// names never run. See the package doc for what a check on words cannot see.
type Policy struct {
	Allow []string
	Deny  []string
}

// DefaultDeny is the deny list used when a Policy is left empty: privilege changes,
// machine power and mount control.
var DefaultDeny = []string{"chroot", "doas", "halt", "mount", "nsenter", "pkexec", "poweroff", "reboot", "shutdown", "su", "sudo", "umount"}

// reservedWords open or close compound commands; the command is the word after them.
var reservedWords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true,
	"done": true, "while": true, "until": true, "!": true, "{": true, "}": true, "esac": true, "time": true}

// headers of compound commands whose words are not commands.
var compoundHeaders = map[string]bool{"for": true, "case": true, "select": true, "function": true}

// wrappers run the command named by their first non-option argument; the value lists the
// options that take a separate value word.
var wrappers = map[string][]string{
	"sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, "doas": {"-u", "-C"}, "env": {"-u", "-C", "-S"},
	"nice": {"-n"}, "nohup": nil, "time": {"-f", "-o"}, "command": nil, "exec": {"-a"}, "builtin": nil,
	"xargs": {"-n", "-s", "-I", "-P", "-L", "-d", "-E", "-a"}, "timeout": {"-s", "-k"},
	"stdbuf": {"-i", "-o", "-e"}, "ionice": {"-c", "-n", "-p"},
}

// commandChain is a simple command seen through its wrappers: the names in order
// (wrappers first) and the arguments of the innermost command.
type commandChain struct {
	names    []word
	args     []word
	skipped  bool // a compound-command header or a bare assignment: nothing runs by name
	nameIdxs []int
}

// chainOf finds the command names of sc.
func chainOf(sc simpleCommand) commandChain {
	var ch commandChain
	ws := sc.words
	i := 0
	for i < len(ws) && isAssignment(ws[i]) {
		i++
	}
	for i < len(ws) && !ws[i].quoted && reservedWords[ws[i].text] {
		i++
	}
	if i == len(ws) || (!ws[i].quoted && compoundHeaders[ws[i].text]) {
		ch.skipped = true
		return ch
	}
	for i < len(ws) {
		ch.names = append(ch.names, ws[i])
		ch.nameIdxs = append(ch.nameIdxs, i)
		name := filepath.Base(ws[i].text)
		i++
		valued, isWrapper := wrappers[name]
		if !isWrapper {
			break
		}
		// Skip the wrapper's options (with their values), assignments (env) and the
		// duration of timeout.
		for i < len(ws) {
			t := ws[i].text
			switch {
			case strings.HasPrefix(t, "-"):
				i++
				if slices.Contains(valued, t) && i < len(ws) {
					i++
				}
				continue
			case isAssignment(ws[i]), name == "timeout" && len(t) > 0 && t[0] >= '0' && t[0] <= '9':
				i++
				continue
			}
			break
		}
	}
	ch.args = ws[i:]
	return ch
}

func isAssignment(w word) bool {
	eq := strings.IndexByte(w.text, '=')
	if eq <= 0 {
		return false
	}
	for j := 0; j < eq; j++ {
		if !isNameByte(w.text[j]) {
			return false
		}
	}
	return w.text[0] < '0' || w.text[0] > '9'
}

// check refuses a command whose names the policy forbids; it returns a reason or "".
func (p Policy) check(chains []commandChain) string {
	for _, ch := range chains {
		for _, n := range ch.names {
			name := filepath.Base(n.text)
			if n.computed {
				if len(p.Allow) > 0 {
					return fmt.Sprintf("the command name %q is computed when the command runs, so it cannot be checked against the allow list", n.text)
				}
				continue
			}
			if slices.Contains(p.Deny, name) {
				return fmt.Sprintf("%q is on the deny list", name)
			}
			if len(p.Allow) > 0 && !slices.Contains(p.Allow, name) {
				return fmt.Sprintf("%q is not on the allow list (%s)", name, strings.Join(p.Allow, ", "))
			}
		}
	}
	return ""
}

// devicePaths are outside paths any command may name.
var devicePaths = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd"}

// pathPart returns the part of a word that may name a path (after "--opt=" or "of=")
// and whether it reads as a path that can leave the root on its face: absolute, under
// "~", or climbing with "..". Other words are still resolved, to catch a relative path
// that goes out through an existing symlink.
func pathPart(w word) (string, bool) {
	t := w.text
	if eq := strings.IndexByte(t, '='); eq >= 0 && !strings.HasPrefix(t, "/") {
		t = t[eq+1:]
	}
	switch {
	case t == "~" || strings.HasPrefix(t, "~/") || strings.HasPrefix(t, "/"):
		return t, true
	case t == ".." || strings.HasPrefix(t, "../") || strings.Contains(t, "/../") || strings.HasSuffix(t, "/.."):
		return t, true
	}
	return t, false
}

// outsidePathAllowed tells whether p (absolute, clean) is a device or a configured
// outside path.
func (s *Sandbox) outsidePathAllowed(p string) bool {
	for _, prefix := range append(slices.Clip(devicePaths), s.opts.OutsidePaths...) {
		if within(filepath.Clean(prefix), p) {
			return true
		}
	}
	return false
}

// checkPaths refuses arguments and redirection targets that name a path outside the root,
// lexically or through a symlink that exists when the command is checked (command names
// given as absolute paths, like /usr/bin/env, are not arguments).
func (s *Sandbox) checkPaths(cmds []simpleCommand, chains []commandChain) string {
	for k, sc := range cmds {
		isName := map[int]bool{}
		for _, i := range chains[k].nameIdxs {
			isName[i] = strings.HasPrefix(sc.words[i].text, "/")
		}
		for i, w := range sc.words {
			if isName[i] {
				continue
			}
			if reason := s.checkPathWord(w); reason != "" {
				return reason
			}
		}
		for _, r := range sc.redirects {
			if !fileRedirect(r) {
				continue
			}
			if reason := s.checkPathWord(r.target); reason != "" {
				return reason
			}
		}
	}
	return ""
}

func (s *Sandbox) checkPathWord(w word) string {
	p, explicit := pathPart(w)
	if p == "" {
		return ""
	}
	if explicit && strings.HasPrefix(p, "/") && s.outsidePathAllowed(filepath.Clean(p)) {
		return ""
	}
	if _, _, _, err := s.resolve(ToolShell, p); err != nil {
		why := err.Error()
		var re *RefusedError
		if errors.As(err, &re) {
			why = re.Reason
		}
		return fmt.Sprintf("argument %q: %s; work inside the working directory", w.text, why)
	}
	return ""
}

// fileRedirect tells whether a redirection names a file (not an fd dup or here-doc).
func fileRedirect(r redirect) bool {
	switch r.op {
	case "<<", "<<-", "<<<":
		return false
	case ">&", "<&":
		return !isDigits(r.target.text) && r.target.text != "-"
	}
	return true
}
