package sandbox

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// relay forwards connections made inside one sandbox to the allowed destinations.
type relay struct {
	listeners []net.Listener
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     map[net.Conn]struct{}
}

// startRelay opens the plan's listeners in the network namespace of process pid (the
// sandbox's init) and serves them until stop. Opening a socket in another namespace needs
// CAP_SYS_ADMIN there and here, which is why allowing network needs root.
func startRelay(pid int, p relayPlan) (*relay, error) {
	rl := &relay{conns: map[net.Conn]struct{}{}}
	type opened struct {
		ls  []net.Listener
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		// The thread that enters the namespace is thrown away if it cannot come back.
		runtime.LockOSThread()
		var o opened
		defer func() { ch <- o }()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			o.err = err
			return
		}
		defer self.Close()
		target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil {
			o.err = err
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			o.err = fmt.Errorf("entering the sandbox's network namespace: %w", err)
			runtime.UnlockOSThread()
			return
		}
		for _, r := range p.routes {
			l, err := net.Listen("tcp", r.inside.String())
			if err != nil {
				o.err = err
				break
			}
			o.ls = append(o.ls, l)
		}
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err == nil {
			runtime.UnlockOSThread()
		}
	}()
	o := <-ch
	rl.listeners = o.ls
	if o.err != nil {
		rl.stop()
		return nil, o.err
	}
	for i, l := range rl.listeners {
		rl.wg.Add(1)
		go rl.serve(l, p.routes[i].outside)
	}
	return rl, nil
}

func (rl *relay) serve(l net.Listener, dest string) {
	defer rl.wg.Done()
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		rl.wg.Add(1)
		go func() {
			defer rl.wg.Done()
			rl.pipe(in, dest)
		}()
	}
}

func (rl *relay) pipe(in net.Conn, dest string) {
	if !rl.track(in) {
		in.Close()
		return
	}
	defer rl.untrack(in)
	var d net.Dialer
	out, err := d.DialContext(context.Background(), "tcp", dest)
	if err != nil {
		return
	}
	if !rl.track(out) {
		out.Close()
		return
	}
	defer rl.untrack(out)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(out, in); closeWrite(out); done <- struct{}{} }()
	go func() { _, _ = io.Copy(in, out); closeWrite(in); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

func (rl *relay) track(c net.Conn) bool {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.conns == nil {
		return false
	}
	rl.conns[c] = struct{}{}
	return true
}

func (rl *relay) untrack(c net.Conn) {
	rl.mu.Lock()
	delete(rl.conns, c)
	rl.mu.Unlock()
	c.Close()
}

// stop closes the listeners and every open connection, and waits for the relay's
// goroutines.
func (rl *relay) stop() {
	for _, l := range rl.listeners {
		l.Close()
	}
	rl.mu.Lock()
	for c := range rl.conns {
		c.Close()
	}
	rl.conns = nil
	rl.mu.Unlock()
	rl.wg.Wait()
}
