package cloudcfg

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
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
}

// DefaultLimits leaves ample room for real uploads: a full cloud.cfg from the
// game is about 30 KiB, about 5 KiB once zipped.
var DefaultLimits = Limits{
	MaxArchive:      1 << 20, // 1 MiB
	MaxUncompressed: 1 << 20, // 1 MiB
}

// EnsureDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) EnsureDefaults() Limits {
	if l.MaxArchive == 0 {
		l.MaxArchive = DefaultLimits.MaxArchive
	}
	if l.MaxUncompressed == 0 {
		l.MaxUncompressed = DefaultLimits.MaxUncompressed
	}
	return l
}

// Validate reports whether l, after EnsureDefaults, is usable.
func (l Limits) Validate() error {
	l = l.EnsureDefaults()
	if l.MaxArchive < 0 || l.MaxUncompressed < 0 {
		return fmt.Errorf("cloudcfg: negative limit in %+v", l)
	}
	return nil
}

const (
	flagEncrypted  = 0x1 // general purpose bit 0
	flagDescriptor = 0x8 // general purpose bit 3: sizes and CRC follow the data
)

// CheckArchive verifies that data is what the specification says a
// settings archive is, a zip archive of exactly one file named exactly
// "cloud.cfg", and returns that file's contents. Nothing else may be in
// data: no other entry, no bytes before or after the archive or between
// its parts, no archive comment (see checkLayout). The returned slice is
// never longer than lim.MaxUncompressed.
//
// Errors wrap ErrNotZip, ErrNoConfig, ErrExtraContent, ErrTooLarge or
// ErrBadArchive.
func CheckArchive(data []byte, lim Limits) ([]byte, error) {
	if e, ok := plainEntry(data); ok {
		// Of openArchive's refusals, only these can apply to a
		// well-formed archive.
		if err := lim.Validate(); err != nil {
			return nil, err
		}
		lim = lim.EnsureDefaults()
		if int64(len(data)) > lim.MaxArchive {
			return nil, fmt.Errorf("%w: archive is %d bytes, limit %d", ErrTooLarge, len(data), lim.MaxArchive)
		}
		return readEntry(data, e, bytes.NewReader(data[e.dataOff:e.dataOff+e.csize]), lim.MaxUncompressed)
	}
	return checkArchiveZip(data, lim)
}

// checkArchiveZip is CheckArchive through archive/zip, for every archive
// plainEntry does not read: whatever it refuses, in the words of the
// refusal.
func checkArchiveZip(data []byte, lim Limits) ([]byte, error) {
	zr, lim, err := openArchive(data, lim)
	if err != nil {
		return nil, err
	}
	cfg, err := findConfig(zr)
	if err != nil {
		return nil, err
	}
	if len(zr.File) > 1 {
		other := zr.File[0]
		if other == cfg {
			other = zr.File[1]
		}
		return nil, fmt.Errorf("%w: %d entries besides %s, such as %.64q", ErrExtraContent, len(zr.File)-1, ConfigName, other.Name)
	}
	if err := checkLayout(data, cfg); err != nil {
		return nil, err
	}
	return readZipEntry(data, cfg, lim.MaxUncompressed)
}

// entryInfo is what readEntry needs of cloud.cfg's directory record.
type entryInfo struct {
	method, flags uint16
	crc           uint32
	csize, usize  uint64
	dataOff       uint64 // where its data starts in the archive
}

