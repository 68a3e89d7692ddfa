package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// evenValue is a flag type with its own Set error, as --allow-net has.
type evenValue int

func (e *evenValue) String() string { return fmt.Sprint(int(*e)) }
func (e *evenValue) Type() string   { return "EVEN" }
func (e *evenValue) Set(s string) error {
	if len(s)%2 != 0 {
		return errors.New("want an even number of characters")
	}
	*e = evenValue(len(s))
	return nil
}

// TestFlagErrorWording covers the flag types no command has yet: each bad value says
// what was expected.
func TestFlagErrorWording(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout=120"}, `--timeout="120": expected a duration with a unit, e.g. 120s or 2m`},
		{[]string{"--timeout"}, `flag --timeout needs a value: expected a duration with a unit, e.g. 120s or 2m`},
		{[]string{"--count", "-1"}, `--count="-1": expected a non-negative integer`},
		{[]string{"--ratio=half"}, `--ratio="half": expected a number`},
		{[]string{"--even=abc"}, `--even="abc": want an even number of characters`},
		{[]string{"--name"}, `flag --name needs a value`},
	} {
		c := &cobra.Command{Use: "test", RunE: func(*cobra.Command, []string) error { return nil }}
		c.SilenceErrors, c.SilenceUsage = true, true
		c.Flags().Duration("timeout", time.Second, "")
		c.Flags().Uint("count", 0, "")
		c.Flags().Float64("ratio", 0, "")
		c.Flags().String("name", "", "")
		var even evenValue
		c.Flags().Var(&even, "even", "")
		c.SetFlagErrorFunc(FlagError)
		c.SetArgs(tc.args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		err := c.Execute()
		var ue *UsageError
		if !errors.As(err, &ue) || ue.Msg != tc.want {
			t.Errorf("%q: %v, want usage error %q", tc.args, err, tc.want)
		}
	}
}
