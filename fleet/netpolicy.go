package fleet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentspine/spine/effectors/sandbox"
)

// The worker decides a task's network, not the task.
//
// A task's --allow-net entries are requests. A worker opens one only when
//   - its own --allow-net (WorkerConfig.AllowNet, its operator's; empty by default)
//     covers it: the same host, written the same way (names compare case-insensitively,
//     without a trailing dot, never by what they resolve to, and with no wildcards; an
//     address matches only the same address), and the same port, or no port on either
//     side, or the task's port 80 or 443 under a worker entry without a port (which
//     means both);
//   - and none of the addresses the host has now leads somewhere a task may never go
//     unless the operator named it literally: loopback (127/8, ::1) and this machine's
//     own interface addresses open only under a worker entry that is the loopback
//     address itself; the fleet's NATS server(s) only under a worker entry that names the
//     server's host (or address) and port; link-local (169.254/16, fe80::/10, where cloud
//     metadata services answer) and unspecified (0/8, ::) addresses never.
//
// A name is resolved when the task starts, and every address it has then is checked: a
// name that resolves to loopback is loopback. A name that does not resolve is refused.

// NetPolicy decides which of a task's --allow-net entries a worker opens.
type NetPolicy struct {
	// Allow is the worker's own list: the most any task may reach.
	Allow []sandbox.NetRule
	// Fleet are the fleet's NATS servers as host:port, as the worker reaches them.
	Fleet []string
	// Resolve gives a host name's addresses; nil: the system's resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// LocalAddrs gives this machine's interface addresses; nil: the system's.
	LocalAddrs func() ([]netip.Addr, error)
}

// NetRefusal is a task's --allow-net entry the worker will not open, and why.
type NetRefusal struct {
	Entry  string
	Reason string
}

func (e *NetRefusal) Error() string {
	return fmt.Sprintf("the task's --allow-net %s is refused: %s", e.Entry, e.Reason)
}

