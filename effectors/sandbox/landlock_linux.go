//go:build linux

package sandbox

import "github.com/agentspine/spine/effectors/sandbox/launch"

// The Landlock calls live in package launch, which the launcher runs from; the sandbox's
// file tools use them through these names.

type llRule = launch.Rule

const llWritable = launch.Writable

func landlockABI() (int, error) { return launch.LandlockABI() }

func restrictThread(abi int, rules []llRule, scoped bool) error {
	return launch.RestrictThread(abi, rules, scoped)
}
