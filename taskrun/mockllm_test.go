//go:build linux

package taskrun_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The third-party mock: @dwmkerr/mock-llm, pinned in testdata/thirdparty/mock-llm's
// package-lock.json and installed there by `npm ci` (.ci/run does it).
var (
	mockLLMDir    = filepath.Join("..", "testdata", "thirdparty", "mock-llm")
	mockLLMMain   = filepath.Join("node_modules", "@dwmkerr", "mock-llm", "dist", "main.js")
	mockLLMConfig = "mock-llm.yaml"
)

// mockLLM is a running mock-llm process.
type mockLLM struct {
	url     string // http://127.0.0.1:port, no path
	cmd     *exec.Cmd
	out     *lockedBuffer
	release chan struct{} // ends the thread that started the mock
	stopped sync.Once
}

// startMockLLM starts mock-llm with the rules of testdata/thirdparty/mock-llm/mock-llm.yaml
// on a free loopback port and waits until it answers /health. Without node or the
// installed package the test is skipped, or fails when CI is set: CI must test against it.
func startMockLLM(t *testing.T) *mockLLM {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") != "" {
			t.Fatalf("mock-llm is needed in CI: %s", msg)
		}
		t.Skipf("mock-llm unavailable, skipping: %s (CI=true makes this a failure; .ci/run installs it)", msg)
	}
	dir, err := filepath.Abs(mockLLMDir)
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not installed (install Node.js 18 or later, then `npm ci` in %s)", dir)
	}
	if _, err := os.Stat(filepath.Join(mockLLMDir, mockLLMMain)); err != nil {
		unavailable("%s is not installed: run `npm ci` in %s", mockLLMMain, dir)
	}
	var lastErr error
	// A free port found by listening can be taken before the mock binds it: try again.
	for try := 0; try < 3; try++ {
		m, err := launchMockLLM(node)
		if err == nil {
			t.Cleanup(m.stop)
			return m
		}
		lastErr = err
	}
	t.Fatalf("mock-llm did not start: %v", lastErr)
	return nil
}

func launchMockLLM(node string) (*mockLLM, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	m := &mockLLM{url: fmt.Sprintf("http://127.0.0.1:%d", port), out: &lockedBuffer{}}
	m.cmd = exec.Command(node, mockLLMMain, "--config", mockLLMConfig)
	m.cmd.Dir = mockLLMDir
	m.cmd.Env = append(os.Environ(), "HOST=127.0.0.1", fmt.Sprintf("PORT=%d", port))
	m.cmd.Stdout, m.cmd.Stderr = m.out, m.out
	// The mock dies with the test binary, even one killed by go test's timeout. Pdeathsig
	// follows the thread that started the process, not the process, and threads do end
	// (the sandbox ends its own): the mock is started from a thread kept until stop.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	m.release = make(chan struct{})
	startErr := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		startErr <- m.cmd.Start()
		<-m.release
	}()
	if err := <-startErr; err != nil {
		close(m.release)
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- m.cmd.Wait() }()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case err := <-exited:
			m.stop()
			return nil, fmt.Errorf("it exited (%v); its output:\n%s", err, m.out.String())
		case <-deadline:
			m.stop()
			return nil, fmt.Errorf("no answer on %s/health within 20s; its output:\n%s", m.url, m.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get(m.url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return m, nil
			}
		}
	}
}

// stop ends the mock (a single node process).
func (m *mockLLM) stop() {
	m.stopped.Do(func() {
		if m.cmd.Process != nil {
			_ = m.cmd.Process.Kill()
		}
		close(m.release)
	})
}

// wireRequest is one HTTP request as it reached the mock, after go-openai encoded it.
type wireRequest struct {
	Method, Path, Authorization string
	Body                        []byte
}

// wireChat is what the test reads of a request body.
type wireChat struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Temperature *float64 `json:"temperature"`
	Stream      bool     `json:"stream"`
}

type wireMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// recorder is a reverse proxy in front of the mock that keeps every request it passes
// on: mock-llm logs only a request's method and path, and the test asserts what was sent.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []wireRequest
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) }}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, wireRequest{Method: req.Method, Path: req.URL.Path,
			Authorization: req.Header.Get("Authorization"), Body: body})
		r.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) requests() []wireRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wireRequest(nil), r.reqs...)
}

// chats decodes every request body as a chat completion request.
func (r *recorder) chats(t *testing.T) []wireChat {
	t.Helper()
	var out []wireChat
	for i, req := range r.requests() {
		var c wireChat
		if err := json.Unmarshal(req.Body, &c); err != nil {
			t.Fatalf("wire request %d (%s %s): not a chat request: %v\n%.300s", i+1, req.Method, req.Path, err, req.Body)
		}
		out = append(out, c)
	}
	return out
}

// lockedBuffer collects the mock's output from two pipes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
