package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/secrets"
)

// Bounds on what a server may send: one JSON-RPC frame (a larger reply breaks the
// connection, a tool_unavailable fault) and the number of tools listed.
const (
	MaxFrameBytes = 4 << 20
	MaxTools      = 128
	stderrKeep    = 4 << 10
)

// server is one started server and its session.
type server struct {
	cfg     Server
	session *sdk.ClientSession
	proc    *sandbox.Running // a stdio server's process; nil for a url
	stderr  *tail

	mu   sync.Mutex
	dead error // why the server is gone; nil while it answers
}

// Env is where a server entry's environment names are read.
type Env func(name string) (string, bool)

// connect starts (stdio) or reaches (url) one server and opens its session.
func connect(ctx context.Context, s Server, starter sandbox.Starter, dir string, env Env) (*server, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	srv := &server{cfg: s, stderr: &tail{max: stderrKeep}}
	var transport sdk.Transport
	if s.URL != "" {
		t, err := httpTransport(s, env)
		if err != nil {
			return nil, err
		}
		transport = t
	} else {
		if starter == nil {
			return nil, errNoStarter
		}
		prog, err := program(s, dir, env)
		if err != nil {
			return nil, err
		}
		prog.Stderr = srv.stderr
		// The server lives as long as the run: its context is not the start's.
		if srv.proc, err = starter.Start(context.WithoutCancel(ctx), prog); err != nil {
			return nil, fmt.Errorf("starting %s: %w", prog.Argv[0], err)
		}
		transport = &sdk.IOTransport{Reader: srv.proc.Stdout, Writer: srv.proc.Stdin, MaxLineLength: MaxFrameBytes}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "spine", Version: "1"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		srv.stop()
		return nil, srv.explain(err)
	}
	srv.session = session
	return srv, nil
}

// list asks the server for its tools, at most MaxTools of them.
func (s *server) list(ctx context.Context) ([]*sdk.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var tools []*sdk.Tool
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, s.explain(err)
		}
		if len(tools) == MaxTools {
			return nil, fmt.Errorf("it lists more than %d tools", MaxTools)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// explain adds what the server wrote on stderr, or how its process ended, to an error.
func (s *server) explain(err error) error {
	if s.proc != nil {
		select {
		case <-s.proc.Done():
			err = fmt.Errorf("%w (the process ended: %v)", err, s.proc.Err())
		default:
		}
	}
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		err = fmt.Errorf("%w; its stderr ends: %s", err, clipRunes(lastLines(t, 3), 300))
	}
	return err
}

// fail marks the server gone and stops what is left of it.
func (s *server) fail(err error) error {
	s.mu.Lock()
	if s.dead == nil {
		s.dead = err
	}
	err = s.dead
	s.mu.Unlock()
	s.stop()
	return err
}

func (s *server) gone() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// stop closes the session and ends the process and everything it started.
func (s *server) stop() {
	if s.session != nil {
		_ = s.session.Close()
	}
	if s.proc != nil {
		_ = s.proc.Stop()
	}
}

// program is the sandboxed process of a stdio server: the command found on this
// machine's PATH (or relative to the work dir), an environment of PATH, LANG, LC_*, TZ
// and the names the entry lists, HOME the work dir.
func program(s Server, dir string, env Env) (sandbox.Program, error) {
	cmd := s.Command
	switch {
	case filepath.IsAbs(cmd):
	case strings.Contains(cmd, "/"):
		cmd = filepath.Join(dir, cmd)
	default:
		p, err := exec.LookPath(cmd)
		if err != nil {
			return sandbox.Program{}, fmt.Errorf("command %q: %w", s.Command, err)
		}
		if cmd, err = filepath.Abs(p); err != nil {
			return sandbox.Program{}, err
		}
	}
	if fi, err := os.Stat(cmd); err != nil || fi.IsDir() {
		return sandbox.Program{}, fmt.Errorf("command %s: not an executable file", cmd)
	}
	vars := []string{"HOME=" + dir}
	for _, name := range []string{"PATH", "LANG", "TZ"} {
		if v, ok := env(name); ok {
			vars = append(vars, name+"="+v)
		}
	}
	for _, name := range s.Env {
		v, ok := env(name)
		if !ok {
			return sandbox.Program{}, fmt.Errorf("env %s is not set", name)
		}
		vars = append(vars, name+"="+v)
	}
	p := sandbox.Program{Argv: append([]string{cmd}, s.Args...), Dir: dir, Env: vars, ReadOnly: s.ReadOnly}
	for _, r := range s.AllowNet {
		rule, err := sandbox.ParseNetRule(r)
		if err != nil {
			return sandbox.Program{}, err
		}
		p.AllowNet = append(p.AllowNet, rule)
	}
	return p, nil
}

// httpTransport reaches a url server: headers from the environment, and connections to
// the URL's host and port only (a redirect elsewhere is refused).
func httpTransport(s Server, env Env) (sdk.Transport, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	allowed := net.JoinHostPort(u.Hostname(), port)
	headers := http.Header{}
	for h, name := range s.Headers {
		v, ok := env(name)
		if !ok {
			return nil, fmt.Errorf("header %s: env %s is not set", h, name)
		}
		headers.Set(h, v)
	}
	var d net.Dialer
	base := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr != allowed {
			return nil, fmt.Errorf("connection to %s refused: this server may reach %s only", addr, allowed)
		}
		return d.DialContext(ctx, network, addr)
	}}
	return &sdk.StreamableClientTransport{Endpoint: s.URL, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headerTransport{base: base, headers: headers}}}, nil
}

type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header[k] = v
	}
	return h.base.RoundTrip(r)
}

// tail keeps the last bytes written to it: a server's stderr, for its errors.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// scrubbed hides secrets in an error's text.
func scrubbed(sc *secrets.Scrubber, err error) error {
	if sc == nil || err == nil {
		return err
	}
	return sc.Error(err)
}

var errClosed = errors.New("the toolbox is closed")
