package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
				fp, err := keygen(args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(io.out, "private key: %s (keep it outside every work dir)\npublic key:  %s.pub\nfingerprint: %s\n", args[0], args[0], fp)
				return nil
			},
		}
	})
}

// keygen writes a new key pair to path and path.pub and returns its fingerprint. It
// refuses before writing anything when either file exists (an error that is
// os.ErrExist). Each file appears whole or not at all.
func keygen(path string) (string, error) {
	pubPath := path + ".pub"
	for _, p := range []string{path, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", fmt.Errorf("%s already exists; a key is never overwritten: %w", p, os.ErrExist)
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	pub, priv, err := trace.GenerateKey()
	if err != nil {
		return "", err
	}
	privPEM, err := trace.EncodePrivateKey(priv)
	if err != nil {
		return "", err
	}
	pubPEM, err := trace.EncodePublicKey(pub)
	if err != nil {
		return "", err
	}
	if err := writeExclusive(path, privPEM, 0o600); err != nil {
		return "", err
	}
	if err := writeExclusive(pubPath, pubPEM, 0o644); err != nil {
		os.Remove(path)
		return "", err
	}
	return trace.Fingerprint(pub), nil
}

// writeExclusive creates path with mode and b, never replacing a file: it writes a
// temporary file beside it and links it into place, so a reader never sees it part
// written.
func writeExclusive(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".keygen-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(mode); err != nil { // whatever the umask
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Link(f.Name(), path)
}
