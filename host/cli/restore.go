package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/storage"
)

// A backup (honmaster backup --to DIR) is laid out as a data directory:
// DIR/db is the database's checkpoint (it holds the generated auth_hash
// secret with everything else) and DIR/operator.token the generated
// operator token, when there is one. The configuration file is the
// operator's own and in no backup: keep it with the rest of the machine's
// configuration.

// runRestore is "honmaster restore --from BACKUP --data DIR": it puts a
// backup in place as DIR's database, with the server stopped.
func runRestore(_ context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fset := newFlags("restore", stderr)
	from := fset.String("from", "", "the backup directory (written by honmaster backup --to)")
	data := fset.String("data", "", "the data directory to restore into (created if missing; its server must be stopped)")
	replace := fset.Bool("replace", false, "set the data directory's current database aside (renamed db.replaced-TIME) instead of refusing")
	if err := parse(fset, args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "usage: %s restore --from BACKUP --data DIR [--replace]\n\n"+
			"Restores a backup (honmaster backup --to BACKUP) into DIR, with the server on DIR stopped: the\n"+
			"database, its generated secret and the operator token. The configuration file is not in\n"+
			"backups: it is yours to keep.\n\nflags:\n", Name)
		printFlags(stdout, fset)
		return flag.ErrHelp
	} else if err != nil {
		return err
	}
	switch {
	case *from == "" || *data == "":
		return usageError("give --from BACKUP and --data DIR")
	}
	// The audit trail's line (no server runs: on stderr), once restored (a
	// failure says its own sentence there).
	defer func() {
		if err == nil {
			operator.Audit(slog.New(slog.NewTextHandler(stderr, nil)), operator.ByCommand, "restore", "",
				[]any{"from", *from, "data", *data, "replace", *replace}, nil)
		}
	}()
	src, err := backupDB(*from)
	if err != nil {
		return err
	}
	// The backup's checksums (SumsFile), when it has them: every file is
	// checked on the copy below, before anything changes.
	sums, err := readSums(*from)
	switch {
	case errors.Is(err, errNoSums):
		fmt.Fprintf(stderr, "warning: %s has no %s (a backup written by an earlier version, or one that did not finish): "+
			"it is checked only by opening it, which does not find every damage\n", *from, SumsFile)
	case err != nil:
		return &opError{cause: errors.Join(errUsage, err), msg: fmt.Sprintf("%s is damaged, nothing was changed: %s", *from, unwrapPath(err))}
	}
	if conn, err := net.DialTimeout("unix", filepath.Join(*data, AdminSocketName), 2*time.Second); err == nil {
		conn.Close()
		return &opError{cause: errInUse, msg: fmt.Sprintf("a server is running on %s: stop it first (systemctl stop honmaster), then restore", *data)}
	}
	if err := mkdirSynced(*data, 0o700); err != nil {
		return &opError{cause: err, msg: "cannot create the data directory: " + unwrapPath(err)}
	}
	if fi, err := os.Stat(*data); err == nil {
		if uid, other := otherOwner(fi); other {
			fmt.Fprintf(stderr, "warning: %s belongs to user %d, not to you (user %d): the database this restore writes will be yours, "+
				"and a server run as user %d may not be able to open it; run the restore as that user, or chown -R it afterwards\n",
				*data, uid, os.Getuid(), uid)
		}
	}
	dst := filepath.Join(*data, dbDirName)
	if fi, err := os.Lstat(dst); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(dst)
		return &opError{cause: errors.Join(errUsage, fs.ErrExist), msg: fmt.Sprintf("%s is a symbolic link (to %s), which restore does not replace, "+
			"nothing was changed: restore with --data naming the directory that holds the link's target, or remove the link", dst, target)}
	}
	if _, err := os.Stat(dst); err == nil && !*replace {
		return &opError{cause: errors.Join(errUsage, fs.ErrExist), msg: fmt.Sprintf("%s already has a database: add --replace to set it aside "+
			"(it is renamed, not deleted), or restore into a new directory", *data)}
	}

	// Verify the backup on a copy inside the data directory, so that what
	// is checked is what gets used: it must open as a database this
	// version can serve.
	tmp := filepath.Join(*data, "db.restoring")
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := copyTree(src, tmp); err != nil {
		os.RemoveAll(tmp)
		return &opError{cause: err, msg: "cannot copy the backup: " + unwrapPath(err)}
	}
	if sums != nil {
		if err := sums.check(dbDirName+"/", tmp); err != nil {
			os.RemoveAll(tmp)
			return &opError{cause: errors.Join(errUsage, err), msg: fmt.Sprintf("%s is damaged, nothing was changed: %s", *from, err)}
		}
	}
	accounts, older, err := verifyRestored(tmp, filepath.Join(*data, "db.verifying"))
	if err != nil {
		os.RemoveAll(tmp)
		return &opError{cause: err, msg: fmt.Sprintf("%s is not a usable backup, nothing was changed: %s", *from, explain(openError(tmp, err)))}
	}
	tokenBytes, tokenErr := os.ReadFile(filepath.Join(*from, operator.TokenFile))
	if tokenErr == nil {
		if err := sums.checkBytes(operator.TokenFile, tokenBytes); err != nil {
			os.RemoveAll(tmp)
			return &opError{cause: errors.Join(errUsage, err), msg: fmt.Sprintf("%s is damaged, nothing was changed: %s", *from, err)}
		}
	}

	if _, err := os.Stat(dst); err == nil {
		// Taking its lock proves no server holds it. Only the lock: the
		// database is not opened, so one written by a newer version (the
		// rollback after an upgrade) is set aside as any other.
		release, err := storage.Lock(dst)
		if err != nil {
			os.RemoveAll(tmp)
			return &opError{cause: errInUse, msg: fmt.Sprintf("the database in %s cannot be set aside: %s", *data, explain(openError(dst, err)))}
		}
		release()
		aside := dst + ".replaced-" + time.Now().UTC().Format("20060102T150405Z")
		for i := 2; ; i++ { // two restores within a second
			if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
				break
			}
			aside = fmt.Sprintf("%s.replaced-%s-%d", dst, time.Now().UTC().Format("20060102T150405Z"), i)
		}
		if err := os.Rename(dst, aside); err != nil {
			os.RemoveAll(tmp)
			return err
		}
		fmt.Fprintf(stdout, "the previous database is kept in %s\n", aside)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	token := "no operator token in the backup (a new one is generated at start, or operator.token in the configuration is used)"
	if tokenErr == nil {
		if err := writeSynced(filepath.Join(*data, operator.TokenFile), tokenBytes, 0o600); err != nil {
			return err
		}
		token = "operator token restored"
	}
	// The renames and the token's name durable before "restored" is said:
	// a power loss right after could otherwise leave the data directory
	// with no database, which serve would start empty.
	if err := syncDir(*data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s into %s: %d accounts; %s.\nThe configuration file is not part of backups: start the server with yours.\n",
		*from, *data, accounts, token)
	if older != 0 {
		fmt.Fprintf(stdout, "The backup is at schema %d, older than this version's %d: it is restored as it was written, so that the "+
			"version that wrote it serves it (going back after an upgrade); this version would migrate it when it starts.\n",
			older, storage.SchemaVersion)
	}
	return nil
}

