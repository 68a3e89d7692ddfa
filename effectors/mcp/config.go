package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentspine/spine/effectors/sandbox"
)

// DefaultTimeout bounds one tool call, and a server's start and listing, unless the
// server's entry says otherwise.
const DefaultTimeout = 30 * time.Second

// Server is one MCP server as configured: exactly one of Command and URL.
type Server struct {
	Name    string   `yaml:"name" json:"name"`
	Command string   `yaml:"command,omitempty" json:"command,omitempty"`
	Args    []string `yaml:"args,omitempty" json:"args,omitempty"`
	// Env names the variables of the spine's environment passed to a stdio server;
	// nothing else of it is (PATH, LANG, TZ aside), and never a name that looks secret
	// unless listed here.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	URL string   `yaml:"url,omitempty" json:"url,omitempty"`
	// Headers maps an HTTP header to the environment variable its value is read from, so
	// that a token never sits in a config file.
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// Targets maps a tool (its server-side name) to the argument that is its target for
	// GGS and memory; a tool not named takes the first of DefaultTargetArgs present.
	Targets map[string]string `yaml:"targets,omitempty" json:"targets,omitempty"`
	Timeout time.Duration     `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// AllowNet are the destinations a stdio server may reach from its sandbox (HOST[:PORT]);
	// empty: none.
	AllowNet []string `yaml:"allow_net,omitempty" json:"allow_net,omitempty"`
	// ReadOnly are host paths shown read-only to a stdio server, e.g. its installation
	// outside /usr.
	ReadOnly []string `yaml:"read_only,omitempty" json:"read_only,omitempty"`
}

// DefaultTargetArgs are the arguments tried, in order, for a call's target.
var DefaultTargetArgs = []string{"path", "uri", "url", "file", "query"}

var serverName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9-]{0,19}$`)

// Check says what is wrong with the entry, naming the field.
func (s Server) Check() error {
	where := fmt.Sprintf("mcp server %q", s.Name)
	switch {
	case !serverName.MatchString(s.Name) || strings.Contains(s.Name, "__"):
		return fmt.Errorf("%s: name must be 1-20 letters, digits or '-', starting with a letter or digit", where)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("%s: needs command (stdio) or url (Streamable HTTP)", where)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("%s: has both command and url; give one", where)
	case s.Timeout < 0:
		return fmt.Errorf("%s: timeout must not be negative", where)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: url %q is not an http or https URL", where, s.URL)
		}
		if len(s.Args) > 0 || len(s.Env) > 0 || len(s.AllowNet) > 0 || len(s.ReadOnly) > 0 {
			return fmt.Errorf("%s: args, env, allow_net and read_only are for a stdio server, not a url", where)
		}
	}
	if len(s.Headers) > 0 && s.URL == "" {
		return fmt.Errorf("%s: headers are for a url server", where)
	}
	for _, r := range s.AllowNet {
		if _, err := sandbox.ParseNetRule(r); err != nil {
			return fmt.Errorf("%s: allow_net: %w", where, err)
		}
	}
	return nil
}

// timeout is the entry's call timeout.
func (s Server) timeout() time.Duration {
	if s.Timeout == 0 {
		return DefaultTimeout
	}
	return s.Timeout
}

// ParseFlag reads a --mcp value: NAME=URL for a Streamable HTTP server, NAME=COMMAND
// ARGS… for a stdio one (words split at spaces; an argument holding a space needs the
// config file's args list). The caller's flag parser names the flag and its value.
func ParseFlag(v string) (Server, error) {
	name, rest, ok := strings.Cut(v, "=")
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" {
		return Server{}, errors.New("expected NAME=COMMAND ARGS… or NAME=URL")
	}
	s := Server{Name: name}
	if strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") {
		s.URL = rest
	} else {
		w := strings.Fields(rest)
		s.Command, s.Args = w[0], w[1:]
	}
	if err := s.Check(); err != nil {
		return Server{}, err
	}
	return s, nil
}

// CheckAll checks every entry and that no two share a name.
func CheckAll(servers []Server) error {
	var seen []string
	for _, s := range servers {
		if err := s.Check(); err != nil {
			return err
		}
		if slices.Contains(seen, s.Name) {
			return fmt.Errorf("mcp server %q is configured twice", s.Name)
		}
		seen = append(seen, s.Name)
	}
	return nil
}

// errNoStarter is a stdio server with no sandbox to start it in.
var errNoStarter = errors.New("no sandbox can start a stdio server here (the jail is not a sandbox.Starter)")
