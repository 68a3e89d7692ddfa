package replay

import (
	"crypto/sha256"
	"encoding/hex"
)

// hashOf is a rule file's content hash as the engine records it: "sha256:" and the hex
// digest. Comparing it first spares compiling a file that is not the one recorded.
func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
