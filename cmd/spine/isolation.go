package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/effectors/sandbox"
)

// netRules is the repeatable --allow-net flag.
type netRules []sandbox.NetRule

func (n *netRules) String() string {
	var parts []string
	for _, r := range *n {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

// Set parses one HOST[:PORT]; a comma-separated list is taken too.
func (n *netRules) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		r, err := sandbox.ParseNetRule(strings.TrimSpace(part))
		if err != nil {
			return err
		}
		*n = append(*n, r)
	}
	return nil
}

// toolIsolation is the jail R3's tools run in, as the flags ask: a bubblewrap sandbox,
// or, with --no-sandbox, none at all, said in red. It refuses, with what is missing, when
// the machine cannot isolate and the user did not opt out. hidden are the spine's own
// files, kept out of the sandbox's view even when they lie under a directory it shows.
func toolIsolation(stderr io.Writer, allowNet netRules, noSandbox bool, hidden []string) (sandbox.Jail, error) {
	if os.Geteuid() == 0 {
		warn(stderr, "running as root: the sandbox maps tools to an unprivileged uid, but anything run with --no-sandbox runs as root")
	}
	if noSandbox {
		if len(allowNet) > 0 {
			return nil, fmt.Errorf("--allow-net needs the sandbox: without it tools reach every network anyway")
		}
		warn(stderr, "--no-sandbox: tools run UNCONFINED, as this user, with this user's files and network; this is recorded in the trace")
		return sandbox.Unconfined{}, nil
	}
	var abs []string
	for _, h := range hidden {
		if h == "" {
			continue
		}
		if a, err := filepath.Abs(h); err == nil {
			abs = append(abs, a)
		}
	}
	b, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{AllowNet: allowNet, Hidden: abs})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// checkWorkdir refuses a work dir that would show the tools what the sandbox hides: the
// root of the file system, or the user's home (or a directory holding it), where ~/.ssh,
// ~/.aws and the like live.
func checkWorkdir(workdir string) error {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if abs == "/" {
		return fmt.Errorf("--workdir %s is the root of the file system: the tools could write everywhere; choose a project directory", workdir)
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	if home == abs || strings.HasPrefix(home, abs+"/") {
		return fmt.Errorf("--workdir %s holds your home directory %s: its secrets (~/.ssh, ~/.aws, shell history) would be open to the tools; choose a project directory", workdir, home)
	}
	return nil
}

// isolationMeta is what the trace header records of the tools' isolation.
func isolationMeta(meta map[string]string, iso sandbox.Isolation) {
	meta["sandbox"] = iso.Mechanism
	if !iso.Confined() {
		meta["sandbox"] = "none (--no-sandbox)"
	}
	if len(iso.AllowNet) > 0 {
		meta["allow_net"] = strings.Join(iso.AllowNet, ",")
	}
}

// warn prints a warning, in red on a terminal.
func warn(w io.Writer, msg string) {
	if isTerminal(w) {
		fmt.Fprintf(w, "\x1b[1;31mwarning: %s\x1b[0m\n", msg)
		return
	}
	fmt.Fprintf(w, "warning: %s\n", msg)
}
