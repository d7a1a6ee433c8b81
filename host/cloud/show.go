package cloud

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode"

	"github.com/honmaster/masterserver/host/cloudcfg"
	"github.com/honmaster/masterserver/storage"
)

var (
	// ErrUnknownLogin is returned by Show for a login no account has.
	ErrUnknownLogin = errors.New("cloud: unknown login")
	// ErrNothingStored is returned by Show when the account has no archive
	// in the bucket.
	ErrNothingStored = errors.New("cloud: nothing stored")
)

// showMaxUncompressed bounds cloud.cfg when Show unpacks a stored archive.
// Stored archives passed the configured bound when uploaded; this one only
// keeps a damaged database from exhausting the operator's memory.
const showMaxUncompressed = 64 << 20

// Show prints an account's stored settings readably for operators: a short
// header (account, bucket, file_modify_time, when it was stored, size) and
// the settings, rebinds and binds of its cloud.cfg (see
// cloudcfg.File.WriteText). Lines the parser cannot read are listed, not
// fatal. An empty bucket means DefaultBucket. It only reads db.
func Show(ctx context.Context, db *storage.DB, loginName, bucket string, out io.Writer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if loginName == "" {
		return fmt.Errorf("%w: no login given", ErrUnknownLogin)
	}
	if bucket == "" {
		bucket = DefaultBucket
	}
	id, err := db.LoginID(loginName)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("%w: %q", ErrUnknownLogin, loginName)
	} else if err != nil {
		return err
	}
	obj, err := archive(db, id, bucket)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("%w: account %q has no settings in bucket %s", ErrNothingStored, loginName, printable(bucket))
	} else if err != nil {
		return err
	}
	// ReadArchive, not CheckArchive: archives stored by earlier versions
	// may hold other entries, and the operator still sees their settings.
	cfg, err := cloudcfg.ReadArchive(obj.Data, cloudcfg.Limits{
		MaxArchive:      max(int64(len(obj.Data)), 1),
		MaxUncompressed: showMaxUncompressed,
	})
	if err != nil {
		return fmt.Errorf("cloud: stored archive of %q in bucket %s: %w", loginName, printable(bucket), err)
	}
	file, err := cloudcfg.Parse(cfg, cloudcfg.Lenient)
	if err != nil {
		return err
	}

	bw := bufio.NewWriter(out)
	fmt.Fprintf(bw, "Account:   %s (id %d)\n", printable(loginName), id)
	fmt.Fprintf(bw, "Bucket:    %s\n", printable(bucket))
	fmt.Fprintf(bw, "Modified:  %s (file_modify_time sent by the client)\n", printable(obj.ModifyTime))
	fmt.Fprintf(bw, "Stored:    %s\n", obj.Stored.UTC().Format(time.RFC3339))
	fmt.Fprintf(bw, "Size:      %d bytes zipped, %d bytes of cloud.cfg\n\n", len(obj.Data), len(cfg))
	if err := file.WriteText(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// printable returns s as it is when every rune is printable, else quoted Go
// style, so that nothing stored can reach the terminal as a control
// sequence.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return strconv.Quote(s)
		}
	}
	return s
}
