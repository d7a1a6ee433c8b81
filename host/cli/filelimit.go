package cli

import (
	"log/slog"
	"syscall"

	"github.com/honmaster/masterserver/config"
)

// File descriptors the server needs besides its game connections, for the
// warning of checkFileLimit. Pebble keeps up to 1000 table files open (its
// default MaxOpenFiles, which storage does not change); the host itself
// holds its listeners, the admin socket, Pebble's WAL, manifest and lock,
// operator connections and standard streams (64 is generous); each plugin
// costs its go-plugin pipes and gRPC connection (16 each, with room).
const (
	pebbleOpenFiles = 1000
	hostOpenFiles   = 64
	pluginOpenFiles = 16
)

// fileLimit reads the process's open-file limit (soft and hard).
func fileLimit() (soft, hard uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	return lim.Cur, lim.Max, nil
}

// checkFileLimit warns when limits.max_connections and what storage and
// plugins need do not fit in the open-file limit: then idle connections
// make accept fail (EMFILE) and the storage engine fail to open its files
// long before max_connections protects anything.
//
// It does not raise the limit: Go already raises the soft limit to the hard
// one when the process starts (Go 1.19+, on every Unix), and a Setrlimit
// here would stop Go from restoring the original limit for the plugin
// processes it starts. What is left to do is say so when even the hard
// limit is too low.
func checkFileLimit(cfg *config.Config, plugins int, log *slog.Logger, limit func() (soft, hard uint64, err error)) {
	soft, hard, err := limit()
	if err != nil {
		log.Warn("cannot read the open-file limit", "err", err)
		return
	}
	need := uint64(cfg.Limits.MaxConnections) + pebbleOpenFiles + hostOpenFiles + uint64(plugins)*pluginOpenFiles
	if need <= soft {
		return
	}
	log.Warn("the open-file limit is below what limits.max_connections and storage need: "+
		"raise it (ulimit -n, systemd LimitNOFILE=) or lower limits.max_connections",
		"open_file_limit", soft, "hard_limit", hard, "needed", need,
		"max_connections", cfg.Limits.MaxConnections, "storage_and_plugins", need-uint64(cfg.Limits.MaxConnections))
}