// TaskRules returns the rules a task's entries ask for, each checked, or a *NetRefusal
// for the first entry the worker will not open.
func (p *NetPolicy) TaskRules(ctx context.Context, entries []string) ([]sandbox.NetRule, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	fleet, local, err := p.known(ctx)
	if err != nil {
		return nil, err
	}
	var out []sandbox.NetRule
	for _, entry := range entries {
		r, err := sandbox.ParseNetRule(entry)
		if err != nil {
			return nil, &NetRefusal{Entry: entry, Reason: err.Error()}
		}
		cover, ok := p.covering(r)
		if !ok {
			return nil, &NetRefusal{Entry: entry, Reason: "this worker's --allow-net does not hold it (" + p.allowed() + ")"}
		}
		addrs, err := p.addrs(ctx, r.Host)
		if err != nil {
			return nil, &NetRefusal{Entry: entry, Reason: err.Error()}
		}
		for _, a := range addrs {
			if why := p.forbidden(r, cover, a, local, fleet); why != "" {
				return nil, &NetRefusal{Entry: entry, Reason: why}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// known reads the fleet's NATS addresses and this machine's own.
func (p *NetPolicy) known(ctx context.Context) ([]fleetAddr, []netip.Addr, error) {
	fleet, err := p.fleetAddrs(ctx)
	if err != nil {
		return nil, nil, err
	}
	var local []netip.Addr
	if p.LocalAddrs != nil {
		local, err = p.LocalAddrs()
	} else {
		local, err = interfaceAddrs()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("fleet: this machine's addresses: %w", err)
	}
	return fleet, local, nil
}

// AddrCheck is the policy as the sandbox's relay asks it at every connection: the same
// judgement TaskRules made at the start, on the addresses a name resolves to now. The
// fleet's and this machine's addresses are read once, here.
func (p *NetPolicy) AddrCheck(ctx context.Context) (sandbox.AddrCheck, error) {
	fleet, local, err := p.known(ctx)
	if err != nil {
		return nil, err
	}
	return func(r sandbox.NetRule, a netip.Addr) string {
		cover, ok := p.covering(r)
		if !ok {
			return "this worker's --allow-net does not hold " + r.String()
		}
		return p.forbidden(r, cover, a, local, fleet)
	}, nil
}

// CheckSubmitNet refuses, before a task is queued, the entries no worker may ever open:
// a name that resolves, where it is submitted, to a link-local or unspecified address.
// Everything else depends on the worker's list and is decided there.
func CheckSubmitNet(ctx context.Context, rules []sandbox.NetRule, resolve func(context.Context, string) ([]netip.Addr, error)) error {
	if resolve == nil {
		resolve = lookup
	}
	for _, r := range rules {
		if _, err := netip.ParseAddr(r.Host); err == nil {
			continue // ParseNetRule takes loopback addresses only
		}
		addrs, err := resolve(ctx, r.Host)
		if err != nil {
			continue // the worker resolves it again, and refuses it if it still does not
		}
		for _, a := range addrs {
			if why := neverClass(a.Unmap()); why != "" {
				return &NetRefusal{Entry: r.String(), Reason: why}
			}
		}
	}
	return nil
}

// covering is the worker's entry that holds r.
func (p *NetPolicy) covering(r sandbox.NetRule) (sandbox.NetRule, bool) {
	for _, w := range p.Allow {
		if sameHost(w.Host, r.Host) && (w.Port == r.Port || w.Port == 0 && (r.Port == 80 || r.Port == 443)) {
			return w, true
		}
	}
	return sandbox.NetRule{}, false
}

func (p *NetPolicy) allowed() string {
	if len(p.Allow) == 0 {
		return "it allows no destination"
	}
	s := make([]string, len(p.Allow))
	for i, w := range p.Allow {
		s[i] = w.String()
	}
	return "it allows " + strings.Join(s, ", ")
}

func sameHost(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(b, "."))
}

// addrs is where host leads now: itself when it is an address, else every address it
// resolves to.
func (p *NetPolicy) addrs(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	resolve := p.Resolve
	if resolve == nil {
		resolve = lookup
	}
	as, err := resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("%s does not resolve now (%v); the worker opens only a name whose addresses it can check", host, err)
	}
	if len(as) == 0 {
		return nil, fmt.Errorf("%s resolves to no address", host)
	}
	out := make([]netip.Addr, len(as))
	for i, a := range as {
		out[i] = a.Unmap()
	}
	return out, nil
}

// forbidden says why r (held by the worker's entry cover) may not reach a, or "".
func (p *NetPolicy) forbidden(r, cover sandbox.NetRule, a netip.Addr, local []netip.Addr, fleet []fleetAddr) string {
	if why := neverClass(a); why != "" {
		return why
	}
	_, literal := netip.ParseAddr(cover.Host)
	explicit := literal == nil // the operator wrote the address itself
	for _, port := range rulePorts(r) {
		for _, f := range fleet {
			if f.port != port || !(f.addr == a || f.local && (a.IsLoopback() || slices.Contains(local, a))) {
				continue
			}
			if cover.Port == port && (sameHost(cover.Host, f.host) || explicit && f.addr == a) {
				continue // the operator named the fleet's server itself
			}
			return fmt.Sprintf("%s:%d is the fleet's own NATS server (%s); only a worker's --allow-net naming that server's host and port opens it", a, port, net.JoinHostPort(f.host, strconv.Itoa(f.port)))
		}
	}
	switch {
	case a.IsLoopback() && !explicit:
		return fmt.Sprintf("%s leads to the loopback address %s; only a worker's --allow-net entry that is the loopback address itself opens loopback", r.Host, a)
	case !a.IsLoopback() && slices.Contains(local, a):
		return fmt.Sprintf("%s leads to %s, an address of the worker's own machine, where every local service listens", r.Host, a)
	}
	return ""
}

// neverClass says why no task may reach a, whatever the worker allows, or "": the
// sandbox's relay applies the same rule again at every connection.
func neverClass(a netip.Addr) string { return sandbox.NeverReached(a) }

func rulePorts(r sandbox.NetRule) []int {
	if r.Port == 0 {
		return []int{80, 443}
	}
	return []int{r.Port}
}

// fleetAddr is one address of a NATS server of the fleet, with the host it was named by.
// local marks a server on this machine: its port is then the server on every local
// address, since a server listens on all of them unless told otherwise.
type fleetAddr struct {
	host  string
	addr  netip.Addr
	port  int
	local bool
}

func (p *NetPolicy) fleetAddrs(ctx context.Context) ([]fleetAddr, error) {
	var out []fleetAddr
	for _, hp := range p.Fleet {
		host, port, err := net.SplitHostPort(hp)
		if err != nil {
			return nil, fmt.Errorf("fleet: NATS server %q: %w", hp, err)
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			return nil, fmt.Errorf("fleet: NATS server %q: port %q", hp, port)
		}
		if strings.EqualFold(host, "localhost") {
			host = "127.0.0.1"
		}
		addrs, err := p.addrs(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("fleet: NATS server %s: %w", hp, err)
		}
		for _, a := range addrs {
			out = append(out, fleetAddr{host: host, addr: a, port: n, local: a.IsLoopback() || a.IsUnspecified()})
		}
	}
	return out, nil
}

func lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func interfaceAddrs() ([]netip.Addr, error) { return sandbox.InterfaceAddrs() }

// serverAddrs are the fleet's NATS servers as host:port: those the client was given,
// those the cluster announced, and the one it is connected to.
func (c *Client) serverAddrs() []string {
	var out []string
	add := func(u string) {
		if !strings.Contains(u, "://") {
			u = "nats://" + u
		}
		pu, err := url.Parse(strings.TrimSpace(u))
		if err != nil || pu.Hostname() == "" {
			return
		}
		port := pu.Port()
		if port == "" {
			port = "4222"
		}
		hp := net.JoinHostPort(pu.Hostname(), port)
		if !slices.Contains(out, hp) {
			out = append(out, hp)
		}
	}
	for _, u := range strings.Split(c.url, ",") {
		add(u)
	}
	for _, u := range c.nc.Servers() {
		add(u)
	}
	for _, u := range c.nc.DiscoveredServers() {
		add(u)
	}
	if a := c.nc.ConnectedAddr(); a != "" {
		add(a)
	}
	return out
}
