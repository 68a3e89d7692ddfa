package sandbox

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// relay forwards connections made inside one sandbox to the allowed destinations. It
// resolves a destination's name at each connection, checks every address (see
// netResolver), and dials only an address it checked: never the name itself.
type relay struct {
	listeners []net.Listener
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     map[net.Conn]struct{}
	refused   []string // why connections were refused, once each

	where  netResolver
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	ctx    context.Context // cancelled by stop: no resolution or dial outlives the call
	cancel context.CancelFunc
}

// relayDialTimeout bounds the resolution and the dial of one connection.
const relayDialTimeout = 30 * time.Second

func newRelay(where netResolver) *relay {
	ctx, cancel := context.WithCancel(context.Background())
	var d net.Dialer
	return &relay{conns: map[net.Conn]struct{}{}, where: where, dial: d.DialContext, ctx: ctx, cancel: cancel}
}

// startRelay opens the plan's listeners in the network namespace of process pid (the
// sandbox's init) and serves them until stop. Opening a socket in another namespace needs
// CAP_SYS_ADMIN there and here, which is why allowing network needs root.
func startRelay(pid int, p relayPlan, where netResolver) (*relay, error) {
	rl := newRelay(where)
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
		go rl.serve(l, p.routes[i])
	}
	return rl, nil
}

func (rl *relay) serve(l net.Listener, dest relayRoute) {
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

func (rl *relay) pipe(in net.Conn, dest relayRoute) {
	if !rl.track(in) {
		in.Close()
		return
	}
	defer rl.untrack(in)
	out, err := rl.connect(dest)
	if err != nil {
		rl.refuse(err.Error())
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

// connect resolves dest's host now, checks every address it has, and dials the checked
// addresses in turn.
func (rl *relay) connect(dest relayRoute) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(rl.ctx, relayDialTimeout)
	defer cancel()
	addrs, err := rl.where.addrs(ctx, dest.rule)
	if err != nil {
		return nil, err
	}
	var first error
	for _, a := range addrs {
		c, err := rl.dial(ctx, "tcp", netip.AddrPortFrom(a, dest.port).String())
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, fmt.Errorf("%s: %w", dest.outside(), first)
}

// refuse records why a connection was refused, once per reason.
func (rl *relay) refuse(why string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if !slices.Contains(rl.refused, why) {
		rl.refused = append(rl.refused, why)
	}
}

// refusals are the reasons recorded, in the order first seen.
func (rl *relay) refusals() []string {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return slices.Clone(rl.refused)
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
	rl.cancel()
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
