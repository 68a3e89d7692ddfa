package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
)

// Where an allowed name may lead. A rule names a host; what the host's name resolves to
// can change between the moment a rule is checked (a fleet worker checks a task's
// entries when the task starts) and the moment a command connects: DNS rebinding. So the
// relay resolves the name again at every connection, checks every address the name has
// then, and dials only an address it checked. A name leads nowhere a rule could not
// name literally:
//   - unspecified (0/8, ::) and link-local (169.254/16, fe80::/10, where cloud metadata
//     services answer) addresses never;
//   - loopback (127/8, ::1) only for a rule that is the loopback address itself;
//   - this machine's own interface addresses, where every local service listens, never
//     for a name.
// Callers with more to forbid (a fleet worker: its NATS servers) add their own check.

// AddrCheck says why rule r may not lead to address a, or "" when it may.
type AddrCheck func(r NetRule, a netip.Addr) string

// NeverReached says why no rule, whatever names it, may lead to a, or "".
func NeverReached(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsUnspecified() || a.Is4() && a.As4()[0] == 0:
		return fmt.Sprintf("it leads to the unspecified address %s, which reaches the worker's own machine", a)
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return fmt.Sprintf("it leads to the link-local address %s (169.254/16, fe80::/10: where cloud metadata services answer), which no task may reach", a)
	}
	return ""
}

// forbiddenAddr applies the rules above to a, one of the addresses r's host has now;
// local are this machine's interface addresses.
func forbiddenAddr(r NetRule, a netip.Addr, local []netip.Addr) string {
	a = a.Unmap()
	if why := NeverReached(a); why != "" {
		return why
	}
	lit, err := netip.ParseAddr(r.Host)
	if err == nil {
		if lit.Unmap() != a {
			return fmt.Sprintf("%s is not the address %s", a, r.Host) // cannot happen: a literal is not resolved
		}
		return ""
	}
	switch {
	case a.IsLoopback():
		return fmt.Sprintf("%s leads to the loopback address %s; only an --allow-net entry that is the loopback address itself opens loopback", r.Host, a)
	case slices.Contains(local, a):
		return fmt.Sprintf("%s leads to %s, an address of this machine, where every local service listens", r.Host, a)
	}
	return ""
}

// netResolver finds where a rule leads when a command connects.
type netResolver struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error) // nil: the system's
	local   func() ([]netip.Addr, error)                                 // nil: the system's
	check   AddrCheck                                                    // the caller's own, or nil
}

// addrs resolves r's host and checks every address it has; the error names the first
// address refused, and nothing of the name is dialled then.
func (n netResolver) addrs(ctx context.Context, r NetRule) ([]netip.Addr, error) {
	var as []netip.Addr
	if a, err := netip.ParseAddr(r.Host); err == nil {
		as = []netip.Addr{a.Unmap()}
	} else {
		resolve := n.resolve
		if resolve == nil {
			resolve = lookupIP
		}
		found, err := resolve(ctx, r.Host)
		if err != nil {
			return nil, fmt.Errorf("%s does not resolve (%v)", r.Host, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s resolves to no address", r.Host)
		}
		for _, a := range found {
			as = append(as, a.Unmap())
		}
	}
	localAddrs := n.local
	if localAddrs == nil {
		localAddrs = InterfaceAddrs
	}
	local, err := localAddrs()
	if err != nil {
		return nil, fmt.Errorf("this machine's addresses: %w", err)
	}
	for _, a := range as {
		why := forbiddenAddr(r, a, local)
		if why == "" && n.check != nil {
			why = n.check(r, a)
		}
		if why != "" {
			return nil, fmt.Errorf("%s: %s", r, why)
		}
	}
	return as, nil
}

func lookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// InterfaceAddrs are this machine's interface addresses.
func InterfaceAddrs() ([]netip.Addr, error) {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	for _, a := range as {
		if pfx, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, pfx.Addr().Unmap())
		}
	}
	return out, nil
}