// plainEntry reads cloud.cfg's directory record from data without
// archive/zip, when data is an archive checkArchiveZip accepts up to the
// entry's content, and reads as archive/zip reads it: one entry, named
// exactly cloud.cfg, laid out as checkLayout requires, stored or
// deflated, not encrypted, with 32-bit sizes. It reports false for
// anything else, and for a few archives it could read but leaves to
// archive/zip (one whose attributes may say it is a directory, one whose
// directory is 65,535 bytes long, which archive/zip takes as a sign of a
// zip64 archive): those take the slow path, which accepts or refuses them
// in its own words. FuzzCheckArchive checks that both paths give the
// same answer. It spares a cloud store archive/zip's directory reading
// (two buffers, 1 and 4 KiB, allocated for each archive).
func plainEntry(data []byte) (entryInfo, bool) {
	le := binary.LittleEndian
	if len(data) < localLen+centralLen+endLen {
		return entryInfo{}, false
	}
	end := len(data) - endLen
	if le.Uint32(data[end:]) != sigEnd || le.Uint16(data[end+20:]) != 0 || le.Uint16(data[end+4:]) != 0 ||
		le.Uint16(data[end+6:]) != 0 || le.Uint16(data[end+8:]) != 1 || le.Uint16(data[end+10:]) != 1 {
		return entryInfo{}, false
	}
	dirSize, dirOff := uint64(le.Uint32(data[end+12:])), uint64(le.Uint32(data[end+16:]))
	if dirOff+dirSize != uint64(end) || dirSize >= 0xffff {
		return entryInfo{}, false
	}
	dir := data[dirOff:end]
	if len(dir) < centralLen || le.Uint32(dir) != sigCentral {
		return entryInfo{}, false
	}
	nameLen := int(le.Uint16(dir[28:]))
	if centralLen+nameLen+int(le.Uint16(dir[30:]))+int(le.Uint16(dir[32:])) != len(dir) ||
		le.Uint32(dir[42:]) != 0 || string(dir[centralLen:centralLen+nameLen]) != ConfigName {
		return entryInfo{}, false
	}
	e := entryInfo{flags: le.Uint16(dir[8:]), method: le.Uint16(dir[10:]), crc: le.Uint32(dir[16:])}
	csize, usize := le.Uint32(dir[20:]), le.Uint32(dir[24:])
	attrs := le.Uint32(dir[38:])
	if e.flags&flagEncrypted != 0 || (e.method != zip.Store && e.method != zip.Deflate) ||
		csize == ^uint32(0) || usize == ^uint32(0) || // zip64 sizes
		(attrs>>16)&0xf000 == 0x4000 || attrs&0x10 != 0 { // a Unix or MS-DOS directory
		return entryInfo{}, false
	}
	e.csize, e.usize = uint64(csize), uint64(usize)

	if le.Uint32(data) != sigLocal {
		return entryInfo{}, false
	}
	flags, method := le.Uint16(data[6:]), le.Uint16(data[8:])
	localName, localExtra := int(le.Uint16(data[26:])), int(le.Uint16(data[28:]))
	e.dataOff = uint64(localLen + localName + localExtra)
	if e.dataOff > dirOff || string(data[localLen:localLen+localName]) != ConfigName ||
		method != e.method || flags&(flagEncrypted|flagDescriptor) != e.flags&(flagEncrypted|flagDescriptor) {
		return entryInfo{}, false
	}
	dataEnd := e.dataOff + e.csize
	if dataEnd > dirOff {
		return entryInfo{}, false
	}
	switch gap := dirOff - dataEnd; {
	case flags&flagDescriptor == 0:
		if le.Uint32(data[14:]) != e.crc || le.Uint32(data[18:]) != csize || le.Uint32(data[22:]) != usize || gap != 0 {
			return entryInfo{}, false
		}
	case gap == 16 && le.Uint32(data[dataEnd:]) == sigDescriptor, gap == 12:
	default:
		return entryInfo{}, false
	}
	return e, true
}

// ReadArchive returns cloud.cfg of an archive that earlier versions stored:
// they accepted other entries beside it and bytes around the archive, and
// stored them byte for byte. Other entries are ignored (never decompressed);
// cloud.cfg is read within the same bounds as by CheckArchive. It is for
// showing what is stored, never for accepting an upload.
//
// Errors wrap ErrNotZip, ErrNoConfig, ErrTooLarge or ErrBadArchive.
func ReadArchive(data []byte, lim Limits) ([]byte, error) {
	zr, lim, err := openArchive(data, lim)
	if err != nil {
		return nil, err
	}
	cfg, err := findConfig(zr)
	if err != nil {
		return nil, err
	}
	return readZipEntry(data, cfg, lim.MaxUncompressed)
}

