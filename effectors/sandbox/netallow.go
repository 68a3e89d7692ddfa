package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// NetRule is one destination a sandboxed command may reach: a host name or a loopback
// address, and a port (0: ports 80 and 443).
type NetRule struct {
	Host string
	Port int
}

// String gives the rule as it is written on the command line.
func (r NetRule) String() string {
	host := r.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if r.Port == 0 {
		return host
	}
	return host + ":" + strconv.Itoa(r.Port)
}

// ParseNetRule reads HOST[:PORT] ([V6]:PORT for IPv6). A host is a DNS name or a loopback
// address: the sandbox has no route anywhere, so a destination is reached through a relay
// that listens inside the sandbox, on the host's loopback address or, for a name, on a
// private loopback address the sandbox's /etc/hosts gives the name.
func ParseNetRule(s string) (NetRule, error) {
	host, port := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return NetRule{}, fmt.Errorf("allow-net %q: missing ] after the IPv6 address", s)
		}
		host, port = s[1:end], strings.TrimPrefix(s[end+1:], ":")
		if rest := s[end+1:]; rest != "" && !strings.HasPrefix(rest, ":") {
			return NetRule{}, fmt.Errorf("allow-net %q: expected :PORT after ]", s)
		}
	case strings.Count(s, ":") == 1:
		host, port, _ = strings.Cut(s, ":")
	}
	r := NetRule{Host: strings.ToLower(host)}
	if r.Host == "localhost" {
		r.Host = "127.0.0.1" // the sandbox's own /etc/hosts already names its loopback so
	}
	if port != "" || strings.HasSuffix(s, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return NetRule{}, fmt.Errorf("allow-net %q: port %q is not a number in 1..65535", s, port)
		}
		r.Port = n
	}
	if ip, err := netip.ParseAddr(r.Host); err == nil {
		if !ip.IsLoopback() {
			return NetRule{}, fmt.Errorf("allow-net %q: an IP address must be a loopback address; name other hosts by their DNS name", s)
		}
		return r, nil
	}
	if !validHostName(r.Host) {
		return NetRule{}, fmt.Errorf("allow-net %q: expected HOST[:PORT], where HOST is a DNS name or a loopback address", s)
	}
	return r, nil
}

func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// relayPlan is where, inside the sandbox, each allowed destination is listened for.
type relayPlan struct {
	hosts  []string // /etc/hosts lines for named hosts
	routes []relayRoute
}

type relayRoute struct {
	inside netip.AddrPort // listened on in the sandbox's network namespace
	rule   NetRule        // what is dialled from the spine's own namespace: its host,
	port   uint16         // resolved and checked at each connection, and this port
}

// outside is the destination as the rule names it.
func (r relayRoute) outside() string {
	return net.JoinHostPort(r.rule.Host, strconv.Itoa(int(r.port)))
}

func planRelays(rules []NetRule) relayPlan {
	var p relayPlan
	named := map[string]netip.Addr{}
	next := netip.AddrFrom4([4]byte{127, 0, 100, 1})
	for _, r := range rules {
		addr, err := netip.ParseAddr(r.Host)
		if err != nil {
			if a, ok := named[r.Host]; ok {
				addr = a
			} else {
				addr, next = next, next.Next()
				named[r.Host] = addr
				p.hosts = append(p.hosts, addr.String()+"\t"+r.Host)
			}
		}
		ports := []int{r.Port}
		if r.Port == 0 {
			ports = []int{80, 443}
		}
		for _, port := range ports {
			p.routes = append(p.routes, relayRoute{
				inside: netip.AddrPortFrom(addr, uint16(port)),
				rule:   r,
				port:   uint16(port),
			})
		}
	}
	return p
}

// etcHosts is the sandbox's /etc/hosts.
func (p relayPlan) etcHosts() string {
	var b strings.Builder
	b.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	for _, h := range p.hosts {
		b.WriteString(h + "\n")
	}
	return b.String()
}
