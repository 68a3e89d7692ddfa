package fleet

import (
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// ServerConfig is an embedded nats-server with JetStream on a directory.
type ServerConfig struct {
	Dir  string // JetStream's store; the queue, the traces and the logs survive restarts in it
	Host string // "" for 127.0.0.1
	Port int    // 0 for 4222; -1 for any free port
	// Credentials clients must give: a user and password, a token, or an NKey (the
	// public keys, U…, of the users allowed); none when all are empty.
	User, Password, Token string
	NKeys                 []string
	// TLS, when set, makes clients connect over TLS (its certificates are the server's).
	TLS *tls.Config
	// Ready bounds the wait for the server to accept connections; 0 for 10 s.
	Ready time.Duration
}

// Server is a running embedded nats-server.
type Server struct {
	ns *server.Server
}

// StartServer starts the server and waits until it accepts connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	if cfg.Dir == "" {
		return nil, errors.New("fleet: the server needs a directory for JetStream's store")
	}
	if cfg.Token != "" && (cfg.User != "" || cfg.Password != "") {
		return nil, errors.New("fleet: give the server a token or a user and password, not both")
	}
	if (cfg.User == "") != (cfg.Password == "") {
		return nil, errors.New("fleet: a server user needs a password, and a password a user")
	}
	if len(cfg.NKeys) > 0 && (cfg.Token != "" || cfg.User != "") {
		return nil, errors.New("fleet: give the server NKeys, a token or a user and password, one kind only")
	}
	var users []*server.NkeyUser
	for _, k := range cfg.NKeys {
		if !nkeys.IsValidPublicUserKey(k) {
			return nil, fmt.Errorf("fleet: %q is not an NKey user's public key (U…)", k)
		}
		users = append(users, &server.NkeyUser{Nkey: k})
	}
	opts := &server.Options{
		ServerName: "spine", Host: cfg.Host, Port: cfg.Port,
		JetStream: true, StoreDir: cfg.Dir,
		Username: cfg.User, Password: cfg.Password, Authorization: cfg.Token,
		Nkeys: users, NoLog: true, NoSigs: true,
	}
	if cfg.TLS != nil {
		opts.TLSConfig, opts.TLS = cfg.TLS, true
	}
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if opts.Port == 0 {
		opts.Port = 4222
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("fleet: nats-server: %w", err)
	}
	ns.Start()
	ready := cfg.Ready
	if ready == 0 {
		ready = 10 * time.Second
	}
	if !ns.ReadyForConnections(ready) {
		ns.Shutdown()
		return nil, fmt.Errorf("fleet: nats-server on %s:%d did not accept connections within %s", opts.Host, opts.Port, ready)
	}
	return &Server{ns: ns}, nil
}

// URL is the address clients connect to, without credentials.
func (s *Server) URL() string { return s.ns.ClientURL() }

// Shutdown stops the server and waits until it has stopped; JetStream's store is kept.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
