package fleet

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/taskrun"
)

// fakeDNS resolves the names of the policy tests.
var fakeDNS = map[string][]string{
	"api.example.com":    {"93.184.216.34"},
	"sneaky.example.com": {"93.184.216.35", "127.0.0.1"},
	"metadata.internal":  {"169.254.169.254"},
	"v6ll.example.com":   {"fe80::1"},
	"zero.example.com":   {"0.0.0.0"},
	"mapped.example.com": {"::ffff:127.0.0.1"},
	"nats.internal":      {"10.0.0.7"},
	"alias.internal":     {"10.0.0.7"},
	"self.example.com":   {"10.0.0.5"},
}

func fakeResolve(_ context.Context, host string) ([]netip.Addr, error) {
	as, ok := fakeDNS[strings.TrimSuffix(host, ".")]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range as {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func rules(t *testing.T, entries ...string) []sandbox.NetRule {
	t.Helper()
	var out []sandbox.NetRule
	for _, e := range entries {
		r, err := sandbox.ParseNetRule(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestNetPolicy: a task's entry is opened only within the worker's list, and never
// towards loopback, this machine, link-local, unspecified or the fleet's NATS server
// unless the worker's entry names that literally. Each refusal names the entry and why.
func TestNetPolicy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		worker []string
		fleet  []string
		task   []string
		refuse string // "" when opened; else a part of the refusal
	}{
		{"nothing asked", nil, nil, nil, ""},
		{"empty worker list", nil, nil, []string{"api.example.com:443"}, "this worker's --allow-net does not hold it (it allows no destination)"},
		{"within the list", []string{"api.example.com:443"}, nil, []string{"API.example.com.:443"}, ""},
		{"port-less worker entry holds 80 and 443", []string{"api.example.com"}, nil, []string{"api.example.com:80", "api.example.com:443", "api.example.com"}, ""},
		{"another port", []string{"api.example.com"}, nil, []string{"api.example.com:8080"}, "does not hold it (it allows api.example.com)"},
		{"names match as written, not by address", []string{"nats.internal:4222"}, nil, []string{"alias.internal:4222"}, "does not hold it"},
		{"task loopback, worker has none", []string{"api.example.com"}, []string{"127.0.0.1:4222"}, []string{"127.0.0.1:4222"}, "does not hold it"},
		{"name resolving partly to loopback", []string{"sneaky.example.com:443"}, nil, []string{"sneaky.example.com:443"}, "leads to the loopback address 127.0.0.1"},
		{"v4-mapped loopback is loopback", []string{"mapped.example.com:443"}, nil, []string{"mapped.example.com:443"}, "loopback address 127.0.0.1"},
		{"loopback named literally by the operator", []string{"127.0.0.1:8080"}, []string{"127.0.0.1:4222"}, []string{"localhost:8080"}, ""},
		{"link-local never", []string{"metadata.internal"}, nil, []string{"metadata.internal:80"}, "link-local address 169.254.169.254"},
		{"v6 link-local never", []string{"v6ll.example.com:443"}, nil, []string{"v6ll.example.com:443"}, "link-local address fe80::1"},
		{"unspecified never", []string{"zero.example.com:443"}, nil, []string{"zero.example.com:443"}, "unspecified address 0.0.0.0"},
		{"unresolvable name", []string{"gone.example.com:443"}, nil, []string{"gone.example.com:443"}, "gone.example.com does not resolve now"},
		{"this machine's own address", []string{"self.example.com:443"}, nil, []string{"self.example.com:443"}, "an address of the worker's own machine"},
		{"the fleet's NATS by another name", []string{"alias.internal:4222"}, []string{"nats.internal:4222"}, []string{"alias.internal:4222"}, "the fleet's own NATS server (nats.internal:4222)"},
		{"the fleet's NATS named by the operator", []string{"nats.internal:4222"}, []string{"nats.internal:4222"}, []string{"nats.internal:4222"}, ""},
		{"the fleet's NATS on loopback, operator named it literally", []string{"127.0.0.1:4222"}, []string{"localhost:4222"}, []string{"127.0.0.1:4222"}, ""},
		{"a local NATS on another loopback address", []string{"127.0.0.2:4222"}, []string{"127.0.0.1:4222"}, []string{"127.0.0.2:4222"}, "the fleet's own NATS server"},
		{"a local NATS through this machine's own address", []string{"self.example.com:4222"}, []string{"127.0.0.1:4222"}, []string{"self.example.com:4222"}, "the fleet's own NATS server"},
		{"not an entry", []string{"api.example.com"}, nil, []string{"10.0.0.1:22"}, "an IP address must be a loopback address"},
		{"the first refused entry fails", []string{"api.example.com"}, nil, []string{"api.example.com", "metadata.internal"}, "--allow-net metadata.internal is refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NetPolicy{Allow: rules(t, tc.worker...), Fleet: tc.fleet, Resolve: fakeResolve,
				LocalAddrs: func() ([]netip.Addr, error) {
					return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.5")}, nil
				}}
			got, err := p.TaskRules(context.Background(), tc.task)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(got) != len(tc.task) {
					t.Fatalf("opened %v for %v", got, tc.task)
				}
				return
			}
			var nr *NetRefusal
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), tc.refuse) {
				t.Fatalf("got %v (%v), want a refusal containing %q", got, err, tc.refuse)
			}
		})
	}
}

