package taskrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/effectors/sandbox"
)

// toolJail is the jail R3's tools run in: a bubblewrap sandbox, or, with noSandbox, none
// at all, which warn says. It refuses, with what is missing, when the machine cannot
// isolate and the user did not opt out. hidden are the spine's own files, kept out of the
// sandbox's view even when they lie under a directory it shows.
func toolJail(warn func(string), allowNet []sandbox.NetRule, check sandbox.AddrCheck, noSandbox bool, hidden []string) (sandbox.Jail, error) {
	if os.Geteuid() == 0 {
		warn("running as root: the sandbox maps tools to an unprivileged uid, but anything run with --no-sandbox runs as root")
	}
	if noSandbox {
		if len(allowNet) > 0 {
			return nil, fmt.Errorf("--allow-net needs the sandbox: without it tools reach every network anyway")
		}
		warn("--no-sandbox: tools run UNCONFINED, as this user, with this user's files and network; this is recorded in the trace")
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
	b, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{AllowNet: allowNet, CheckAddr: check, Hidden: abs})
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
