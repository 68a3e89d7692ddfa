//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// answers is a resolver stub whose answer changes with each question: the DNS of a name
// that rebinds between the check and the dial.
type answers struct {
	mu   sync.Mutex
	seq  [][]netip.Addr
	errs []error
	n    int
}

func (a *answers) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := min(a.n, len(a.seq)-1)
	a.n++
	if i < len(a.errs) && a.errs[i] != nil {
		return nil, a.errs[i]
	}
	return a.seq[i], nil
}

func addrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

func TestNetResolverChecksEveryAddress(t *testing.T) {
	local := func() ([]netip.Addr, error) { return addrs("10.1.2.3", "fd00::7"), nil }
	name := NetRule{Host: "api.example.com", Port: 443}
	cases := []struct {
		rule   NetRule
		answer []netip.Addr
		err    error
		check  AddrCheck
		want   string // "" allowed, else a part of the refusal
	}{
		{rule: name, answer: addrs("203.0.113.7", "2001:db8::1")},
		{rule: name, answer: addrs("127.0.0.1"), want: "api.example.com leads to the loopback address 127.0.0.1"},
		{rule: name, answer: addrs("203.0.113.7", "127.0.0.53"), want: "loopback address 127.0.0.53"},
		{rule: name, answer: addrs("::1"), want: "loopback address ::1"},
		{rule: name, answer: addrs("::ffff:127.0.0.1"), want: "loopback address 127.0.0.1"},
		{rule: name, answer: addrs("169.254.169.254"), want: "link-local address 169.254.169.254"},
		{rule: name, answer: addrs("fe80::1"), want: "link-local address fe80::1"},
		{rule: name, answer: addrs("0.0.0.0"), want: "unspecified address 0.0.0.0"},
		{rule: name, answer: addrs("0.1.2.3"), want: "unspecified address 0.1.2.3"},
		{rule: name, answer: addrs("::"), want: "unspecified address ::"},
		{rule: name, answer: addrs("10.1.2.3"), want: "10.1.2.3, an address of this machine"},
		{rule: name, answer: addrs("fd00::7"), want: "fd00::7, an address of this machine"},
		{rule: name, answer: nil, want: "resolves to no address"},
		{rule: name, err: errors.New("no such host"), want: "does not resolve (no such host)"},
		{rule: name, answer: addrs("198.51.100.9"), check: func(r NetRule, a netip.Addr) string {
			if a == netip.MustParseAddr("198.51.100.9") {
				return "it is the fleet's own NATS server"
			}
			return ""
		}, want: "api.example.com:443: it is the fleet's own NATS server"},
		{rule: NetRule{Host: "127.0.0.1", Port: 5432}},
		{rule: NetRule{Host: "::1", Port: 5432}},
	}
	for _, c := range cases {
		stub := &answers{seq: [][]netip.Addr{c.answer}, errs: []error{c.err}}
		n := netResolver{resolve: stub.resolve, local: local, check: c.check}
		got, err := n.addrs(context.Background(), c.rule)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s -> %v: refused: %v", c.rule, c.answer, err)
		case c.want == "" && len(got) == 0:
			t.Errorf("%s -> %v: no address", c.rule, c.answer)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s -> %v: got %v, %v; want a refusal with %q", c.rule, c.answer, got, err, c.want)
		}
	}
}

// TestRelayDialsOnlyCheckedAddresses rebinds a name between two connections: the first
// answer is a public address, the second the loopback address. The relay must dial the
// first connection's checked address (never the name) and refuse the second without
// dialling anything.
func TestRelayDialsOnlyCheckedAddresses(t *testing.T) {
	stub := &answers{seq: [][]netip.Addr{addrs("203.0.113.7"), addrs("127.0.0.1")}}
	rl := newRelay(netResolver{resolve: stub.resolve, local: func() ([]netip.Addr, error) { return nil, nil }})
	dialled := make(chan string, 4)
	far := make(chan net.Conn, 4)
	rl.dial = func(_ context.Context, network, addr string) (net.Conn, error) {
		dialled <- addr
		a, b := net.Pipe()
		far <- b
		return a, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rl.listeners = []net.Listener{l}
	rl.wg.Add(1)
	go rl.serve(l, relayRoute{rule: NetRule{Host: "rebind.example", Port: 443}, port: 443})
	defer rl.stop()

	c1, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if got := <-dialled; got != "203.0.113.7:443" {
		t.Fatalf("first connection dialled %q, want the checked address 203.0.113.7:443", got)
	}
	remote := <-far
	go func() { _, _ = c1.Write([]byte("hi\n")) }()
	if line, err := bufio.NewReader(remote).ReadString('\n'); err != nil || line != "hi\n" {
		t.Fatalf("relayed %q, %v", line, err)
	}
	c1.Close()
	remote.Close()

	c2, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if n, err := c2.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("the rebound connection read %d, %v; want it closed", n, err)
	}
	select {
	case got := <-dialled:
		t.Fatalf("the rebound name was dialled: %s", got)
	default:
	}
	want := "rebind.example:443: rebind.example leads to the loopback address 127.0.0.1"
	if r := rl.refusals(); len(r) != 1 || !strings.HasPrefix(r[0], want) {
		t.Errorf("refusals = %q, want one starting %q", r, want)
	}
}

// TestAllowNetRebindingThroughTheSandbox runs the same attack end to end: a name allowed
// at start that resolves, when the command connects, to the spine's loopback, where a
// service listens. The connection is refused, the service never sees it, and the
// command's output says why.
func TestAllowNetRebindingThroughTheSandbox(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for n := 1; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprintf(c, "connection %d\n", n)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	jail := requireBubblewrap(t, BubblewrapOptions{AllowNet: []NetRule{{Host: "rebind.test", Port: port}}})
	stub := &answers{seq: [][]netip.Addr{addrs("127.0.0.1")}}
	jail.where.resolve = stub.resolve
	f := newFixture(t, Options{Jail: jail, OutsidePaths: []string{"/"}})
	talk := fmt.Sprintf(`python3 -c "
import socket
try:
    s = socket.create_connection(('rebind.test', %d), 5)
    print('got', repr(s.recv(100)))
except OSError as e:
    print('refused', type(e).__name__)
"`, port)
	res, err := f.sb.Shell(context.Background(), talk, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[sandbox: a connection was refused: rebind.test:%d: rebind.test leads to the loopback address 127.0.0.1", port)
	if !strings.Contains(res.Output, want) || strings.Contains(res.Output, "connection 1") {
		t.Errorf("output = %q, want the refusal %q and nothing from the service", res.Output, want)
	}
	// The service's connections are numbered in arrival order: if the sandbox's had
	// reached it, this one would be the second.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "connection 1\n" {
		t.Errorf("the service saw %q: the sandbox's connection reached it", line)
	}
}
