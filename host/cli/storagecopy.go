package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/storage"
)

// runStorage runs "storage copy": it moves a stopped server's whole
// database between backends (a data directory and a PostgreSQL database,
// either way, or two of a kind).
func runStorage(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		storageUsage(stdout, nil)
		if len(args) == 0 {
			return usageError("storage needs a subcommand: copy")
		}
		return flag.ErrHelp
	}
	if args[0] != "copy" {
		return usageError("unknown command \"storage %s\"", args[0])
	}
	fs := newFlags("storage copy", stderr)
	from := fs.String("from", "", "source: a data directory or a postgres:// URL (default: --data)")
	to := fs.String("to", "", "target: a data directory or a postgres:// URL (default: --data)")
	data := fs.String("data", "", "the data directory, for whichever of --from and --to is not given")
	overwrite := fs.Bool("overwrite", false, "delete every record of a non-empty target first (else it is refused)")
	fs.BoolVar(overwrite, "force", false, "same as --overwrite")
	passwordFile := fs.String("password-file", "", "file holding the PostgreSQL password (default: the URL's, or PGPASSWORD)")
	if err := parse(fs, args[1:]); errors.Is(err, flag.ErrHelp) {
		storageUsage(stdout, fs)
		return flag.ErrHelp
	} else if err != nil {
		return err
	}
	switch {
	case *from == "" && *to == "":
		return usageError("give --from and --to (a data directory or a postgres:// URL each), or one of them and --data")
	case *from == "":
		*from = *data
	case *to == "":
		*to = *data
	case *data != "":
		return usageError("--data is for the side --from or --to does not give; both are given")
	}
	if *from == "" || *to == "" {
		return usageError("give both sides: --from and --to, or one of them and --data")
	}
	if *from == *to {
		return usageError("--from and --to are the same database")
	}
	var password string
	if *passwordFile != "" {
		if err := privateFile("--password-file", *passwordFile); err != nil {
			return err // as serve refuses its storage.postgres.password_file
		}
		b, err := os.ReadFile(*passwordFile)
		if err != nil {
			return &opError{cause: errors.Join(errConfig, err), msg: "cannot read --password-file: " + unwrapPath(err)}
		}
		password = strings.TrimRight(strings.SplitN(string(b), "\n", 2)[0], "\r")
	}
	log := slog.New(slog.DiscardHandler)
	src, err := openCopySide(*from, password, false, log)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := openCopySide(*to, password, true, log)
	if err != nil {
		return err
	}
	defer dst.Close()
	start := time.Now()
	sums, err := storage.Copy(src, dst, storage.CopyOptions{Overwrite: *overwrite, Progress: func(n int) {
		fmt.Fprintf(stderr, "\rcopied %d records", n)
	}})
	fmt.Fprintln(stderr)
	switch {
	case errors.Is(err, storage.ErrTargetNotEmpty):
		return &opError{cause: err, msg: fmt.Sprintf("nothing copied: %s already holds a database (%s); "+
			"give --overwrite to replace it", describeSide(*to), specifics(err, storage.ErrTargetNotEmpty))}
	case errors.Is(err, storage.ErrCopyMismatch):
		return &opError{cause: err, msg: fmt.Sprintf("the copy in %s does not match %s (%s): was a server running on either? "+
			"Stop it and copy again with --overwrite", describeSide(*to), describeSide(*from), specifics(err, storage.ErrCopyMismatch))}
	case err != nil:
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	total := 0
	fmt.Fprintln(tw, "keyspace\trecords\tsha256 (first 8 bytes)\t")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d\t%x\t\n", s.Prefix, s.Count, s.Sum[:8])
		total += s.Count
	}
	tw.Flush()
	fmt.Fprintf(stdout, "copied %d records in %d keyspaces from %s to %s in %s; counts and checksums match on both sides\n",
		total, len(sums), describeSide(*from), describeSide(*to), time.Since(start).Round(time.Millisecond))
	return nil
}

// isPostgresURL tells a PostgreSQL side from a data directory.
func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

func describeSide(s string) string {
	if isPostgresURL(s) {
		return storage.RedactURL(s)
	}
	return s
}

// openCopySide opens one side of a copy: a PostgreSQL database, or the
// database in a data directory (created for a target; a source must hold
// one). A data directory a server runs on is refused by its lock.
func openCopySide(side, password string, target bool, log *slog.Logger) (*storage.DB, error) {
	if isPostgresURL(side) {
		return openPostgres(config.StoragePostgres{URL: side, PasswordFile: "", MaxConns: 4}, log, password, "")
	}
	if !target {
		if err := checkDataDir(side, false); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(side, 0o700); err != nil {
		return nil, &opError{cause: err, msg: "cannot create the target data directory: " + unwrapPath(err)}
	}
	// The source read-only: a copy changes nothing of what it reads, and
	// a backup's files are checked by restore (opened for writing, the
	// storage engine rewrote its log and manifest and restore refused the
	// backup as damaged). A source of an earlier version (or whose
	// migration was interrupted) is refused, not migrated in place: a
	// backup cannot be told from a data directory for sure (backups of
	// earlier versions carry no SHA256SUMS), and a migrated backup is no
	// longer one the version that wrote it can restore.
	db, err := storage.Open(filepath.Join(side, dbDirName), &storage.Options{Logger: storage.RateLimitedLogger(log, 5*time.Second), ReadOnly: !target})
	if errors.Is(err, storage.ErrNeedsMigration) {
		return nil, &opError{cause: errors.Join(errConfig, err), msg: fmt.Sprintf("%s was written by an earlier version (or its migration was interrupted), "+
			"and storage copy reads its source without changing it. If it is a backup, restore it into a new data directory "+
			"(%s restore --from %s --data NEWDIR) and copy from that; if it is a data directory, start this version's server on it once "+
			"(%s serve --data %s), stop it, then copy",
			side, Name, side, Name, side)}
	}
	if err != nil {
		return nil, openError(side, err)
	}
	return db, nil
}

func storageUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s storage copy --from DIR|URL --to DIR|URL [--overwrite] [--password-file FILE]\n", Name)
	fmt.Fprintf(w, "       %s storage copy --data DIR --to postgres://USER@HOST/DB   (a data directory to PostgreSQL)\n", Name)
	fmt.Fprintf(w, "       %s storage copy --from postgres://USER@HOST/DB --data DIR (and back)\n\n", Name)
	fmt.Fprintln(w, "Copies a stopped server's whole database, record by record, then checks that both sides hold")
	fmt.Fprintln(w, "the same records (count and SHA-256 per keyspace). A target that holds records is refused")
	fmt.Fprintln(w, "unless --overwrite. Stop the server first: a data directory in use is refused, and a")
	fmt.Fprintln(w, "PostgreSQL database written during the copy fails the check. See docs/postgres.md.")
	if fs != nil {
		fmt.Fprintln(w, "\nflags:")
		printFlags(w, fs)
	}
}
