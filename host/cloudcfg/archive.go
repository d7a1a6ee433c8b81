package cloudcfg

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync"
	"time"
)

// ConfigName is the name of the settings file inside an archive. It must
// match exactly: no directory part, same case.
const ConfigName = "cloud.cfg"

// Limits bounds what CheckArchive accepts. A zero field takes its value
// from DefaultLimits.
type Limits struct {
	MaxArchive      int64 // bytes of the uploaded zip
	MaxUncompressed int64 // bound on the uncompressed size of cloud.cfg (declared AND actual)
	MaxEntries      int   // bound on the number of entries in the archive
}

// DefaultLimits leaves ample room for real uploads: a full cloud.cfg from the
// game is about 30 KiB, about 5 KiB once zipped.
var DefaultLimits = Limits{
	MaxArchive:      1 << 20, // 1 MiB
	MaxUncompressed: 1 << 20, // 1 MiB
	MaxEntries:      64,
}

// EnsureDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) EnsureDefaults() Limits {
	if l.MaxArchive == 0 {
		l.MaxArchive = DefaultLimits.MaxArchive
	}
	if l.MaxUncompressed == 0 {
		l.MaxUncompressed = DefaultLimits.MaxUncompressed
	}
	if l.MaxEntries == 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	return l
}

// Validate reports whether l, after EnsureDefaults, is usable.
func (l Limits) Validate() error {
	l = l.EnsureDefaults()
	if l.MaxArchive < 0 || l.MaxUncompressed < 0 || l.MaxEntries < 0 {
		return fmt.Errorf("cloudcfg: negative limit in %+v", l)
	}
	return nil
}

const (
	flagEncrypted = 0x1 // general purpose bit 0
)

// CheckArchive verifies that data is a zip archive holding a file named
// exactly "cloud.cfg" and returns that file's contents. Other entries are
// allowed and ignored (see the package documentation). The returned slice is
// never longer than lim.MaxUncompressed.
//
// Errors wrap ErrNotZip, ErrNoConfig, ErrTooLarge or ErrBadArchive.
func CheckArchive(data []byte, lim Limits) ([]byte, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	lim = lim.EnsureDefaults()

	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty upload", ErrNotZip)
	}
	if int64(len(data)) > lim.MaxArchive {
		return nil, fmt.Errorf("%w: archive is %d bytes, limit %d", ErrTooLarge, len(data), lim.MaxArchive)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !(zr != nil && errors.Is(err, zip.ErrInsecurePath)) {
		// archive/zip says ErrFormat both for "no zip here" and for a
		// damaged directory; a leading signature tells them apart.
		if errors.Is(err, zip.ErrFormat) && !bytes.HasPrefix(data, []byte("PK")) {
			return nil, fmt.Errorf("%w: %v", ErrNotZip, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrBadArchive, err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, fmt.Errorf("%w: %d entries, limit %d", ErrTooLarge, len(zr.File), lim.MaxEntries)
	}

	var cfg *zip.File
	for _, f := range zr.File {
		if f.Flags&flagEncrypted != 0 {
			return nil, fmt.Errorf("%w: entry %q is encrypted", ErrBadArchive, f.Name)
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			return nil, fmt.Errorf("%w: entry %q uses compression method %d", ErrBadArchive, f.Name, f.Method)
		}
		if strings.TrimSuffix(f.Name, "/") != ConfigName {
			continue
		}
		if strings.HasSuffix(f.Name, "/") || f.Mode().IsDir() {
			return nil, fmt.Errorf("%w: %s is a directory", ErrBadArchive, ConfigName)
		}
		if cfg != nil {
			return nil, fmt.Errorf("%w: %s appears more than once", ErrBadArchive, ConfigName)
		}
		cfg = f
	}
	if cfg == nil {
		return nil, ErrNoConfig
	}
	return readEntry(cfg, lim.MaxUncompressed)
}

// readEntry decompresses f, reading at most bound+1 bytes whatever its header
// declares. It decompresses the raw bytes itself rather than trusting
// zip.File.Open, so the bound holds even if a decompressor registered
// elsewhere in the program, or a future archive/zip, behaves differently.
func readEntry(f *zip.File, bound int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(bound) {
		return nil, fmt.Errorf("%w: %s declares %d bytes, limit %d", ErrTooLarge, ConfigName, f.UncompressedSize64, bound)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadArchive, err)
	}
	var rd io.Reader = raw
	if f.Method == zip.Deflate {
		fr := getInflater(raw)
		defer putInflater(fr)
		rd = fr
	}

	// The declared size is at most bound here, so it is safe to size the
	// buffer from it; a lying header only costs a regrowth up to bound+1.
	buf := bytes.NewBuffer(make([]byte, 0, int(f.UncompressedSize64)+1))
	sum := crc32.NewIEEE()
	cb := getCopyBuf()
	defer copyBufs.Put(cb)
	n, err := io.CopyBuffer(io.MultiWriter(buf, sum), io.LimitReader(rd, bound+1), *cb)
	if n > bound {
		return nil, fmt.Errorf("%w: %s inflates past %d bytes", ErrTooLarge, ConfigName, bound)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadArchive, ConfigName, err)
	}
	if uint64(n) != f.UncompressedSize64 {
		return nil, fmt.Errorf("%w: %s declares %d bytes but holds %d", ErrBadArchive, ConfigName, f.UncompressedSize64, n)
	}
	// Like archive/zip, treat a zero CRC as "not recorded".
	if f.CRC32 != 0 && sum.Sum32() != f.CRC32 {
		return nil, fmt.Errorf("%w: %s fails its checksum", ErrBadArchive, ConfigName)
	}
	// The bounded read above proved the entry is safe to inflate. Reading
	// it once more through archive/zip applies the checks this function does
	// not repeat (data descriptors, sizes that run past the archive), so
	// that whatever is accepted here any unzip reads the same way.
	if err := sameAsZipReader(f, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadArchive, ConfigName, err)
	}
	return buf.Bytes(), nil
}

