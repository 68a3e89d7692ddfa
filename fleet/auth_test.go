package fleet

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCredentials: a server that asks for a user and password or a token lets in only
// clients that give them, and no error names the secret.
func TestCredentials(t *testing.T) {
	for _, sc := range []struct {
		name   string
		server ServerConfig
		good   ConnectOptions
		bad    ConnectOptions
		secret string
	}{
		{"user", ServerConfig{User: "alice", Password: "pw-9f2c"}, ConnectOptions{User: "alice", Password: "pw-9f2c"}, ConnectOptions{User: "alice", Password: "pw-wrong"}, "pw-"},
		{"token", ServerConfig{Token: "tok-51ab"}, ConnectOptions{Token: "tok-51ab"}, ConnectOptions{Token: "tok-wrong"}, "tok-"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			sc.server.Dir, sc.server.Port = t.TempDir(), -1
			srv, err := StartServer(sc.server)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Shutdown()
			sc.good.URL, sc.bad.URL = srv.URL(), srv.URL()
			c, err := Connect(context.Background(), sc.good)
			if err != nil {
				t.Fatalf("with the right credentials: %v", err)
			}
			// A task run through the fleet: neither its trace nor the worker's log holds
			// the secret.
			st, err := c.Submit(context.Background(), demoTask, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: t.TempDir(), Prepare: testPrepare(testRules(t), noSandbox()),
				Log: func(l string) { logs = append(logs, l) }})
			waitFinished(t, c, []string{st.ID}, 30*time.Second)
			stop()
			trace, _, err := c.Trace(context.Background(), st.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(trace), sc.secret) || strings.Contains(strings.Join(logs, "\n"), sc.secret) || len(logs) == 0 {
				t.Errorf("the secret is in the trace or the log (%d lines)", len(logs))
			}
			c.Close()
			_, err = Connect(context.Background(), sc.bad)
			if err == nil || strings.Contains(err.Error(), sc.secret) {
				t.Fatalf("with the wrong credentials: %v", err)
			}
			none := ConnectOptions{URL: srv.URL()}
			if _, err := Connect(context.Background(), none); err == nil {
				t.Fatal("connected without credentials")
			}
		})
	}
}

func TestConnectOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		o    ConnectOptions
		want string
	}{
		{ConnectOptions{URL: "nats://x:1", User: "a", Password: "b", Token: "c"}, "give one kind of NATS credential"},
		{ConnectOptions{URL: "nats://x:1", CertFile: "c.pem"}, "a TLS client certificate needs its key"},
		{ConnectOptions{URL: " "}, "fleet: no NATS URL"},
		{ConnectOptions{URL: "nats://x:1", NKeyFile: "/nonexistent/seed"}, "NKey seed file /nonexistent/seed"},
	} {
		_, err := Connect(context.Background(), c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
