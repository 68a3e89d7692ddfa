package sandbox

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/agentspine/spine/contract"
)

// The file tools' second wall. Their I/O happens in the spine's own process, where only
// their path checks stand between a model's path and the host's files. Where the kernel
// has Landlock, every file-tool call runs on one of a few dedicated OS threads, each
// restricted to the work dir (read and write) and nothing else: a path check that let
// something through would still meet EACCES. The restriction is the thread's own — it
// is applied without LANDLOCK_RESTRICT_SELF_TSYNC, and the thread is locked to its
// goroutine and never unlocked, so it dies with the goroutine and never runs anything
// else of the spine. Threads the Go runtime starts while such a goroutine runs come from
// its unrestricted template thread. A kernel without Landlock leaves the file tools as
// they were, and Isolation says the wall is missing.

// fileWallThreads bounds the restricted threads of one sandbox: concurrent file-tool
// calls beyond it wait for one.
const fileWallThreads = 4

// errWallClosed is the answer to a call made after the sandbox was closed.
var errWallClosed = errors.New("sandbox: closed")

// fileWall runs functions on restricted threads.
type fileWall struct {
	reqs chan func() // taken by an idle thread
	quit chan struct{}

	mu      sync.Mutex
	threads int
	closed  bool
	start   func() error // locks the calling goroutine's thread and restricts it
}

func newFileWallWith(start func() error) *fileWall {
	return &fileWall{reqs: make(chan func()), quit: make(chan struct{}), start: start}
}

// do runs fn on a restricted thread and waits for it.
func (w *fileWall) do(fn func()) error {
	done := make(chan struct{})
	job := func() { defer close(done); fn() }
	select {
	case w.reqs <- job: // an idle thread took it
	default:
		if err := w.grow(); err != nil {
			return err
		}
		select {
		case w.reqs <- job:
		case <-w.quit:
			return errWallClosed
		}
	}
	<-done
	return nil
}

// grow starts another restricted thread when there are fewer than the bound.
func (w *fileWall) grow() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errWallClosed
	}
	if w.threads >= fileWallThreads {
		w.mu.Unlock()
		return nil
	}
	w.threads++
	w.mu.Unlock()
	ready := make(chan error, 1)
	go w.serve(ready)
	if err := <-ready; err != nil {
		w.mu.Lock()
		w.threads--
		w.mu.Unlock()
		return err
	}
	return nil
}

// serve runs on its own goroutine: restrict the thread, then take jobs until quit.
func (w *fileWall) serve(ready chan error) {
	if err := w.start(); err != nil {
		ready <- err
		return // the goroutine ends, locked, and its thread with it
	}
	ready <- nil
	for {
		select {
		case job := <-w.reqs:
			job()
		case <-w.quit:
			return
		}
	}
}

// close ends the threads; calls after it are refused.
func (w *fileWall) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		close(w.quit)
	}
}

// onWall runs a file tool's call on the wall, when there is one.
func (s *Sandbox) onWall(call func() (contract.ToolResponse, error)) (contract.ToolResponse, error) {
	s.wallOnce.Do(func() { s.wall, s.wallNote = newFileWall(s.root) })
	if s.wall == nil {
		return call()
	}
	var res contract.ToolResponse
	var err error
	if werr := s.wall.do(func() { res, err = call() }); werr != nil {
		return contract.ToolResponse{}, werr
	}
	return res, err
}

// closeWall ends the wall's threads; no wall is made after it.
func (s *Sandbox) closeWall() {
	s.wallOnce.Do(func() {})
	if s.wall != nil {
		s.wall.close()
	}
}

// describeWall adds the file tools' wall, or its absence, to iso.
func (s *Sandbox) describeWall(iso Isolation) Isolation {
	s.wallOnce.Do(func() { s.wall, s.wallNote = newFileWall(s.root) })
	if s.wall != nil {
		// A bubblewrap jail already names Landlock for the shell and the file tools.
		if !slices.ContainsFunc(iso.Isolated, func(l string) bool { return strings.HasPrefix(l, "landlock") }) {
			iso.Isolated = append(iso.Isolated, s.wallNote)
		}
	} else {
		iso.Missing = append(iso.Missing, "Landlock for the file tools ("+s.wallNote+")")
	}
	return iso
}
