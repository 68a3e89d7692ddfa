// Package yamlnode holds the small yaml.v3 helpers that the project's YAML loaders (rule
// files, domain and expectation files, scenario files) share, so that they word their
// errors alike: node resolution and description, and strict decoding with a one-line
// error. It owns no format and reports no error itself.
package yamlnode

import (
	"strconv"

	"gopkg.in/yaml.v3"
)

// Resolve follows aliases to the node they name (at most 16 deep, so that a cycle of
// aliases cannot loop).
func Resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 16; depth++ {
		n = n.Alias
	}
	return n
}

// Describe names a node for "expected X, got Y" messages.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "nothing"
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the bool " + n.Value
		}
		return strconv.Quote(n.Value)
	}
	return "an unexpected node"
}
