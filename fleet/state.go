package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/trace"
)

// The state a fleet's machine keeps outside any run: where `spine serve` listens (the
// state file, which clients read when given no URL) and the worker's signing key.

// StateName is the state file's name in the state directory.
const StateName = "fleet.json"

// State is what a server writes to the state file: the URL only, never a credential.
type State struct {
	URL string `json:"url"`
	Dir string `json:"dir"`
	PID int    `json:"pid"`
}

// StateDir is $XDG_STATE_HOME/spine, else ~/.local/state/spine, from getenv.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "spine"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("no state directory: $XDG_STATE_HOME and $HOME are unset")
	}
	return filepath.Join(home, ".local", "state", "spine"), nil
}

// ReadState reads the state file at path.
func ReadState(path string) (State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil || st.URL == "" {
		return State{}, fmt.Errorf("%s is not a fleet state file (want {\"url\": ...})", path)
	}
	return st, nil
}

// WriteState replaces the state file at path whole (a reader never sees half of it).
func WriteState(path string, st State) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ParseListen reads a server's HOST:PORT into c's Host and Port (port 0: any free port).
func (c *ServerConfig) ParseListen(listen string) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("%q: expected HOST:PORT, e.g. 127.0.0.1:4222", listen)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("%q: the port must be a number from 0 to 65535", listen)
	}
	if p == 0 {
		p = -1 // nats-server's "any free port"
	}
	c.Host, c.Port = host, p
	return nil
}

// ReadTaskFile reads a file of tasks to submit, one a line; blank lines and lines
// starting with # are skipped.
func ReadTaskFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no task (one a line; # starts a comment)", path)
	}
	return out, nil
}

// ParseWhen reads a bound of an audit query's window: an RFC 3339 time, or a duration
// back from now; "" is no bound.
func ParseWhen(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q: expected an RFC 3339 time (2026-03-01T09:00:00Z) or a duration back from now (2h)", v)
}

// WorkerKeyName is a worker's own signing key in the state directory.
const WorkerKeyName = "worker-sign.key"

// WorkerSigner reads the key a worker signs its traces with: path, or the worker's own
// key in dir, made (with its .pub) when there is none yet. made is the fingerprint of a
// key it made, "" when it made none.
func WorkerSigner(path, dir string) (sg *trace.Signer, used, made string, err error) {
	if path == "" {
		path = filepath.Join(dir, WorkerKeyName)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, "", "", err
			}
			// Workers started together race to make it: one does, the others read it.
			if made, err = trace.WriteKeyPair(path); err != nil && !errors.Is(err, os.ErrExist) {
				return nil, "", "", fmt.Errorf("making the worker's signing key: %w", err)
			}
		}
	}
	sg, err = trace.LoadSigner(path)
	if err != nil {
		return nil, path, made, fmt.Errorf("--sign-key: %w", err)
	}
	return sg, path, made, nil
}

// OpenSnapshots opens the snapshot store in dir, or, dir empty, the one in the state
// directory (snapshot.DefaultDir), which spine run snapshots into.
func OpenSnapshots(dir string, getenv func(string) string) (*snapshot.Store, error) {
	if strings.TrimSpace(dir) == "" {
		state, err := StateDir(getenv)
		if err != nil {
			return nil, fmt.Errorf("no snapshot store: %w", err)
		}
		dir = snapshot.DefaultDir(state)
	}
	return snapshot.Open(dir)
}

// RunSnapshots opens the store spine run snapshots workdir into, the state directory's
// (snapshot.OpenFor: a first snapshot checks the work dir can be taken and makes the
// run's own first one incremental; a store inside the work dir is refused). An error
// says why there can be no snapshots (a *snapshot.LimitError when the work dir is over
// the limits); the caller decides whether that is fatal.
func RunSnapshots(workdir string, getenv func(string) string) (*snapshot.Store, error) {
	state, err := StateDir(getenv)
	if err != nil {
		return nil, fmt.Errorf("no state directory: %w", err)
	}
	return snapshot.OpenFor(state, workdir)
}
