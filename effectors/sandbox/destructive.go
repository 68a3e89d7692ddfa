package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// destructiveReasons lists why a command may destroy data: recursive deletes, device
// formatting and raw writes, forced git history rewrites, recursive permission changes,
// and redirections that truncate an existing file. An empty result means none was seen;
// like the policy check, it reads words and can be bypassed (see the package doc).
func (s *Sandbox) destructiveReasons(cmds []simpleCommand, chains []commandChain) []string {
	var reasons []string
	add := func(format string, args ...any) {
		r := fmt.Sprintf(format, args...)
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	for k, sc := range cmds {
		ch := chains[k]
		if len(ch.names) > 0 {
			name := filepath.Base(ch.names[len(ch.names)-1].text)
			args := texts(ch.args)
			switch {
			case name == "rm" && (hasFlag(args, 'r', "--recursive") || hasFlag(args, 'R', "")):
				add("rm -r deletes directories recursively")
			case name == "mkfs" || strings.HasPrefix(name, "mkfs.") || name == "mke2fs" || name == "wipefs" || name == "fdisk" || name == "sfdisk" || name == "parted":
				add("%s formats or repartitions a device", name)
			case name == "shred":
				add("shred destroys file contents")
			case name == "truncate":
				add("truncate cuts files to a size")
			case name == "dd" && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "of=") }):
				add("dd of= overwrites its output file or device")
			case (name == "chmod" || name == "chown" || name == "chgrp") && (hasFlag(args, 'R', "--recursive")):
				add("%s -R changes permissions recursively", name)
			case name == "find" && slices.ContainsFunc(args, func(a string) bool { return a == "-delete" || a == "-exec" && slices.Contains(args, "rm") }):
				add("find deletes the files it matches")
			case name == "git":
				if r := gitDestructive(args); r != "" {
					add("%s", r)
				}
			}
		}
		for _, r := range sc.redirects {
			if r.op != ">" && r.op != ">|" && r.op != "&>" {
				continue
			}
			if abs, _, _, err := s.resolve(ToolShell, r.target.text); err == nil {
				if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
					add("%s %s truncates an existing file (write_file replaces a file's content on purpose)", r.op, r.target.text)
				}
			}
		}
	}
	return reasons
}

// gitDestructive recognises git subcommands that discard work or rewrite a remote.
func gitDestructive(args []string) string {
	sub := ""
	var rest []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			sub, rest = a, args[i+1:]
			break
		}
	}
	switch sub {
	case "push":
		if hasFlag(rest, 'f', "--force") || slices.ContainsFunc(rest, func(a string) bool {
			return strings.HasPrefix(a, "--force-with-lease") || strings.HasPrefix(a, "+")
		}) {
			return "git push --force rewrites the remote's history"
		}
	case "reset":
		if slices.Contains(rest, "--hard") {
			return "git reset --hard discards uncommitted changes"
		}
	case "clean":
		if hasFlag(rest, 'f', "--force") {
			return "git clean -f deletes untracked files"
		}
	case "branch":
		if hasFlag(rest, 'D', "") {
			return "git branch -D deletes a branch without checking it is merged"
		}
	}
	return ""
}

// hasFlag finds a short flag (alone or in a cluster like -rf) or a long flag, before "--".
func hasFlag(args []string, short byte, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if long != "" && a == long {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], short) >= 0 {
			return true
		}
	}
	return false
}

func texts(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}
