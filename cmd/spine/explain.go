package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/glossary"
)

// explain prints the glossary (internal/glossary, the README's glossary's source): one
// term, or the list of them all.
func init() {
	addCommand("", func(io stdio) *cobra.Command {
		return &cobra.Command{
			Use:   "explain [TERM]",
			Short: "explain a term the output uses (D, P, Ω, ∇L, R1–R7, Megram, Law 2, …); alone, list them",
			Long: `Explain a term spine's output uses: the loss signals (D, P, Ω, L, ∇L), the roles
(R1–R7), the macro-states, Law 2, Megram, seed, construct, gate signals, OBSERVE_CONTRACT.
Case does not matter, and other spellings work (omega for Ω, grad for ∇L). Without a
term, every term is listed. The README's glossary is the same text.`,
			RunE: func(c *cobra.Command, args []string) error {
				if len(args) == 0 {
					glossary.WriteList(io.out)
					return nil
				}
				if err := glossary.Explain(io.out, strings.Join(args, " ")); err != nil {
					return cli.Usagef("%v (spine explain lists every term)", err)
				}
				return nil
			},
		}
	})
}

// explainHint ends the demos' output: where their words are explained.
const explainHint = "What the terms mean: spine explain TERM (D, P, Ω, ∇L, R1–R7, Megram, …); spine explain lists them"
