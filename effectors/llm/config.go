package llm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RoleName names a role that calls a model.
type RoleName string

// The roles that call a model.
const (
	R1  RoleName = "R1"  // Perceiver
	R2  RoleName = "R2"  // Planner
	R3  RoleName = "R3"  // Executor
	R4a RoleName = "R4a" // Agent-Validator
	R4b RoleName = "R4b" // Meta-Validator
)

// Roles lists the model-calling roles in pipeline order; output that lists roles uses it.
var Roles = []RoleName{R1, R2, R3, R4a, R4b}

// ParseRoleName accepts a role name in any letter case ("r4b", "R4B").
func ParseRoleName(s string) (RoleName, bool) {
	for _, r := range Roles {
		if strings.EqualFold(s, string(r)) {
			return r, true
		}
	}
	return "", false
}

// Tier ranks a model's capability: either a non-negative integer ("2") or a name from
// Config.Tiers, whose position (from 0, lowest first) is its rank. Empty means unset.
type Tier string

// RoleModel is the model a role uses and its tier. Empty fields fall back to the default
// model, and to the tier declared for the same model elsewhere in the configuration.
type RoleModel struct {
	Model string `json:"model,omitempty"`
	Tier  Tier   `json:"tier,omitempty"`
}

// Config is the model configuration: endpoint, key, default model and one model per
// role. Build it with LoadConfig (defaults < file < environment < flags). Printing or
// serialising a Config never shows the key.
type Config struct {
	BaseURL     string
	APIKey      Secret
	Model       string // default model
	Tier        Tier   // tier of the default model
	Tiers       []string
	Roles       map[RoleName]RoleModel
	Timeout     time.Duration // per call
	MaxAttempts int

	fileSecrets []string // the file layer's SecretValues (FileSecretValues)
}

// DefaultConfig is the lowest layer of LoadConfig: OpenAI's endpoint, no model.
func DefaultConfig() Config {
	return Config{
		BaseURL:     DefaultBaseURL,
		Timeout:     DefaultTimeout,
		MaxAttempts: DefaultMaxAttempts,
		Roles:       map[RoleName]RoleModel{},
	}
}

// ResolvedRole is what a role will use after fallbacks.
type ResolvedRole struct {
	Role  RoleName
	Model string
	Tier  Tier // "" when no tier is known for the model
	Rank  int  // 0 when Tier is ""
}

// For returns the model and tier role will use.
func (c Config) For(role RoleName) (ResolvedRole, error) {
	rm := c.Roles[role]
	out := ResolvedRole{Role: role, Model: rm.Model, Tier: rm.Tier}
	if out.Model == "" {
		out.Model = c.Model
	}
	declared, err := c.modelTier(out.Model)
	if err != nil {
		return out, err
	}
	if out.Tier == "" {
		out.Tier = declared
	}
	if out.Tier != "" {
		rank, err := c.Rank(out.Tier)
		if err != nil {
			return out, fmt.Errorf("role %s: %w", role, err)
		}
		out.Rank = rank
	}
	return out, nil
}

// modelTier is the tier declared for model by the default entry or by any role that uses
// it (a role without a model of its own uses the default model); declarations that
// disagree are an error.
func (c Config) modelTier(model string) (Tier, error) {
	if model == "" {
		return "", nil
	}
	var found Tier
	var where string
	check := func(m string, t Tier, at string) error {
		if m != model || t == "" {
			return nil
		}
		if found != "" && found != t {
			return fmt.Errorf("model %q has tier %q (%s) and tier %q (%s); give it one tier", model, found, where, t, at)
		}
		if found == "" {
			found, where = t, at
		}
		return nil
	}
	if err := check(c.Model, c.Tier, "default"); err != nil {
		return "", err
	}
	for _, r := range Roles {
		rm := c.Roles[r]
		if rm.Model == "" {
			rm.Model = c.Model
		}
		if err := check(rm.Model, rm.Tier, string(r)); err != nil {
			return "", err
		}
	}
	return found, nil
}

// Rank turns a tier into its integer rank.
func (c Config) Rank(t Tier) (int, error) {
	if n, err := strconv.Atoi(string(t)); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("tier %q: want a non-negative integer or one of %s", t, c.tierNames())
		}
		return n, nil
	}
	for i, name := range c.Tiers {
		if name == string(t) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("tier %q: want a non-negative integer or one of %s", t, c.tierNames())
}

func (c Config) tierNames() string {
	if len(c.Tiers) == 0 {
		return "the names listed under tiers (none are)"
	}
	return "[" + strings.Join(c.Tiers, ", ") + "]"
}

