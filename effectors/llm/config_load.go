package llm

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Overrides are the values given on the command line; zero values mean "not given".
// An unusable BaseURL is reported as the CLI's --base-url; the CLI's flag parser checks
// the typed fields, and validation the tiers.
type Overrides struct {
	BaseURL     string
	APIKey      string
	Model       string
	Tier        string
	Timeout     time.Duration
	MaxAttempts int
	RoleModels  map[RoleName]string
	RoleTiers   map[RoleName]string
}

// Sources are the layers LoadConfig merges, lowest first after the defaults.
type Sources struct {
	File   string                      // YAML file; "" for none
	Getenv func(string) (string, bool) // os.LookupEnv in production; nil reads no environment
	Flags  Overrides
}

// Environment variables read by LoadConfig. Per-role variables use the upper-case role
// name: SPINE_MODEL_R4B, SPINE_TIER_R2.
const (
	EnvAPIKey      = "OPENAI_API_KEY"
	EnvBaseURL     = "OPENAI_BASE_URL"
	EnvModel       = "SPINE_MODEL"
	EnvTier        = "SPINE_TIER"
	EnvTimeout     = "SPINE_LLM_TIMEOUT"
	EnvMaxAttempts = "SPINE_LLM_MAX_ATTEMPTS"
	envRoleModel   = "SPINE_MODEL_"
	envRoleTier    = "SPINE_TIER_"
)

// LoadConfig merges DefaultConfig < the YAML file < the environment < the flags and
// validates the result. A bad value is an error naming its source (file:line:column and
// key, the variable, or the flag), the value and what was expected, usually a
// *SettingError; a *ValidationError means every source read but the whole does not fit.
func LoadConfig(src Sources) (Config, error) {
	cfg := DefaultConfig()
	if src.File != "" {
		data, err := os.ReadFile(src.File)
		if err != nil {
			return cfg, fmt.Errorf("llm config: %w", err)
		}
		if err := applyYAML(&cfg, src.File, data); err != nil {
			return cfg, err
		}
		cfg.fileSecrets = cfg.SecretValues()
	}
	if src.Getenv != nil {
		if err := applyEnv(&cfg, src.Getenv); err != nil {
			return cfg, err
		}
	}
	if err := applyOverrides(&cfg, src.Flags); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, &ValidationError{Err: err}
	}
	return cfg, nil
}

// ParseConfigYAML reads a YAML configuration over the defaults without validating it;
// name is used in error positions.
func ParseConfigYAML(name string, data []byte) (Config, error) {
	cfg := DefaultConfig()
	err := applyYAML(&cfg, name, data)
	return cfg, err
}

// yamlKeys are the top-level keys of the configuration file, in documentation order.
var yamlKeys = []string{"base_url", "api_key", "model", "tier", "tiers", "timeout", "max_attempts", "roles", "mcp_servers"}

func applyYAML(cfg *Config, name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // empty file
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return posErr(name, top, "want a mapping of %s", strings.Join(yamlKeys, ", "))
	}
	// The tier names come first, wherever the key is: every tier is checked against them.
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "tiers" {
			if err := tiersInto(name, top.Content[i+1], &cfg.Tiers); err != nil {
				return err
			}
			break
		}
	}
	seen := map[string]bool{}
	var baseURL *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if seen[k.Value] {
			return posErr(name, k, "key %q appears twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "base_url":
			err = scalarInto(name, "base_url", v, &cfg.BaseURL)
			baseURL = v
		case "api_key":
			var s string
			err = scalarInto(name, "api_key", v, &s)
			cfg.APIKey = Secret(s)
		case "model":
			err = scalarInto(name, "model", v, &cfg.Model)
		case "tier":
			err = tierInto(name, "tier", v, cfg.Tiers, &cfg.Tier)
		case "tiers":
			// read above
		case "timeout":
			err = durationInto(name, v, &cfg.Timeout)
		case "max_attempts":
			err = intInto(name, v, &cfg.MaxAttempts)
		case "roles":
			err = rolesInto(name, v, cfg.Tiers, cfg.Roles)
		case "mcp_servers":
			// R3's MCP servers: read by effectors/mcp (ServersFromYAML), not a model setting.
		default:
			err = posErr(name, k, "unknown key %q; known keys: %s", k.Value, strings.Join(yamlKeys, ", "))
		}
		if err != nil {
			return err
		}
	}
	// Checked once the file's key is known, so a key in the URL is not repeated.
	if baseURL != nil && !absoluteHTTP(cfg.BaseURL) {
		return fileSetting(name, "base_url", baseURL, cfg.APIKey.Scrub(cfg.BaseURL), expectURL)
	}
	return nil
}

