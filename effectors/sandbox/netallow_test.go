//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func TestParseNetRule(t *testing.T) {
	cases := []struct {
		in, want, err string
	}{
		{in: "api.example.com", want: "api.example.com"},
		{in: "API.Example.com:8443", want: "api.example.com:8443"},
		{in: "127.0.0.1:5432", want: "127.0.0.1:5432"},
		{in: "localhost:6379", want: "127.0.0.1:6379"},
		{in: "[::1]:80", want: "[::1]:80"},
		{in: "10.0.0.5:80", err: `allow-net "10.0.0.5:80": an IP address must be a loopback address; name other hosts by their DNS name`},
		{in: "example.com:0", err: `allow-net "example.com:0": port "0" is not a number in 1..65535`},
		{in: "example.com:http", err: `allow-net "example.com:http": port "http" is not a number in 1..65535`},
		{in: "example.com:", err: `allow-net "example.com:": port "" is not a number in 1..65535`},
		{in: "[::1", err: `allow-net "[::1": missing ] after the IPv6 address`},
		{in: "[::1]x", err: `allow-net "[::1]x": expected :PORT after ]`},
		{in: "exa mple.com", err: `allow-net "exa mple.com": expected HOST[:PORT], where HOST is a DNS name or a loopback address`},
		{in: "", err: `allow-net "": expected HOST[:PORT], where HOST is a DNS name or a loopback address`},
		{in: "-bad.com", err: `allow-net "-bad.com": expected HOST[:PORT], where HOST is a DNS name or a loopback address`},
	}
	for _, c := range cases {
		r, err := ParseNetRule(c.in)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseNetRule(%q) = %v, %v; want error %q", c.in, r, err, c.err)
			}
		case err != nil || r.String() != c.want:
			t.Errorf("ParseNetRule(%q) = %q, %v; want %q", c.in, r.String(), err, c.want)
		}
	}
}

func TestPlanRelays(t *testing.T) {
	p := planRelays([]NetRule{{Host: "api.example.com"}, {Host: "127.0.0.1", Port: 5432}, {Host: "api.example.com", Port: 8443}, {Host: "pypi.org", Port: 443}})
	var got []string
	for _, r := range p.routes {
		got = append(got, r.inside.String()+"->"+r.outside())
	}
	want := "127.0.100.1:80->api.example.com:80 127.0.100.1:443->api.example.com:443 127.0.0.1:5432->127.0.0.1:5432 " +
		"127.0.100.1:8443->api.example.com:8443 127.0.100.2:443->pypi.org:443"
	if strings.Join(got, " ") != want {
		t.Errorf("routes = %s\nwant     %s", strings.Join(got, " "), want)
	}
	if !strings.HasSuffix(p.etcHosts(), "127.0.100.1\tapi.example.com\n127.0.100.2\tpypi.org\n") {
		t.Errorf("hosts = %q", p.etcHosts())
	}
}

// echoServer answers each line with "echo: " and the line.
func echoServer(t *testing.T) (port int, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				fmt.Fprintf(c, "echo: %s", line)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, func() { ln.Close() }
}

func TestAllowNetReachesOnlyTheNamedPort(t *testing.T) {
	allowed, stopA := echoServer(t)
	defer stopA()
	other, stopB := echoServer(t)
	defer stopB()
	jail := requireBubblewrap(t, BubblewrapOptions{AllowNet: []NetRule{{Host: "127.0.0.1", Port: allowed}}})
	if iso := jail.Describe(); len(iso.AllowNet) != 1 || iso.AllowNet[0] != fmt.Sprintf("127.0.0.1:%d", allowed) {
		t.Errorf("Describe().AllowNet = %v", iso.AllowNet)
	}
	f := newFixture(t, Options{Jail: jail, OutsidePaths: []string{"/"}})
	talk := `python3 -c "
import socket, sys
for port in (%d, %d):
    try:
        s = socket.create_connection(('127.0.0.1', port), 2)
        s.sendall(b'hi\n'); print(port, s.recv(100).decode().strip())
    except OSError as e:
        print(port, 'refused', type(e).__name__)
"`
	res, err := f.sb.Shell(context.Background(), fmt.Sprintf(talk, allowed, other), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d echo: hi\n%d refused ConnectionRefusedError\n", allowed, other)
	if res.Output != want {
		t.Errorf("output = %q, want %q", res.Output, want)
	}
}
