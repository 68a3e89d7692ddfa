//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
)

var _ Starter = (*Bubblewrap)(nil)

// Start implements Starter: the program runs in a sandbox of its own, built as a shell
// call's is — the same namespaces, view of the file system, work dir, limits, cgroup,
// seccomp filter and Landlock — from its own staging thread, which lives until the
// program is waited for. Its network is its own AllowNet, through a relay of its own.
func (b *Bubblewrap) Start(ctx context.Context, p Program) (*Running, error) {
	if err := checkProgram(p); err != nil {
		return nil, err
	}
	if len(p.AllowNet) > 0 && os.Geteuid() != 0 {
		return nil, errors.New("sandbox: a program's network needs root: the relay opens its listeners inside the sandbox's network namespace")
	}
	pp, err := newPipes()
	if err != nil {
		return nil, err
	}
	ro := append(append([]string(nil), b.opts.ReadOnly...), p.ReadOnly...)
	l, err := b.launch(ctx, launchSpec{argv: p.Argv, dir: p.Dir, env: p.Env, stdin: pp.inR, stdout: pp.outW,
		stderr: p.Stderr, relays: planRelays(p.AllowNet), readOnly: ro}, false)
	if err != nil {
		pp.closeAll()
		return nil, err
	}
	r := pp.started()
	r.stop, r.pid = l.cmd.Cancel, l.cmd.Process.Pid
	go func() {
		_, r.err = l.wait(p.Stderr)
		close(r.done)
	}()
	return r, nil
}
