package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/taskrun"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		var (
			nf       natsFlags
			o        fleet.RunOptions
			allowNet sandbox.NetRules
			asJSON   bool
			file     string
		)
		c := &cobra.Command{
			Use:   `submit "task text"|--file FILE [--model NAME] [--caution refuse|allow|log] [--allow-net HOST[:PORT]]... [flags]`,
			Short: "put a task (or a file of tasks, one a line) on the fleet's queue and print its id",
			Long: `Put a task on the fleet's work queue and print its id. A worker runs it as spine run
would, with the run flags given here; the model endpoint, its key and the work dir are
the worker's.`,
			Args: cobra.ArbitraryArgs,
			RunE: func(c *cobra.Command, args []string) error {
				texts, err := fleet.TaskTexts(strings.Join(args, " "), file)
				if errors.As(err, new(*fleet.TaskArgError)) {
					return cli.Usagef("%v", err)
				} else if err != nil {
					return err
				}
				if err := taskrun.CheckCautionPolicy(o.Caution); err != nil {
					return cli.Usagef("--caution %v", err)
				}
				// A name that leads where no worker may ever open is refused now; the rest
				// is the worker's to decide.
				if err := fleet.CheckSubmitNet(c.Context(), allowNet, nil); err != nil {
					return cli.Usagef("%v", err)
				}
				for _, r := range allowNet {
					o.AllowNet = append(o.AllowNet, r.String())
				}
				cl, err := nf.connect(c.Context(), "spine submit")
				if err != nil {
					return err
				}
				defer cl.Close()
				for _, text := range texts {
					st, err := cl.Submit(c.Context(), text, o)
					if err != nil {
						return err
					}
					if err := cli.Show(io.rawOut, asJSON, st, func() { fmt.Fprintln(io.out, st.ID) }); err != nil {
						return err
					}
				}
				return nil
			},
		}
		fs := c.Flags()
		nf.add(fs)
		fs.StringVar(&o.Model, "model", "", "model for every role without one of its own (default: the worker's)")
		fs.StringVar(&o.Caution, "caution", "", "what to do with a call memory advises caution for: refuse, allow or log (default: the rules' caution param, refuse as shipped)")
		fs.Var(&allowNet, "allow-net", "ask that the task's tools may connect to `HOST[:PORT]` (repeatable; a worker opens it only within its own --allow-net)")
		fs.BoolVar(&asJSON, "json", false, "print each task's status as JSON")
		fs.StringVar(&file, "file", "", "submit every line of `FILE` as a task (blank lines and lines starting with # skipped)")
		return c
	})
}