// openArchive reads data's central directory, within lim (returned with its
// defaults set).
func openArchive(data []byte, lim Limits) (*zip.Reader, Limits, error) {
	if err := lim.Validate(); err != nil {
		return nil, lim, err
	}
	lim = lim.EnsureDefaults()

	if len(data) == 0 {
		return nil, lim, fmt.Errorf("%w: empty upload", ErrNotZip)
	}
	if int64(len(data)) > lim.MaxArchive {
		return nil, lim, fmt.Errorf("%w: archive is %d bytes, limit %d", ErrTooLarge, len(data), lim.MaxArchive)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !(zr != nil && errors.Is(err, zip.ErrInsecurePath)) {
		// archive/zip says ErrFormat both for "no zip here" and for a
		// damaged directory; a leading signature tells them apart.
		if errors.Is(err, zip.ErrFormat) && !bytes.HasPrefix(data, []byte("PK")) {
			return nil, lim, fmt.Errorf("%w: %v", ErrNotZip, err)
		}
		return nil, lim, fmt.Errorf("%w: %v", ErrBadArchive, err)
	}
	return zr, lim, nil
}

// findConfig returns the entry named cloud.cfg: one, a file, unencrypted
// and stored or deflated.
func findConfig(zr *zip.Reader) (*zip.File, error) {
	var cfg *zip.File
	for _, f := range zr.File {
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
	if cfg.Flags&flagEncrypted != 0 {
		return nil, fmt.Errorf("%w: %s is encrypted", ErrBadArchive, ConfigName)
	}
	if cfg.Method != zip.Store && cfg.Method != zip.Deflate {
		return nil, fmt.Errorf("%w: %s uses compression method %d", ErrBadArchive, ConfigName, cfg.Method)
	}
	return cfg, nil
}

// Sizes and signatures of the zip records checkLayout reads (APPNOTE 4.3).
const (
	localLen      = 30
	centralLen    = 46
	endLen        = 22
	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigEnd        = 0x06054b50
	sigDescriptor = 0x08074b50
)

// checkLayout verifies that data is f's archive and nothing else, laid out
// as every zip writer lays out one file: f's local header at offset 0, its
// data and (when flagged) its data descriptor, then its central directory
// record, then the end record, which ends data. archive/zip reads much more
// than that: bytes before the archive (a self-extractor's stub), after it,
// between the entry and the directory, or behind an archive comment; a
// polyglot file hides content there, which a store kept byte for byte
// would serve back. The local header must also agree with the directory
// (name, method, encryption, and sizes when no descriptor follows), so that
// a streaming unzip, which reads only local headers, sees the same file.
func checkLayout(data []byte, f *zip.File) error {
	extra := func(what string) error { return fmt.Errorf("%w: %s", ErrExtraContent, what) }
	bad := func(what string) error { return fmt.Errorf("%w: %s", ErrBadArchive, what) }
	le := binary.LittleEndian
	if len(data) < localLen+centralLen+endLen {
		return bad("too short for one entry")
	}

	end := len(data) - endLen
	if le.Uint32(data[end:]) != sigEnd || le.Uint16(data[end+20:]) != 0 {
		return extra("bytes after the archive, or an archive comment")
	}
	if le.Uint16(data[end+4:]) != 0 || le.Uint16(data[end+6:]) != 0 || le.Uint16(data[end+8:]) != 1 || le.Uint16(data[end+10:]) != 1 {
		return bad("the end record is not that of one entry on one disk")
	}
	dirSize, dirOff := uint64(le.Uint32(data[end+12:])), uint64(le.Uint32(data[end+16:]))
	if dirOff+dirSize != uint64(end) {
		// Also what a zip64 end record, never needed for one small file,
		// looks like.
		return extra("bytes before the archive or before its end record")
	}

	dir := data[dirOff:end]
	if len(dir) < centralLen || le.Uint32(dir) != sigCentral {
		return bad("no directory record where the end record says")
	}
	if n := centralLen + int(le.Uint16(dir[28:])) + int(le.Uint16(dir[30:])) + int(le.Uint16(dir[32:])); n != len(dir) {
		return extra("bytes in the central directory besides its one record")
	}
	if le.Uint32(dir[42:]) != 0 {
		return extra("bytes before the entry")
	}

	if le.Uint32(data) != sigLocal {
		return bad("no local header at the start")
	}
	flags, method := le.Uint16(data[6:]), le.Uint16(data[8:])
	nameLen, extraLen := int(le.Uint16(data[26:])), int(le.Uint16(data[28:]))
	start := uint64(localLen + nameLen + extraLen)
	if start > dirOff || string(data[localLen:localLen+nameLen]) != f.Name {
		return bad("the local header names another file than the directory")
	}
	if method != f.Method || flags&(flagEncrypted|flagDescriptor) != f.Flags&(flagEncrypted|flagDescriptor) {
		return bad("the local header and the directory disagree on method or flags")
	}
	if off, err := f.DataOffset(); err != nil || uint64(off) != start {
		return bad("the entry's data is not after its local header")
	}
	if f.CompressedSize64 > uint64(len(data)) { // a zip64 size: start+size could wrap
		return bad("the entry's data runs past the archive")
	}
	dataEnd := start + f.CompressedSize64
	if dataEnd > dirOff {
		return bad("the entry's data runs into the directory")
	}
	gap := dirOff - dataEnd
	switch {
	case flags&flagDescriptor == 0:
		if le.Uint32(data[14:]) != f.CRC32 || uint64(le.Uint32(data[18:])) != f.CompressedSize64 || uint64(le.Uint32(data[22:])) != f.UncompressedSize64 {
			return bad("the local header and the directory disagree on sizes or checksum")
		}
		if gap != 0 {
			return extra("bytes between the entry and the directory")
		}
	case gap == 16 && le.Uint32(data[dataEnd:]) == sigDescriptor, gap == 12:
		// A data descriptor, with or without its optional signature;
		// archive/zip checks its checksum when the entry is read.
	default:
		return extra("bytes between the entry and the directory")
	}
	return nil
}

// readZipEntry decompresses f, an entry of the archive data, reading at most
// bound+1 bytes whatever its header declares. It decompresses the raw bytes
// itself rather than trusting zip.File.Open, so the bound holds even if a
// decompressor registered elsewhere in the program, or a future
// archive/zip, behaves differently.
//
// What it accepts, archive/zip's Open reads the same way (FuzzCheckArchive
// checks it): the same bytes from the same raw data (compress/flate, or
// stored), the declared size, the checksum when the directory records one
// and, for an entry with a data descriptor, the descriptor's checksum,
// which must equal the directory's, and the content's, even when zero.
// It used to read the entry a second time through archive/zip to apply
// that last check: a third of a cloud store's archive check.
func readZipEntry(data []byte, f *zip.File, bound int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(bound) {
		return nil, fmt.Errorf("%w: %s declares %d bytes, limit %d", ErrTooLarge, ConfigName, f.UncompressedSize64, bound)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadArchive, err)
	}
	e := entryInfo{method: f.Method, flags: f.Flags, crc: f.CRC32, csize: f.CompressedSize64, usize: f.UncompressedSize64}
	if f.Flags&flagDescriptor != 0 {
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadArchive, err)
		}
		e.dataOff = uint64(off)
	}
	return readEntry(data, e, raw, bound)
}

