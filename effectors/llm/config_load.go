package llm

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Overrides are the values given on the command line; zero values mean "not given".
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
// validates the result. Errors name their source: file:line:column, the variable, or
// the flag value.
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
		return cfg, fmt.Errorf("llm config: %w", err)
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
var yamlKeys = []string{"base_url", "api_key", "model", "tier", "tiers", "timeout", "max_attempts", "roles"}

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
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if seen[k.Value] {
			return posErr(name, k, "key %q appears twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "base_url":
			err = scalarInto(name, v, &cfg.BaseURL)
		case "api_key":
			var s string
			err = scalarInto(name, v, &s)
			cfg.APIKey = Secret(s)
		case "model":
			err = scalarInto(name, v, &cfg.Model)
		case "tier":
			err = tierInto(name, v, &cfg.Tier)
		case "tiers":
			err = tiersInto(name, v, &cfg.Tiers)
		case "timeout":
			err = durationInto(name, v, &cfg.Timeout)
		case "max_attempts":
			err = intInto(name, v, &cfg.MaxAttempts)
		case "roles":
			err = rolesInto(name, v, cfg.Roles)
		default:
			err = posErr(name, k, "unknown key %q; known keys: %s", k.Value, strings.Join(yamlKeys, ", "))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func posErr(name string, n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, args...))
}

func scalarInto(name string, v *yaml.Node, dst *string) error {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return posErr(name, v, "want a text value")
	}
	*dst = v.Value
	return nil
}

func tierInto(name string, v *yaml.Node, dst *Tier) error {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!str") || v.Value == "" {
		return posErr(name, v, "want a tier: a non-negative integer or a name from tiers")
	}
	if v.Tag == "!!int" {
		if n, err := strconv.Atoi(v.Value); err != nil || n < 0 {
			return posErr(name, v, "tier %s: want a non-negative integer", v.Value)
		}
	}
	*dst = Tier(v.Value)
	return nil
}

func tiersInto(name string, v *yaml.Node, dst *[]string) error {
	if v.Kind != yaml.SequenceNode {
		return posErr(name, v, "want a list of tier names, lowest first")
	}
	var names []string
	for _, item := range v.Content {
		var s string
		if err := scalarInto(name, item, &s); err != nil {
			return err
		}
		names = append(names, s)
	}
	*dst = names
	return nil
}

func durationInto(name string, v *yaml.Node, dst *time.Duration) error {
	d, err := time.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return posErr(name, v, "want a positive duration such as 90s or 2m")
	}
	*dst = d
	return nil
}

func intInto(name string, v *yaml.Node, dst *int) error {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < 1 {
		return posErr(name, v, "want a positive integer")
	}
	*dst = n
	return nil
}

// rolesInto reads "roles:", whose entries are either a model name or {model, tier}.
func rolesInto(name string, v *yaml.Node, roles map[RoleName]RoleModel) error {
	if v.Kind != yaml.MappingNode {
		return posErr(name, v, "want a mapping from role (R1, R2, R3, R4a, R4b) to a model")
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
		rm := roles[role]
		switch rv.Kind {
		case yaml.ScalarNode:
			if err := scalarInto(name, rv, &rm.Model); err != nil {
				return err
			}
		case yaml.MappingNode:
			for j := 0; j+1 < len(rv.Content); j += 2 {
				fk, fv := rv.Content[j], rv.Content[j+1]
				var err error
				switch fk.Value {
				case "model":
					err = scalarInto(name, fv, &rm.Model)
				case "tier":
					err = tierInto(name, fv, &rm.Tier)
				default:
					err = posErr(name, fk, "unknown key %q in role %s; known keys: model, tier", fk.Value, role)
				}
				if err != nil {
					return err
				}
			}
		default:
			return posErr(name, rv, "role %s: want a model name or {model: …, tier: …}", role)
		}
		roles[role] = rm
	}
	return nil
}

func applyEnv(cfg *Config, getenv func(string) (string, bool)) error {
	str := func(key string, dst *string) {
		if v, ok := getenv(key); ok && v != "" {
			*dst = v
		}
	}
	str(EnvBaseURL, &cfg.BaseURL)
	var key string
	str(EnvAPIKey, &key)
	if key != "" {
		cfg.APIKey = Secret(key)
	}
	str(EnvModel, &cfg.Model)
	var tier string
	str(EnvTier, &tier)
	if tier != "" {
		cfg.Tier = Tier(tier)
	}
	if v, ok := getenv(EnvTimeout); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("llm config: environment %s=%q: want a positive duration such as 90s", EnvTimeout, v)
		}
		cfg.Timeout = d
	}
	if v, ok := getenv(EnvMaxAttempts); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("llm config: environment %s=%q: want a positive integer", EnvMaxAttempts, v)
		}
		cfg.MaxAttempts = n
	}
	for _, r := range Roles {
		suffix := strings.ToUpper(string(r))
		rm := cfg.Roles[r]
		str(envRoleModel+suffix, &rm.Model)
		var t string
		str(envRoleTier+suffix, &t)
		if t != "" {
			rm.Tier = Tier(t)
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
	if o.BaseURL != "" {
		cfg.BaseURL = o.BaseURL
	}
	if o.APIKey != "" {
		cfg.APIKey = Secret(o.APIKey)
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