// Validate checks the configuration: an absolute http(s) base URL, a model for every
// role, resolvable tiers, sane limits, and R4b's tier not below R2's (a validator weaker
// than the planner it checks would accept plans it cannot judge).
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("base URL %q: want an absolute http(s) URL", c.APIKey.Scrub(c.BaseURL)))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("timeout %s: want a positive duration", c.Timeout))
	}
	if c.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("max attempts %d: want at least 1", c.MaxAttempts))
	}
	seen := map[string]bool{}
	for _, name := range c.Tiers {
		if _, err := strconv.Atoi(name); err == nil || name == "" {
			errs = append(errs, fmt.Errorf("tier name %q: names must be non-empty and not numbers", name))
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("tier name %q is listed twice", name))
		}
		seen[name] = true
	}
	for _, r := range sortedRoleKeys(c.Roles) {
		if _, ok := ParseRoleName(string(r)); !ok || r != canonical(r) {
			errs = append(errs, fmt.Errorf("role %q: want one of R1, R2, R3, R4a, R4b", r))
		}
	}
	resolved := map[RoleName]ResolvedRole{}
	for _, r := range Roles {
		res, err := c.For(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if res.Model == "" {
			errs = append(errs, fmt.Errorf("role %s has no model: set a default model (model:, SPINE_MODEL, --model) or one for the role", r))
		}
		resolved[r] = res
	}
	r2, ok2 := resolved[R2]
	r4b, ok4 := resolved[R4b]
	if ok2 && ok4 && r4b.Rank < r2.Rank {
		errs = append(errs, fmt.Errorf("R4b's model tier (%s) is below R2's (%s): the meta-validator must be at least as capable as the planner it checks",
			describeTier(r4b), describeTier(r2)))
	}
	return joinUnique(errs)
}

// joinUnique joins errors, dropping repeats (one bad declaration can fail several roles).
func joinUnique(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}

func canonical(r RoleName) RoleName {
	c, _ := ParseRoleName(string(r))
	return c
}

func describeTier(r ResolvedRole) string {
	if r.Tier == "" {
		return fmt.Sprintf("%q, tier unset, counts as 0", r.Model)
	}
	if strconv.Itoa(r.Rank) == string(r.Tier) {
		return fmt.Sprintf("%q, tier %d", r.Model, r.Rank)
	}
	return fmt.Sprintf("%q, tier %s = %d", r.Model, r.Tier, r.Rank)
}

// OpenAIOptions turns the configuration into client options; the caller adds the
// injected Sleep, Jitter and Clock when it has them.
func (c Config) OpenAIOptions() OpenAIOptions {
	return OpenAIOptions{
		BaseURL:     c.BaseURL,
		APIKey:      c.APIKey,
		Model:       c.Model,
		Timeout:     c.Timeout,
		MaxAttempts: c.MaxAttempts,
	}
}

// String is a one-line summary with the key redacted.
func (c Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "base_url=%s api_key=%q model=%q", c.APIKey.Scrub(c.BaseURL), c.APIKey.String(), c.Model)
	if c.Tier != "" {
		fmt.Fprintf(&b, " tier=%s", c.Tier)
	}
	if len(c.Tiers) > 0 {
		fmt.Fprintf(&b, " tiers=[%s]", strings.Join(c.Tiers, ","))
	}
	fmt.Fprintf(&b, " timeout=%s max_attempts=%d", c.Timeout, c.MaxAttempts)
	for _, r := range sortedRoleKeys(c.Roles) {
		rm := c.Roles[r]
		fmt.Fprintf(&b, " %s=%q", r, rm.Model)
		if rm.Tier != "" {
			fmt.Fprintf(&b, "(tier %s)", rm.Tier)
		}
	}
	return b.String()
}

// GoString keeps %#v from printing the key.
func (c Config) GoString() string { return "llm.Config{" + c.String() + "}" }

// configJSON is Config's JSON shape: durations as text, the key redacted by Secret.
type configJSON struct {
	BaseURL     string                 `json:"base_url"`
	APIKey      Secret                 `json:"api_key"`
	Model       string                 `json:"model"`
	Tier        Tier                   `json:"tier,omitempty"`
	Tiers       []string               `json:"tiers,omitempty"`
	Roles       map[RoleName]RoleModel `json:"roles,omitempty"`
	Timeout     string                 `json:"timeout"`
	MaxAttempts int                    `json:"max_attempts"`
}

// MarshalJSON writes the configuration with the key redacted.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(configJSON{
		BaseURL: c.APIKey.Scrub(c.BaseURL), APIKey: c.APIKey, Model: c.Model, Tier: c.Tier, Tiers: c.Tiers,
		Roles: c.Roles, Timeout: c.Timeout.String(), MaxAttempts: c.MaxAttempts,
	})
}

// sortedRoleKeys orders role keys by pipeline position, unknown keys last by name.
func sortedRoleKeys(m map[RoleName]RoleModel) []RoleName {
	pos := func(r RoleName) int {
		if i := slices.Index(Roles, r); i >= 0 {
			return i
		}
		return len(Roles)
	}
	keys := make([]RoleName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b RoleName) int {
		if c := cmp.Compare(pos(a), pos(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return keys
}
