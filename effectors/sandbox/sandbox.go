package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentspine/spine/contract"
)

// Defaults of Options.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 32 << 10 // bytes of shell output kept
	DefaultMaxRead   = 1 << 20  // bytes read_file returns
	// DefaultMaxWrite is what write_file accepts: no more can arrive, since a tool call's
	// arguments, which carry the content, are at most contract.MaxToolArguments.
	DefaultMaxWrite = contract.MaxToolArguments
	DefaultMaxList  = 1000 // entries list_files returns
)

// Options configure a Sandbox; zero values take the defaults.
type Options struct {
	Timeout   time.Duration // per shell call; also the ceiling for a call's timeout_ms
	MaxOutput int
	MaxRead   int64
	MaxWrite  int
	MaxList   int

	Policy    Policy    // empty: DefaultDeny
	Confirmer Confirmer // nil: RefuseAll

	// Env is the shell's base environment as KEY=VALUE; nil takes PATH, LANG, LC_* and TZ
	// from this process. Names that look secret are dropped either way; HOME and PWD are
	// the root.
	Env []string
	// OutsidePaths are absolute paths outside the root (and what lies below them) that
	// shell arguments may name, e.g. "/usr/share/dict". The file tools never reach them.
	OutsidePaths []string

	// Jail confines every shell call. nil: a Bubblewrap jail with default options, made
	// at the first call; when this machine cannot provide one, shell calls are refused
	// (ErrNoIsolation) and say what is missing. Unconfined{} runs them without isolation.
	Jail Jail

	// skipWordCheck turns off the policy, path and destructive checks, so that tests can
	// show what the jail alone stops.
	skipWordCheck bool
}

// Sandbox runs R3's tools inside one directory. It is safe for concurrent use.
type Sandbox struct {
	root   string // absolute, symlinks resolved
	osRoot *os.Root
	opts   Options
	env    []string

	jailOnce sync.Once
	jailErr  error
	handed   atomic.Pointer[handover] // the work dir's files belong to the jail's host uid

	wallOnce sync.Once
	wall     *fileWall // the file tools' Landlock threads; nil: none (wallNote says why)
	wallNote string
}

// New opens a sandbox rooted at dir, which must exist and be a directory.
func New(dir string, opts Options) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: root %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("sandbox: root %q: %w", dir, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: root %q is not a directory", dir)
	}
	if opts.Timeout < 0 || opts.MaxOutput < 0 || opts.MaxRead < 0 || opts.MaxWrite < 0 || opts.MaxList < 0 {
		return nil, errors.New("sandbox: limits must not be negative")
	}
	// What a tool returns is journalled whole and sent to the model: it must fit the
	// trace's budget for a tool's output.
	if opts.MaxOutput > contract.MaxToolOutput || opts.MaxRead > contract.MaxToolOutput {
		return nil, fmt.Errorf("sandbox: the output limits (%d, %d) must be at most %d bytes, the limit of a tool's output",
			opts.MaxOutput, opts.MaxRead, contract.MaxToolOutput)
	}
	for _, p := range opts.OutsidePaths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox: outside path %q must be absolute", p)
		}
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutput == 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.MaxRead == 0 {
		opts.MaxRead = DefaultMaxRead
	}
	if opts.MaxWrite == 0 {
		opts.MaxWrite = DefaultMaxWrite
	}
	if opts.MaxList == 0 {
		opts.MaxList = DefaultMaxList
	}
	if opts.Policy.Allow == nil && opts.Policy.Deny == nil {
		opts.Policy.Deny = DefaultDeny
	}
	if opts.Confirmer == nil {
		opts.Confirmer = RefuseAll{}
	}
	base := opts.Env
	if base == nil {
		base = inheritEnv(os.Environ())
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &Sandbox{root: real, osRoot: r, opts: opts, env: shellEnv(base, real)}, nil
}

// jail is the configured jail, or the default one made on first use.
func (s *Sandbox) jail() (Jail, error) {
	s.jailOnce.Do(func() {
		if s.opts.Jail == nil {
			var b *Bubblewrap
			b, s.jailErr = NewBubblewrap(BubblewrapOptions{})
			if s.jailErr == nil {
				s.opts.Jail = b
			}
		}
		if s.jailErr == nil {
			s.jailErr = s.handOverTo(s.opts.Jail)
		}
	})
	return s.opts.Jail, s.jailErr
}

// Isolation describes the jail shell calls run in, making the default one if needed.
func (s *Sandbox) Isolation() (Isolation, error) {
	j, err := s.jail()
	if err != nil {
		return Isolation{}, err
	}
	return s.describeWall(j.Describe()), nil
}

// Root is the sandbox's directory, absolute with symlinks resolved.
func (s *Sandbox) Root() string { return s.root }

// handOverTo starts the ownership hand-over when jail runs commands as another host uid.
func (s *Sandbox) handOverTo(jail Jail) error {
	ho, ok := jail.(hostOwned)
	if !ok {
		return nil
	}
	uid, gid, drop := ho.hostOwner()
	if !drop {
		return nil
	}
	h := &handover{uid: uid, gid: gid, callerUID: os.Geteuid(), callerGID: os.Getegid()}
	if err := handOver(s.root, h); err != nil {
		return fmt.Errorf("sandbox: handing the work dir to uid %d: %w", uid, err)
	}
	s.handed.Store(h)
	return nil
}

// Close gives the work dir back to the spine's uid, if it was handed over, and releases
// the root directory handle.
func (s *Sandbox) Close() error {
	s.closeWall()
	var err error
	if h := s.handed.Swap(nil); h != nil {
		err = handBack(s.root, h)
	}
	if cerr := s.osRoot.Close(); err == nil {
		err = cerr
	}
	return err
}
