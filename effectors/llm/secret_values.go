package llm

import (
	"net/url"
	"slices"

	"github.com/agentspine/spine/internal/secrets"
)

// SecretValues returns the values of the configuration that must never be shown, for a
// secrets.Scrubber: the API key, and the credentials a base URL may carry (the password
// of its user info, or the user name when it stands alone as a token, and the values of
// query parameters whose names look secret, such as ?api_key=…). Sorted, without
// duplicates or empty values.
func (c Config) SecretValues() []string {
	out := []string{c.APIKey.Reveal()}
	if u, err := url.Parse(c.BaseURL); err == nil {
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				out = append(out, pw)
			} else {
				out = append(out, u.User.Username())
			}
		}
		for name, vs := range u.Query() {
			if secrets.NameLooksSecret(name) {
				out = append(out, vs...)
			}
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
