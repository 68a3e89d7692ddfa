package sandbox

import "strings"

// NetRules is a list of NetRule as a command line gives it: repeated HOST[:PORT] flags,
// each of which may hold a comma-separated list. It is a flag.Value (and a pflag.Value).
type NetRules []NetRule

func (n *NetRules) String() string {
	parts := make([]string, len(*n))
	for i, r := range *n {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Type names the value in --help.
func (n *NetRules) Type() string { return "HOST[:PORT]" }

// Set parses one HOST[:PORT], or a comma-separated list of them.
func (n *NetRules) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		r, err := ParseNetRule(strings.TrimSpace(part))
		if err != nil {
			return err
		}
		*n = append(*n, r)
	}
	return nil
}
