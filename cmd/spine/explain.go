package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
					for _, t := range glossary.Terms {
						fmt.Fprintf(io.out, "%-18s %s\n", t.Name, firstSentence(t.Text))
					}
					return nil
				}
				name := strings.Join(args, " ")
				t, ok := glossary.Lookup(name)
				if !ok {
					msg := fmt.Sprintf("no term %q", name)
					if near := glossary.Near(name); len(near) > 0 {
						msg += "; did you mean " + strings.Join(near, ", ") + "?"
					}
					return usageErrorf("%s (spine explain lists every term)", msg)
				}
				fmt.Fprintf(io.out, "%s — %s\n", t.Name, t.Text)
				if len(t.Aliases) > 0 {
					fmt.Fprintf(io.out, "(also: %s)\n", strings.Join(t.Aliases, ", "))
				}
				return nil
			},
		}
	})
}

// firstSentence is text up to its first ". ", for the list.
func firstSentence(text string) string {
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}

// explainHint ends the demos' output: where their words are explained.
const explainHint = "What the terms mean: spine explain TERM (D, P, Ω, ∇L, R1–R7, Megram, …); spine explain lists them"
