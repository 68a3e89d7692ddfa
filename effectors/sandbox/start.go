package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Starter starts a long-lived program confined as a jail confines a shell call: an MCP
// server that R3 talks to over its stdin and stdout for the whole run. *Bubblewrap and
// Unconfined are Starters.
type Starter interface {
	Start(ctx context.Context, p Program) (*Running, error)
}

// Program is a long-lived program to start.
type Program struct {
	Argv   []string // Argv[0] is an absolute path, as the program is seen inside
	Dir    string   // the work dir, absolute: bound writable, as for the shell
	Env    []string // the program's whole environment
	Stderr io.Writer
	// AllowNet are the destinations this program alone may reach; empty: no network.
	AllowNet []NetRule
	// ReadOnly are further host paths shown read-only (the program's own installation).
	ReadOnly []string
}

// Running is a started Program. Stdin and Stdout are its pipes; Stop ends it and every
// process it started, and waits for them.
type Running struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser

	pid  int // the started process on the host (bwrap, or the program itself)
	done chan struct{}
	err  error
	stop func() error
	once sync.Once
}

// Done is closed when the program has ended and everything of it is gone.
func (r *Running) Done() <-chan struct{} { return r.done }

// Err is how the program ended, once Done is closed.
func (r *Running) Err() error {
	<-r.done
	return r.err
}

// Stop kills the program and what it started, and waits until they are gone. It may be
// called more than once.
func (r *Running) Stop() error {
	r.once.Do(func() {
		r.Stdin.Close()
		_ = r.stop()
	})
	<-r.done
	r.Stdout.Close()
	return nil
}

// pipes makes the program's stdin and stdout: the child's ends, handed to exec.Cmd as
// files, and the spine's.
type pipes struct {
	inR, inW, outR, outW *os.File
}

func newPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.inR.Close()
		p.inW.Close()
		return nil, err
	}
	return &p, nil
}

// started closes the child's ends (the child holds them now) and makes the Running.
func (p *pipes) started() *Running {
	p.inR.Close()
	p.outW.Close()
	return &Running{Stdin: p.inW, Stdout: p.outR, done: make(chan struct{})}
}

func (p *pipes) closeAll() {
	for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW} {
		f.Close()
	}
}

func checkProgram(p Program) error {
	if len(p.Argv) == 0 || !filepath.IsAbs(p.Argv[0]) {
		return errors.New("sandbox: a program needs an absolute path to run")
	}
	if !filepath.IsAbs(p.Dir) {
		return fmt.Errorf("sandbox: the program's directory %q must be absolute", p.Dir)
	}
	return nil
}

var _ Starter = Unconfined{}

// Start implements Starter: the program runs as this user, in a process group of its
// own that Stop kills. A program given AllowNet is refused: unconfined, it would reach
// everything, and saying so beats pretending.
func (Unconfined) Start(ctx context.Context, p Program) (*Running, error) {
	if err := checkProgram(p); err != nil {
		return nil, err
	}
	pp, err := newPipes()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pp.inR, pp.outW, p.Stderr
	cmd.WaitDelay = waitDelay
	inOwnProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		pp.closeAll()
		return nil, err
	}
	r := pp.started()
	r.stop, r.pid = cmd.Cancel, cmd.Process.Pid
	go func() {
		r.err = cmd.Wait()
		killGroup(cmd)
		close(r.done)
	}()
	return r, nil
}
