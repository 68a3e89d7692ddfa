package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/fleet/fleettext"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/snapshot/tracerefs"
	"github.com/agentspine/spine/taskrun"
)

const snapshotSummary = "inspect and prune the work-dir snapshots in the state directory"

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := cli.GroupCommand("snapshot", snapshotSummary, "verb")
		c.Long = snapshotSummary + `

Snapshots are content-addressed: a file's content is stored once however many snapshots
hold it, and a snapshot is named by its root hash, the hash of its manifest. The store is
$XDG_STATE_HOME/spine/snapshots (else ~/.local/state/spine/snapshots), or --store DIR.
A work dir over 256 MiB of files or 20,000 entries is refused.`
		c.PersistentFlags().String("store", "", "snapshot store `DIR` (default: snapshots in the state directory)")
		return c
	})
	snapshotVerb("take DIR", "store a snapshot of DIR and print its root hash", 1, func(io stdio, _ *cobra.Command) snapshotRun {
		return func(s *snapshot.Store, args []string) error {
			root, st, err := s.Take(args[0])
			if err == nil {
				fmt.Fprintf(io.out, "%s\n", root)
				fmt.Fprintf(io.err, "%d files, %d bytes: %d read, %d unchanged since the last snapshot; %d bytes newly stored\n", st.Files, st.Bytes, st.Hashed, st.Reused, st.Stored)
			}
			return err
		}
	})
	snapshotVerb("ls", "list the stored snapshots, oldest first", 0, func(io stdio, _ *cobra.Command) snapshotRun {
		return func(s *snapshot.Store, _ []string) error {
			list, err := s.List()
			if err != nil {
				return err
			}
			return fleettext.Snapshots(io.out, list)
		}
	})
	snapshotVerb("show ROOT", "print a snapshot's manifest: every path with its type, mode, size and hash or target", 1, func(io stdio, _ *cobra.Command) snapshotRun {
		return func(s *snapshot.Store, args []string) error {
			m, err := s.Manifest(args[0])
			if err == nil {
				_, err = io.out.Write(m.Encode())
			}
			return err
		}
	})
	snapshotVerb("gc [--keep ROOT]... [--traces DIR]... [--dry-run] | --all", "remove every snapshot no trace records and --keep does not name, and every file content no kept snapshot holds", 0, snapshotGC)
}

// snapshotGC is spine snapshot gc: its flags on c, and what it does.
func snapshotGC(io stdio, c *cobra.Command) snapshotRun {
	var req tracerefs.GCRequest
	var all bool
	c.Long = `The traces read are those in spine run's trace directory ($SPINE_TRACE_DIR, else traces in
the state directory) and under every --traces DIR (recursively: a worker's --workdir-root
holds its traces, its store is .snapshots there). --dry-run lists what would go.`
	c.Flags().StringSliceVar(&req.Keep, "keep", nil, "keep the snapshot `ROOT` and everything it references")
	c.Flags().StringArrayVar(&req.Traces, "traces", nil, "keep the snapshots the traces under `DIR` record (repeatable), besides spine run's trace directory")
	c.Flags().BoolVar(&req.DryRun, "dry-run", false, "list what would be removed; remove nothing")
	c.Flags().BoolVar(&all, "all", false, "remove every snapshot, whatever the traces record")
	return func(s *snapshot.Store, _ []string) error {
		if all && len(req.Keep)+len(req.Traces) > 0 {
			return cli.Usagef("--all removes every snapshot: give it without --keep or --traces")
		}
		if !all {
			req.DefaultTraces, _ = taskrun.DefaultTraceDir() // none: only --traces are read
		}
		res, found, err := tracerefs.GC(s, req)
		if err != nil {
			return err
		}
		fleettext.SnapshotGC(io.out, res, found.Traces, req.DryRun)
		if len(res.Missing) > 0 {
			warn(io, fmt.Sprintf("%d snapshot(s) the traces record are not in this store (taken into another)", len(res.Missing)))
		}
		return nil
	}
}

// snapshotRun is a snapshot verb's work on the store.
type snapshotRun func(s *snapshot.Store, args []string) error

// snapshotVerb adds `spine snapshot USE`, taking nargs arguments; build adds its flags
// and gives its work, run on the store --store names, or the one in the state directory.
func snapshotVerb(use, short string, nargs int, build func(io stdio, c *cobra.Command) snapshotRun) {
	addCommand("snapshot", func(io stdio) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(nargs)}
		run := build(io, c)
		c.RunE = func(c *cobra.Command, args []string) error {
			dir, _ := c.Flags().GetString("store")
			s, err := fleet.OpenSnapshots(dir, os.Getenv)
			if err != nil {
				return err
			}
			return run(s, args)
		}
		return c
	})
}