// otherOwner returns the user id owning fi when it is not the user this
// process runs as.
func otherOwner(fi os.FileInfo) (uid int, other bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), int(st.Uid) != os.Getuid()
}

// errInUse: the data directory is in use by a running server.
var errInUse = errors.New("data directory in use")

// backupDB returns the database directory of a backup: BACKUP/db, or
// BACKUP itself for a backup written before backups held the token.
func backupDB(from string) (string, error) {
	for _, dir := range []string{filepath.Join(from, dbDirName), from} {
		// Every Pebble database has a manifest.
		if m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*")); len(m) > 0 {
			return dir, nil
		}
	}
	return "", &opError{cause: errors.Join(errUsage, fs.ErrNotExist),
		msg: fmt.Sprintf("%s holds no backup (no database in it or in its db directory): give the directory honmaster backup --to wrote", from)}
}

// verifyRestored opens the database at dir and reads every account, and
// returns how many there are. Opening migrates a database written at an
// older schema: such a one (its version returned as older) is verified on
// a copy in scratch, removed after, so that dir keeps the schema it was
// written at.
func verifyRestored(dir, scratch string) (accounts int, older uint32, err error) {
	v, err := storage.DirSchema(dir)
	if err != nil {
		return 0, 0, err
	}
	if v != 0 && v < storage.SchemaVersion {
		older = v
		if err := os.RemoveAll(scratch); err != nil {
			return 0, 0, err
		}
		defer os.RemoveAll(scratch)
		if err := copyTree(dir, scratch); err != nil {
			return 0, 0, err
		}
		dir = scratch
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	err = db.EachAccount(func(*storage.Account) error { accounts++; return nil })
	return accounts, older, err
}

// copyTree copies the regular files of src into dst (created), keeping
// the layout; a checkpoint has no other kind.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		return syncedFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600, in)
	})
}

// writeSynced writes data to path and syncs it before it returns.
func writeSynced(path string, data []byte, perm os.FileMode) error {
	return syncedFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm, bytes.NewReader(data))
}

// syncedFile opens path with flag and perm, copies r into it and syncs it
// before it returns.
func syncedFile(path string, flag int, perm os.FileMode, r io.Reader) error {
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mkdirSynced creates dir and any missing parents (os.MkdirAll), each name
// synced in its parent: a directory restore creates must not vanish in a
// power loss after "restored" (serve would start an empty database there).
func mkdirSynced(dir string, perm os.FileMode) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	for _, d := range missing {
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}