// readEntry decompresses raw, the data of the entry e of the archive
// data; see readZipEntry.
func readEntry(data []byte, e entryInfo, raw io.Reader, bound int64) ([]byte, error) {
	if e.usize > uint64(bound) {
		return nil, fmt.Errorf("%w: %s declares %d bytes, limit %d", ErrTooLarge, ConfigName, e.usize, bound)
	}
	var rd io.Reader = raw
	if e.method == zip.Deflate {
		fr := getInflater(raw)
		defer putInflater(fr)
		rd = fr
	}

	// The declared size is at most bound here, so it is safe to size the
	// buffer from it; a lying header only costs a regrowth up to bound+1.
	buf := bytes.NewBuffer(make([]byte, 0, int(e.usize)+1))
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
	if uint64(n) != e.usize {
		return nil, fmt.Errorf("%w: %s declares %d bytes but holds %d", ErrBadArchive, ConfigName, e.usize, n)
	}
	if e.flags&flagDescriptor != 0 {
		if err := checkDescriptor(data, e, sum.Sum32()); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadArchive, ConfigName, err)
		}
	} else if e.crc != 0 && sum.Sum32() != e.crc {
		// Like archive/zip, treat a zero CRC as "not recorded".
		return nil, fmt.Errorf("%w: %s fails its checksum", ErrBadArchive, ConfigName)
	}
	return buf.Bytes(), nil
}

// checkDescriptor checks the data descriptor of the entry e, which follows its data in
// data, as archive/zip does once it has read the entry: the descriptor
// (with or without its optional signature) is there, its checksum is the
// directory's, and the content's checksum sum is that too, even when
// zero. archive/zip ignores the descriptor's sizes, and so does this.
func checkDescriptor(data []byte, e entryInfo, sum uint32) error {
	if e.csize > uint64(len(data)) || e.dataOff > uint64(len(data))-e.csize {
		return errors.New("its data runs past the archive")
	}
	d := data[e.dataOff+e.csize:]
	if len(d) >= 4 && binary.LittleEndian.Uint32(d) == sigDescriptor {
		d = d[4:]
	}
	if len(d) < 12 { // the checksum and two 32-bit sizes
		return errors.New("its data descriptor is cut short")
	}
	if binary.LittleEndian.Uint32(d) != e.crc || sum != e.crc {
		return errors.New("fails its checksum")
	}
	return nil
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
// for every upload.
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