func posErr(name string, n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, args...))
}

// fileSetting is a bad value of the file's key at v's position.
func fileSetting(name, key string, v *yaml.Node, value, expected string) error {
	e := &SettingError{Where: fmt.Sprintf("%s:%d:%d", name, v.Line, v.Column), Name: key, Value: value, Expected: expected}
	switch {
	case v.Kind == yaml.MappingNode:
		e.Got = "a mapping"
	case v.Kind == yaml.SequenceNode:
		e.Got = "a list"
	case v.Kind == yaml.AliasNode:
		e.Got = "an alias"
	case v.Tag == "!!null":
		e.Got = "nothing"
	}
	return e
}

// isText reports whether v is a scalar with a value (null is not).
func isText(v *yaml.Node) bool {
	return v.Kind == yaml.ScalarNode && v.Tag != "!!null"
}

func scalarInto(name, key string, v *yaml.Node, dst *string) error {
	if !isText(v) {
		return fileSetting(name, key, v, "", expectText)
	}
	*dst = v.Value
	return nil
}

// tierInto reads a tier: a non-negative integer or one of the declared names.
func tierInto(name, key string, v *yaml.Node, names []string, dst *Tier) error {
	if !isText(v) || !validTier(Tier(v.Value), names) {
		return fileSetting(name, key, v, v.Value, expectTier(names))
	}
	*dst = Tier(v.Value)
	return nil
}

func validTier(t Tier, names []string) bool {
	_, err := Config{Tiers: names}.Rank(t)
	return err == nil
}

func tiersInto(name string, v *yaml.Node, dst *[]string) error {
	if v.Kind != yaml.SequenceNode {
		return fileSetting(name, "tiers", v, v.Value, expectTierList)
	}
	var names []string
	for _, item := range v.Content {
		var s string
		if err := scalarInto(name, "tiers", item, &s); err != nil {
			return err
		}
		if _, err := strconv.Atoi(s); err == nil || s == "" {
			return fileSetting(name, "tiers", item, s, expectTierName)
		}
		if slices.Contains(names, s) {
			return fileSetting(name, "tiers", item, s, "each tier name once")
		}
		names = append(names, s)
	}
	*dst = names
	return nil
}

func durationInto(name string, v *yaml.Node, dst *time.Duration) error {
	if !isText(v) {
		return fileSetting(name, "timeout", v, "", expectDurationFmt)
	}
	d, want := parseTimeout(v.Value)
	if want != "" {
		return fileSetting(name, "timeout", v, v.Value, want)
	}
	*dst = d
	return nil
}

func intInto(name string, v *yaml.Node, dst *int) error {
	n, err := strconv.Atoi(v.Value)
	if !isText(v) || err != nil || n < 1 {
		return fileSetting(name, "max_attempts", v, v.Value, expectAttempts)
	}
	*dst = n
	return nil
}

// rolesInto reads "roles:", whose entries are either a model name or {model, tier}.
func rolesInto(name string, v *yaml.Node, tiers []string, roles map[RoleName]RoleModel) error {
	if v.Kind != yaml.MappingNode {
		return fileSetting(name, "roles", v, v.Value, "a mapping from role (R1, R2, R3, R4a, R4b) to a model")
	}
	seen := map[RoleName]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, rv := v.Content[i], v.Content[i+1]
		role, ok := ParseRoleName(k.Value)
		if !ok {
			return posErr(name, k, "unknown role %q; want one of R1, R2, R3, R4a, R4b", k.Value)
		}
		if seen[role] {
			return posErr(name, k, "role %s appears twice", role)
		}
		seen[role] = true
		key := "roles." + k.Value
		rm := roles[role]
		switch rv.Kind {
		case yaml.ScalarNode:
			if err := scalarInto(name, key, rv, &rm.Model); err != nil {
				return err
			}
		case yaml.MappingNode:
			for j := 0; j+1 < len(rv.Content); j += 2 {
				fk, fv := rv.Content[j], rv.Content[j+1]
				var err error
				switch fk.Value {
				case "model":
					err = scalarInto(name, key+".model", fv, &rm.Model)
				case "tier":
					err = tierInto(name, key+".tier", fv, tiers, &rm.Tier)
				default:
					err = posErr(name, fk, "unknown key %q in role %s; known keys: model, tier", fk.Value, role)
				}
				if err != nil {
					return err
				}
			}
		default:
			return fileSetting(name, key, rv, "", expectRoleModel)
		}
		roles[role] = rm
	}
	return nil
}

