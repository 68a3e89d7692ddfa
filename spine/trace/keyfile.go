package trace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteKeyPair writes a new signing key pair to path (the private key, mode 0600) and
// path.pub (the public key) and returns its fingerprint. It refuses before writing
// anything when either file exists (an error that is os.ErrExist). Each file appears
// whole or not at all.
func WriteKeyPair(path string) (string, error) {
	pubPath := path + ".pub"
	for _, p := range []string{path, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", fmt.Errorf("%s already exists; a key is never overwritten: %w", p, os.ErrExist)
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	pub, priv, err := GenerateKey()
	if err != nil {
		return "", err
	}
	privPEM, err := EncodePrivateKey(priv)
	if err != nil {
		return "", err
	}
	pubPEM, err := EncodePublicKey(pub)
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
	return Fingerprint(pub), nil
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