func TestCheckSubmitNet(t *testing.T) {
	ctx := context.Background()
	if err := CheckSubmitNet(ctx, rules(t, "api.example.com", "127.0.0.1:8080", "gone.example.com"), fakeResolve); err != nil {
		t.Errorf("refused what a worker may open: %v", err)
	}
	err := CheckSubmitNet(ctx, rules(t, "api.example.com", "metadata.internal"), fakeResolve)
	if err == nil || !strings.Contains(err.Error(), "--allow-net metadata.internal is refused: it leads to the link-local address 169.254.169.254") {
		t.Errorf("got %v", err)
	}
}

// TestTaskCannotOpenTheFleet: with a real fleet, a task asking for the fleet's own NATS
// server does not get it, whether the worker's list is empty or holds another way
// there; the task ends with the refusal, naming the entry, and no run starts.
func TestTaskCannotOpenTheFleet(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	srv, c := testFleet(t)
	ctx := context.Background()
	if _, err := c.workConsumer(ctx, 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	_, port, err := net.SplitHostPort(strings.TrimPrefix(srv.URL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	direct := "127.0.0.1:" + port
	// Another loopback address reaches a server listening on all of them.
	other := "127.0.0.2:" + port
	for _, tc := range []struct {
		name, entry string
		worker      []string
		want        string
	}{
		{"empty worker list", direct, nil, "the task's --allow-net " + direct + " is refused: this worker's --allow-net does not hold it (it allows no destination)"},
		{"worker lists another loopback address", other, []string{other}, "the task's --allow-net " + other + " is refused: " + other + " is the fleet's own NATS server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := c.Submit(ctx, demoTask+" ("+tc.name+")", RunOptions{AllowNet: []string{tc.entry}})
			if err != nil {
				t.Fatal(err)
			}
			prepared := 0
			prepare := DemoPrepare(rs, noSandbox())
			stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: t.TempDir(), AllowNet: rules(t, tc.worker...),
				Prepare: func(ctx context.Context, tk Task, work string) (taskrun.Config, error) {
					prepared++
					return prepare(ctx, tk, work)
				}})
			got := waitFinished(t, c, []string{st.ID}, 60*time.Second)[0]
			stop()
			if got.Final != nil || !strings.Contains(got.Error, tc.want) || prepared != 0 {
				t.Fatalf("final %+v, error %q, prepared %d times; want the error to hold %q", got.Final, got.Error, prepared, tc.want)
			}
			for _, a := range got.Attempts {
				if a.State != Failed || a.Trace != "" || !strings.Contains(a.Error, tc.want) {
					t.Errorf("attempt %d: %s, trace %q, error %q", a.N, a.State, a.Trace, a.Error)
				}
			}
		})
	}
}

// TestNetPolicyAtEveryConnection: the check the relay makes at each connection is the
// start-time policy, so a task name that was a public address when the task started and
// resolves to the fleet's NATS server, a loopback or this machine later is refused then.
func TestNetPolicyAtEveryConnection(t *testing.T) {
	p := NetPolicy{Allow: rules(t, "api.example.com:4222", "api.example.com"), Fleet: []string{"nats.internal:4222"}, Resolve: fakeResolve,
		LocalAddrs: func() ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.5")}, nil
		}}
	check, err := p.AddrCheck(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	nats := fakeDNS["nats.internal"][0]
	for _, c := range []struct {
		rule, addr, refuse string
	}{
		{"api.example.com:443", "203.0.113.7", ""},
		{"api.example.com:4222", "203.0.113.7", ""},
		{"api.example.com:4222", nats, "the fleet's own NATS server (nats.internal:4222)"},
		{"api.example.com:443", "127.0.0.1", "leads to the loopback address 127.0.0.1"},
		{"api.example.com:443", "10.0.0.5", "an address of the worker's own machine"},
		{"api.example.com:443", "169.254.169.254", "link-local"},
		{"other.example.com:443", "203.0.113.7", "this worker's --allow-net does not hold other.example.com:443"},
	} {
		got := check(rules(t, c.rule)[0], netip.MustParseAddr(c.addr))
		if c.refuse == "" && got != "" || c.refuse != "" && !strings.Contains(got, c.refuse) {
			t.Errorf("%s → %s: %q, want %q", c.rule, c.addr, got, c.refuse)
		}
	}
}
