package sandbox

// BubblewrapOptions configure a Bubblewrap jail; zero values take the defaults.
type BubblewrapOptions struct {
	Path   string // the bwrap binary; "" looks it up in PATH
	Limits Limits
	// AllowNet lists the destinations commands may connect to; empty: no network at all.
	AllowNet []NetRule
	// CheckAddr, when set, is asked about every address an AllowNet name resolves to when
	// a command connects, besides the sandbox's own rules (see NeverReached): a fleet
	// worker forbids its NATS servers with it.
	CheckAddr AddrCheck
	// ReadOnly are host paths (absolute) made visible read-only besides the system
	// directories, e.g. a toolchain under /opt.
	ReadOnly []string
	// Hidden are host paths that must stay invisible even when they lie under a visible
	// directory: the spine's configuration, traces and memory store.
	Hidden []string
	// HostUID and HostGID are the host identity commands run as when the spine runs as
	// root; 0 takes 65534 (nobody). A non-root spine's commands run as its own uid, the
	// only one an unprivileged user namespace can map.
	HostUID, HostGID int
}
