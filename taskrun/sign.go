package taskrun

import (
	"github.com/agentspine/spine/spine/trace"
)

// runSigner is the key that signs the run's trace, nil for none. Its file must lie
// outside the work dir, where the tools cannot read it (the sandbox also hides it), and
// is read here, once, before anything runs.
func runSigner(cfg Config) (*trace.Signer, error) {
	if cfg.SignKey != "" {
		if err := checkPlacement(cfg.Workdir, []ownFile{{"--sign-key", cfg.SignKey, "read the private key and sign a forged trace in this run's name"}}); err != nil {
			return nil, err
		}
	}
	if cfg.Signer != nil || cfg.SignKey == "" {
		return cfg.Signer, nil
	}
	return trace.LoadSigner(cfg.SignKey)
}

// signMeta names the signing key in the header: the signature vouches for it.
func signMeta(meta map[string]string, signer *trace.Signer) map[string]string {
	if signer != nil {
		meta[trace.MetaSignKey] = signer.Fingerprint()
	}
	return meta
}
