package fleet

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/engine"
)

// ConnectOptions say how to reach a NATS server and prove who is asking. Only one kind
// of credential may be given: a user and password, a token, an NKey seed file or a
// creds file. None of them is ever written to a trace, a status or a log.
type ConnectOptions struct {
	URL            string // nats://host:port, or several separated by commas
	User, Password string
	Token          string
	NKeyFile       string // a file holding an NKey seed (SU…)
	CredsFile      string // a user JWT and seed, as nsc writes them
	// TLS: a CA to trust, and a client certificate and key for servers that ask.
	CAFile, CertFile, KeyFile string
	Name                      string // the connection's name the server shows

	// OnDisconnect hears that the connection dropped (err may be nil); OnReconnect that
	// it is back. Between them the client tries to reconnect, forever, with backoff
	// (ReconnectDelay); what it publishes meanwhile is buffered and sent once it is back.
	OnDisconnect func(err error)
	OnReconnect  func()
	// Clock stamps statuses; IDs names tasks. nil: the wall clock and random ids.
	Clock clock.Clock
	IDs   engine.IDSource
}

// Client is a connection to the fleet's JetStream.
type Client struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	clock  clock.Clock
	ids    engine.IDSource
	url    string
	status jetstream.KeyValue
	traces jetstream.ObjectStore
	snaps  snapRemote // the fleet's snapshot objects (snapstore.go)
}

// natsOptions turns o into nats.go's options, refusing mixed credentials.
func (o ConnectOptions) natsOptions() ([]nats.Option, error) {
	kinds := 0
	for _, set := range []bool{o.User != "" || o.Password != "", o.Token != "", o.NKeyFile != "", o.CredsFile != ""} {
		if set {
			kinds++
		}
	}
	if kinds > 1 {
		return nil, errors.New("give one kind of NATS credential: a user and password, a token, an NKey seed file or a creds file")
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, errors.New("a TLS client certificate needs its key, and a key its certificate")
	}
	name := o.Name
	if name == "" {
		name = "spine"
	}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(ReconnectDelay(reconnectSpread(name)))}
	switch {
	case o.User != "":
		opts = append(opts, nats.UserInfo(o.User, o.Password))
	case o.Token != "":
		opts = append(opts, nats.Token(o.Token))
	case o.NKeyFile != "":
		opt, err := nats.NkeyOptionFromSeed(o.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("NKey seed file %s: %w", o.NKeyFile, err)
		}
		opts = append(opts, opt)
	case o.CredsFile != "":
		opts = append(opts, nats.UserCredentials(o.CredsFile))
	}
	if o.CAFile != "" {
		opts = append(opts, nats.RootCAs(o.CAFile))
	}
	if o.CertFile != "" {
		opts = append(opts, nats.ClientCert(o.CertFile, o.KeyFile))
	}
	if o.OnDisconnect != nil {
		opts = append(opts, nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { o.OnDisconnect(err) }))
	}
	if o.OnReconnect != nil {
		opts = append(opts, nats.ReconnectHandler(func(*nats.Conn) { o.OnReconnect() }))
	}
	return opts, nil
}

// Connect connects to the server at o.URL and makes sure the fleet's streams, buckets
// and consumer exist (Setup).
func Connect(ctx context.Context, o ConnectOptions) (*Client, error) {
	if strings.TrimSpace(o.URL) == "" {
		return nil, errors.New("fleet: no NATS URL (start one with spine serve, or give --nats URL)")
	}
	opts, err := o.natsOptions()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	shown := RedactURL(o.URL)
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		// nats.go's errors name no credential; the URL is shown without its user part.
		return nil, fmt.Errorf("fleet: connecting to %s: %w", shown, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("fleet: %s: %w", shown, err)
	}
	c := &Client{nc: nc, js: js, clock: o.Clock, ids: o.IDs, url: shown}
	if c.clock == nil {
		c.clock = clock.System{}
	}
	if c.ids == nil {
		c.ids = engine.RandomIDs{}
	}
	if err := c.setup(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("fleet: %s: %w", shown, err)
	}
	return c, nil
}

// URL is the server's address as shown: without credentials.
func (c *Client) URL() string { return c.url }

// Connected reports whether the connection is up now.
func (c *Client) Connected() bool { return c.nc.IsConnected() }

// Closed reports whether the connection is closed for good: closed by Close, or given up
// by the client (a server that refuses its credentials on reconnecting).
func (c *Client) Closed() bool { return c.nc.IsClosed() }

// Close drains what the client published and closes the connection.
func (c *Client) Close() {
	_ = c.nc.Drain()
	for i := 0; i < 100 && !c.nc.IsClosed(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	c.nc.Close()
}

// RedactURL removes the user information from every URL of a comma-separated list, so
// it can be shown or logged.
func RedactURL(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		u, err := url.Parse(p)
		if err != nil || u.Host == "" {
			// Not a URL we can take apart: keep only what follows an @.
			if at := strings.LastIndex(p, "@"); at >= 0 {
				p = "…@" + p[at+1:]
			}
			parts[i] = p
			continue
		}
		if u.User != nil {
			u.User = nil
			parts[i] = u.String()
		} else {
			parts[i] = p
		}
	}
	return strings.Join(parts, ",")
}

// Reconnection backoff: the first retry after MinReconnectWait, doubling up to
// MaxReconnectWait.
const (
	MinReconnectWait = 250 * time.Millisecond
	MaxReconnectWait = 4 * time.Second
)

// ReconnectDelay is the pause before the attempts-th round of reconnecting (1, 2, …):
// MinReconnectWait doubled each round up to MaxReconnectWait, lengthened by spread (in
// [0, 1)) of a quarter of it, so that the clients of a restarted server do not all come
// back at once.
func ReconnectDelay(spread float64) func(attempts int) time.Duration {
	return func(attempts int) time.Duration {
		d := MinReconnectWait
		for i := 1; i < attempts && d < MaxReconnectWait; i++ {
			d *= 2
		}
		d = min(d, MaxReconnectWait)
		return d + time.Duration(spread*float64(d/4))
	}
}

// reconnectSpread is this client's share of the reconnection jitter: a hash of what
// tells it from the others (the host, the process, the connection's name), not a random
// draw, which the fleet does not make.
func reconnectSpread(name string) float64 {
	host, _ := os.Hostname()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%s", host, os.Getpid(), name)
	return float64(h.Sum64()%1024) / 1024
}