// absoluteHTTP reports whether s is an absolute http(s) URL with a host.
func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// applyEnv reads the environment over the file. Each bad value is a *SettingError naming
// the variable; tiers are checked against the names the file declared.
func applyEnv(cfg *Config, getenv func(string) (string, bool)) error {
	str := func(key string, dst *string) {
		if v, ok := getenv(key); ok && v != "" {
			*dst = v
		}
	}
	var key string
	str(EnvAPIKey, &key)
	if key != "" {
		cfg.APIKey = Secret(key)
	}
	if v, ok := getenv(EnvBaseURL); ok && v != "" {
		if !absoluteHTTP(v) {
			return &SettingError{Name: EnvBaseURL, Value: cfg.APIKey.Scrub(v), Expected: expectURL}
		}
		cfg.BaseURL = v
	}
	str(EnvModel, &cfg.Model)
	tier := func(env string, dst *Tier) error {
		if v, ok := getenv(env); ok && v != "" {
			if !validTier(Tier(v), cfg.Tiers) {
				return &SettingError{Name: env, Value: v, Expected: expectTier(cfg.Tiers)}
			}
			*dst = Tier(v)
		}
		return nil
	}
	if err := tier(EnvTier, &cfg.Tier); err != nil {
		return err
	}
	if v, ok := getenv(EnvTimeout); ok && v != "" {
		d, want := parseTimeout(v)
		if want != "" {
			return &SettingError{Name: EnvTimeout, Value: v, Expected: want}
		}
		cfg.Timeout = d
	}
	if v, ok := getenv(EnvMaxAttempts); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return &SettingError{Name: EnvMaxAttempts, Value: v, Expected: expectAttempts}
		}
		cfg.MaxAttempts = n
	}
	for _, r := range Roles {
		suffix := strings.ToUpper(string(r))
		rm := cfg.Roles[r]
		str(envRoleModel+suffix, &rm.Model)
		if err := tier(envRoleTier+suffix, &rm.Tier); err != nil {
			return err
		}
		if rm != (RoleModel{}) {
			cfg.Roles[r] = rm
		}
	}
	return nil
}

func applyOverrides(cfg *Config, o Overrides) error {
	var unknown []string
	for _, m := range []map[RoleName]string{o.RoleModels, o.RoleTiers} {
		for r := range m {
			if _, ok := ParseRoleName(string(r)); !ok || canonical(r) != r {
				unknown = append(unknown, string(r))
			}
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("llm config: flags: unknown role %q; want one of R1, R2, R3, R4a, R4b", unknown[0])
	}
	if o.APIKey != "" {
		cfg.APIKey = Secret(o.APIKey)
	}
	if o.BaseURL != "" {
		if !absoluteHTTP(o.BaseURL) {
			return &SettingError{Name: "--base-url", Value: cfg.APIKey.Scrub(o.BaseURL), Expected: expectURL}
		}
		cfg.BaseURL = o.BaseURL
	}
	if o.Model != "" {
		cfg.Model = o.Model
	}
	if o.Tier != "" {
		cfg.Tier = Tier(o.Tier)
	}
	if o.Timeout < 0 || o.MaxAttempts < 0 {
		return errors.New("llm config: flags: timeout and max attempts must not be negative")
	}
	if o.Timeout > 0 {
		cfg.Timeout = o.Timeout
	}
	if o.MaxAttempts > 0 {
		cfg.MaxAttempts = o.MaxAttempts
	}
	for _, r := range Roles {
		rm := cfg.Roles[r]
		if m := o.RoleModels[r]; m != "" {
			rm.Model = m
		}
		if t := o.RoleTiers[r]; t != "" {
			rm.Tier = Tier(t)
		}
		if rm != (RoleModel{}) {
			cfg.Roles[r] = rm
		}
	}
	return nil
}
