package storage

import (
	"io"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Modes of everything the database writes: only the server's own user may
// read live session data, the WAL or a checkpoint.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// privateFS makes every directory Pebble creates 0700 and every file 0600,
// whatever the process umask (checkpoints and backups go through it too).
type privateFS struct{ vfs.FS }

func (fs privateFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err == nil {
		err = os.Chmod(name, FileMode)
	}
	return f, err
}

func (fs privateFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, category, opts...)
	if err == nil {
		err = os.Chmod(name, FileMode)
	}
	return f, err
}

func (fs privateFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err == nil {
		err = os.Chmod(newname, FileMode)
	}
	return f, err
}

func (fs privateFS) MkdirAll(dir string, _ os.FileMode) error {
	if err := fs.FS.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	return os.Chmod(dir, DirMode)
}

func (fs privateFS) Lock(name string) (io.Closer, error) {
	c, err := fs.FS.Lock(name)
	if err == nil {
		_ = os.Chmod(name, FileMode)
	}
	return c, err
}

func (fs privateFS) Unwrap() vfs.FS { return fs.FS }
