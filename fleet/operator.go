package fleet

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentspine/spine/spine/trace"
)

// What the fleet's commands do beyond one call of a Client: the secrets they read from
// the environment, a server recorded in the state file, every trace fetched, a report
// published at an interval.

// The environment's secrets: never on a command line, where ps shows them.
const (
	EnvPassword = "SPINE_NATS_PASSWORD"
	EnvToken    = "SPINE_NATS_TOKEN"
)

// Secrets are the password of user, or without a user the token, from the environment;
// ok is false for a user whose password is not set.
func Secrets(user string, getenv func(string) string) (password, token string, ok bool) {
	if user == "" {
		return "", getenv(EnvToken), true
	}
	password = getenv(EnvPassword)
	return password, "", password != ""
}

// FromEnv fills in what the environment gives a client, since secrets never go on a
// command line: the password of User, or without a user the token (Secrets), and the URL
// from $SPINE_NATS_URL when none is given. A user without a password is an error.
func (o *ConnectOptions) FromEnv(getenv func(string) string) error {
	if err := secretsOf(o.User, &o.Password, &o.Token, getenv); err != nil {
		return err
	}
	if o.URL == "" {
		o.URL = getenv(EnvURL)
	}
	return nil
}

// FromEnv fills in the secrets a server requires of its clients from the environment:
// the password of User, or without a user the token (Secrets). A user without a
// password is an error.
func (cfg *ServerConfig) FromEnv(getenv func(string) string) error {
	return secretsOf(cfg.User, &cfg.Password, &cfg.Token, getenv)
}

func secretsOf(user string, password, token *string, getenv func(string) string) error {
	var ok bool
	if *password, *token, ok = Secrets(user, getenv); !ok {
		return fmt.Errorf("%s needs its password in $%s", user, EnvPassword)
	}
	return nil
}

// StartRecorded starts the embedded server with its store in cfg.Dir (default: nats
// beside the state file), made if need be, and writes its URL to the state file for the
// clients given none. It returns the server, the store and the state file's path.
func StartRecorded(cfg ServerConfig, getenv func(string) string) (srv *Server, dir, state string, err error) {
	state, serr := StateFile(getenv)
	if cfg.Dir == "" {
		if serr != nil {
			return nil, "", "", serr
		}
		cfg.Dir = filepath.Join(filepath.Dir(state), "nats")
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, "", "", err
	}
	if srv, err = StartServer(cfg); err != nil {
		return nil, "", "", err
	}
	if serr == nil {
		serr = WriteState(state, State{URL: srv.URL(), Dir: cfg.Dir, PID: os.Getpid()})
	}
	if serr != nil {
		srv.Shutdown()
		return nil, "", "", fmt.Errorf("the state file: %w", serr)
	}
	return srv, cfg.Dir, state, nil
}

// SaveTraces writes every finished task's accepted trace into dir (made if need be) as
// ID.trace.jsonl, never overwriting a file. It returns how many it saved, of how many
// tasks.
func (c *Client) SaveTraces(ctx context.Context, dir string) (saved, tasks int, err error) {
	sts, err := c.List(ctx)
	if err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, len(sts), err
	}
	for _, st := range sts {
		if st.State != Finished {
			continue
		}
		b, _, err := c.Trace(ctx, st.ID, 0)
		if err != nil {
			return saved, len(sts), err
		}
		if err := trace.WriteNewFile(filepath.Join(dir, st.ID+".trace.jsonl"), b); err != nil {
			return saved, len(sts), err
		}
		saved++
	}
	return saved, len(sts), nil
}

// ReportEvery makes a report of the fleet since the last one (MakeReport) and publishes
// it (PublishReport) every interval until ctx ends, handing each to done with what went
// wrong, if anything.
func (c *Client) ReportEvery(ctx context.Context, every time.Duration, dc DriftConfig, done func(Report, error)) {
	last := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			rep, err := c.MakeReport(ctx, now, last, dc)
			if err == nil {
				err = c.PublishReport(ctx, rep)
			}
			done(rep, err)
			last = now
		}
	}
}

// TaskArgError is a submit given both a task's text and a file of tasks, or neither.
type TaskArgError struct{ Msg string }

func (e *TaskArgError) Error() string { return e.Msg }

// TaskTexts is what one submit puts on the queue: text as one task, or every task of
// the file path names (ReadTaskFile). Both, or neither, is a *TaskArgError.
func TaskTexts(text, path string) ([]string, error) {
	switch blank := strings.TrimSpace(text) == ""; {
	case path != "" && !blank:
		return nil, &TaskArgError{"give the task text or --file, not both"}
	case path != "":
		return ReadTaskFile(path)
	case blank:
		return nil, &TaskArgError{`expected the task text, e.g. spine submit "summarise the TODOs"`}
	}
	return []string{text}, nil
}

// Statuses reads the status of each task of ids, or of every task when ids is empty (List).
func (c *Client) Statuses(ctx context.Context, ids []string) ([]Status, error) {
	if len(ids) == 0 {
		return c.List(ctx)
	}
	out := make([]Status, len(ids))
	for i, id := range ids {
		var err error
		if out[i], err = c.Status(ctx, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LoadTLS makes the server speak TLS with the certificate and key in the files certFile
// and keyFile; with neither it stays plain.
func (cfg *ServerConfig) LoadTLS(certFile, keyFile string) error {
	if certFile == "" && keyFile == "" {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("TLS: %w", err)
	}
	cfg.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	return nil
}
