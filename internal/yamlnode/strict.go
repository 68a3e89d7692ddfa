package yamlnode

import (
	"bytes"
	"errors"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// DecodeStrict decodes the first YAML document of src into v, refusing keys that v's
// type does not declare. Word its error with Message.
func DecodeStrict(src []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	return dec.Decode(v)
}

var unknownFieldRe = regexp.MustCompile(`field (\S+) not found in type \S+`)

// Message turns a yaml.v3 error into one line: its type errors joined with "; ", the
// "yaml: " prefix dropped, and a field the target type does not declare named as
// `unknown key "k"`, followed by hint (say, " (expected name or rounds)") when given.
func Message(err error, hint string) string {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return unknownFieldRe.ReplaceAllString(msg, `unknown key "$1"`+strings.ReplaceAll(hint, "$", "$$"))
}
