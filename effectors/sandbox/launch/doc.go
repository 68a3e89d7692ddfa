// Package launch is the sandbox's launcher and its Landlock calls. It is a package of its
// own, importing nothing but the standard library's low levels and x/sys/unix, because
// the launcher runs from its init once per shell call: the Go specification initialises
// packages in import-path order among those whose imports are done, so a small package
// is initialised early, before the spine's heavier dependencies (NATS, the stores, the
// expression engine), whose initialisation would otherwise be paid on every call. It must
// not import any other package of the spine.
package launch
