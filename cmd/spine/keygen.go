package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/spine/trace"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		return &cobra.Command{
			Use:   "keygen FILE",
			Short: "make an ed25519 key pair that signs traces: FILE (private, mode 0600) and FILE.pub",
			Long: `Make an ed25519 key pair for signed traces. FILE gets the private key (PEM PKCS #8,
mode 0600) and FILE.pub the public key (PEM PKIX); neither is ever overwritten. Keep
FILE outside every work dir: spine run --sign-key FILE refuses a key the tools could
read. Give FILE.pub (or a directory of such files) to --verify-key of spine replay
--check, spine audit and spine trace show.`,
			Args: cobra.ExactArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				fp, err := trace.WriteKeyPair(args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(io.out, "private key: %s (keep it outside every work dir)\npublic key:  %s.pub\nfingerprint: %s\n", args[0], args[0], fp)
				return nil
			},
		}
	})
}