func sameAsZipReader(f *zip.File, want []byte) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	cw := &compareWriter{want: want}
	// want is the whole entry, so one more byte than that is a mismatch.
	cb := getCopyBuf()
	defer copyBufs.Put(cb)
	if _, err := io.CopyBuffer(cw, io.LimitReader(rc, int64(len(want))+1), *cb); err != nil {
		return err
	}
	if len(cw.want) != 0 {
		return errors.New("archive/zip reads less than the raw entry holds")
	}
	return nil
}

// compareWriter accepts exactly the bytes in want, in order.
type compareWriter struct{ want []byte }

func (c *compareWriter) Write(p []byte) (int, error) {
	if len(p) > len(c.want) || !bytes.Equal(p, c.want[:len(p)]) {
		return 0, errors.New("archive/zip reads different content from the raw entry")
	}
	c.want = c.want[len(p):]
	return len(p), nil
}

// archiveTime is the modification time BuildArchive records, fixed so that
// the same settings always give the same bytes.
var archiveTime = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// BuildArchive returns a zip archive holding cfg as a deflated cloud.cfg, the
// shape the game client uploads. The output depends only on cfg.
//
// It deflates at flate.BestSpeed with pooled compressors: archive/zip's own
// (default level) compressors are pooled too, but resetting one clears
// ~640 KiB of hash chains, which was a quarter of the load tester's CPU per
// cloud store; a BestSpeed compressor resets in constant time.
func BuildArchive(cfg []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, fastCompressor)
	w, err := zw.CreateHeader(&zip.FileHeader{
		Name:     ConfigName,
		Method:   zip.Deflate,
		Modified: archiveTime,
	})
	if err != nil {
		return nil, fmt.Errorf("cloudcfg: build archive: %w", err)
	}
	if _, err := w.Write(cfg); err != nil {
		return nil, fmt.Errorf("cloudcfg: build archive: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("cloudcfg: build archive: %w", err)
	}
	return buf.Bytes(), nil
}

// Decompressors and copy buffers are pooled: a decompressor holds ~40 KiB of
// tables and window, io.Copy a 32 KiB buffer, which were allocated and zeroed
// for every upload (archive/zip pools its own, used by sameAsZipReader).
var (
	deflaters sync.Pool // *flate.Writer at BestSpeed
	inflaters sync.Pool // io.ReadCloser implementing flate.Resetter
	copyBufs  sync.Pool // *[]byte, the buffers of the copies in readEntry
)

func getCopyBuf() *[]byte {
	if b, ok := copyBufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 16<<10)
	return &b
}

func getInflater(r io.Reader) io.ReadCloser {
	if fr, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := fr.(flate.Resetter).Reset(r, nil); err == nil {
			return fr
		}
	}
	return flate.NewReader(r)
}

func putInflater(fr io.ReadCloser) {
	fr.Close()
	inflaters.Put(fr)
}

// fastCompressor is BuildArchive's zip.Compressor.
func fastCompressor(w io.Writer) (io.WriteCloser, error) {
	fw, ok := deflaters.Get().(*flate.Writer)
	if ok {
		fw.Reset(w)
	} else {
		var err error
		if fw, err = flate.NewWriter(w, flate.BestSpeed); err != nil {
			return nil, err
		}
	}
	return &pooledDeflater{w: fw}, nil
}

// pooledDeflater returns its writer to the pool when closed (once).
type pooledDeflater struct{ w *flate.Writer }

func (p *pooledDeflater) Write(b []byte) (int, error) {
	if p.w == nil {
		return 0, errors.New("cloudcfg: write after close")
	}
	return p.w.Write(b)
}

func (p *pooledDeflater) Close() error {
	if p.w == nil {
		return nil
	}
	err := p.w.Close()
	deflaters.Put(p.w)
	p.w = nil
	return err
}
