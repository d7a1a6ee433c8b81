package cloudcfg

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// entry describes one member of a test archive.
type entry struct {
	name   string
	body   []byte
	method uint16      // zip.Store or zip.Deflate unless raw is set
	mode   fs.FileMode // optional
	// raw, when set, is written as the entry's compressed bytes with hdr's
	// sizes, CRC, flags and method taken as given (zip.Writer.CreateRaw).
	raw []byte
	hdr *zip.FileHeader
}

func buildZip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.hdr != nil {
			w, err := zw.CreateRaw(e.hdr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(e.raw); err != nil {
				t.Fatal(err)
			}
			continue
		}
		fh := &zip.FileHeader{Name: e.name, Method: e.method}
		if e.mode != 0 {
			fh.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflate(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestCompression)
	fw.Write(b)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lyingEntry is cloud.cfg whose headers declare declared bytes while its
// deflate stream inflates to len(body).
func lyingEntry(t testing.TB, body []byte, declared uint64) entry {
	raw := deflate(t, body)
	return entry{raw: raw, hdr: &zip.FileHeader{
		Name:               ConfigName,
		Method:             zip.Deflate,
		CRC32:              crc32.ChecksumIEEE(body),
		CompressedSize64:   uint64(len(raw)),
		UncompressedSize64: declared,
	}}
}

// patchDeclaredSize rewrites the uncompressed size in every local and
// central header of a zip built by archive/zip (no zip64 records).
func patchDeclaredSize(t testing.TB, z []byte, size uint32) []byte {
	t.Helper()
	z = bytes.Clone(z)
	patched := 0
	for i := 0; i+4 <= len(z); i++ {
		switch binary.LittleEndian.Uint32(z[i:]) {
		case 0x04034b50: // local file header; size at +22
			binary.LittleEndian.PutUint32(z[i+22:], size)
			patched++
		case 0x02014b50: // central directory header; size at +24
			binary.LittleEndian.PutUint32(z[i+24:], size)
			patched++
		case 0x08074b50: // data descriptor; size at +12
			binary.LittleEndian.PutUint32(z[i+12:], size)
			patched++
		}
	}
	if patched < 2 {
		t.Fatalf("patched %d headers", patched)
	}
	return z
}

func TestCheckArchiveAccepts(t *testing.T) {
	cfg := []byte("SetSave \"cl_Rap2Enable\" \"false\" \"1\"\n")
	tests := []struct {
		name string
		zip  []byte
		want []byte
	}{
		{name: "deflate", zip: buildZip(t, entry{name: ConfigName, body: cfg, method: zip.Deflate}), want: cfg},
		{name: "store", zip: buildZip(t, entry{name: ConfigName, body: cfg, method: zip.Store}), want: cfg},
		{name: "empty cloud.cfg", zip: buildZip(t, entry{name: ConfigName, method: zip.Deflate}), want: []byte{}},
		{
			name: "exactly at the bound",
			zip:  buildZip(t, entry{name: ConfigName, body: bytes.Repeat([]byte("x"), 1024), method: zip.Deflate}),
			want: bytes.Repeat([]byte("x"), 1024),
		},
	}
	lim := Limits{MaxUncompressed: 1024}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckArchive(tt.zip, lim)
			if err != nil {
				t.Fatalf("CheckArchive: %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckArchiveRejects(t *testing.T) {
	const bound = 1 << 16
	lim := Limits{MaxArchive: 1 << 20, MaxUncompressed: bound}
	cfg := []byte("SetSave \"a\" \"b\" \"0\"\n")
	good := buildZip(t, entry{name: ConfigName, body: cfg, method: zip.Deflate})
	bomb := bytes.Repeat([]byte{'A'}, 4<<20) // 4 MiB, deflates to ~4 KiB

	manyEntries := make([]entry, 0, 65)
	for i := range 64 {
		manyEntries = append(manyEntries, entry{name: strings.Repeat("x", i+1), method: zip.Store})
	}
	manyEntries = append(manyEntries, entry{name: ConfigName, body: cfg, method: zip.Store})

	encrypted := lyingEntry(t, cfg, uint64(len(cfg)))
	encrypted.hdr.Flags |= 0x1

	bzip2 := entry{raw: cfg, hdr: &zip.FileHeader{
		Name: ConfigName, Method: 12, CRC32: crc32.ChecksumIEEE(cfg),
		CompressedSize64: uint64(len(cfg)), UncompressedSize64: uint64(len(cfg)),
	}}
	badCRC := lyingEntry(t, cfg, uint64(len(cfg)))
	badCRC.hdr.CRC32++

	corrupt := bytes.Clone(good)
	// Flip bits in the deflate stream: it sits right after the 30-byte local
	// header and the name.
	for i := 30 + len(ConfigName); i < 30+len(ConfigName)+4; i++ {
		corrupt[i] ^= 0xff
	}

	tests := []struct {
		name string
		zip  []byte
		lim  Limits
		want error
	}{
		{name: "empty upload", zip: nil, want: ErrNotZip},
		{name: "text", zip: []byte(`SetSave "a" "b" "0"`), want: ErrNotZip},
		{name: "gzip", zip: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0}, want: ErrNotZip},
		{name: "truncated zip", zip: good[:len(good)-10], want: ErrBadArchive},
		{name: "archive over MaxArchive", zip: good, lim: Limits{MaxArchive: int64(len(good) - 1)}, want: ErrTooLarge},
		{name: "no entries", zip: buildZip(t), want: ErrNoConfig},
		{name: "no cloud.cfg", zip: buildZip(t, entry{name: "settings.cfg", body: cfg, method: zip.Deflate}), want: ErrNoConfig},
		{name: "wrong case", zip: buildZip(t, entry{name: "Cloud.cfg", body: cfg, method: zip.Deflate}), want: ErrNoConfig},
		{name: "only in a folder", zip: buildZip(t, entry{name: "x/cloud.cfg", body: cfg, method: zip.Deflate}), want: ErrNoConfig},
		{name: "declared-size bomb", zip: buildZip(t, entry{name: ConfigName, body: bomb, method: zip.Deflate}), want: ErrTooLarge},
		{name: "one byte over the bound", zip: buildZip(t, entry{name: ConfigName, body: make([]byte, bound+1), method: zip.Deflate}), want: ErrTooLarge},
		{name: "actual-size bomb, CreateRaw lies", zip: buildZip(t, lyingEntry(t, bomb, 100)), want: ErrTooLarge},
		{
			name: "actual-size bomb, patched headers",
			zip:  patchDeclaredSize(t, buildZip(t, entry{name: ConfigName, body: bomb, method: zip.Deflate}), 100),
			want: ErrTooLarge,
		},
		{name: "understated size within the bound", zip: buildZip(t, lyingEntry(t, cfg, 3)), want: ErrBadArchive},
		{name: "overstated size", zip: buildZip(t, lyingEntry(t, cfg, uint64(len(cfg)+5))), want: ErrBadArchive},
		{name: "many entries", zip: buildZip(t, manyEntries...), want: ErrExtraContent},
		{name: "encrypted", zip: buildZip(t, encrypted), want: ErrBadArchive},
		{
			name: "encrypted sibling",
			zip:  buildZip(t, entry{name: ConfigName, body: cfg, method: zip.Deflate}, func() entry { e := lyingEntry(t, cfg, uint64(len(cfg))); e.hdr.Name = "x"; e.hdr.Flags |= 1; return e }()),
			want: ErrExtraContent,
		},
		{name: "unsupported method", zip: buildZip(t, bzip2), want: ErrBadArchive},
		{name: "directory named cloud.cfg/", zip: buildZip(t, entry{name: ConfigName + "/", mode: fs.ModeDir | 0o755}), want: ErrBadArchive},
		{name: "directory mode on cloud.cfg", zip: buildZip(t, entry{name: ConfigName, mode: fs.ModeDir | 0o755, method: zip.Store}), want: ErrBadArchive},
		{
			name: "duplicate cloud.cfg",
			zip: buildZip(t,
				entry{name: ConfigName, body: cfg, method: zip.Deflate},
				entry{name: ConfigName, body: []byte("other"), method: zip.Deflate}),
			want: ErrBadArchive,
		},
		{name: "checksum mismatch", zip: buildZip(t, badCRC), want: ErrBadArchive},
		{name: "zip64 size that wraps past the archive", zip: buildZip(t, entry{raw: cfg, hdr: &zip.FileHeader{
			Name: ConfigName, Method: zip.Store, CRC32: crc32.ChecksumIEEE(cfg), CompressedSize64: 1<<64 - 10, UncompressedSize64: uint64(len(cfg)),
		}}), want: ErrBadArchive},
		{name: "corrupt deflate stream", zip: corrupt, want: ErrBadArchive},
	}
	sentinels := []error{ErrNotZip, ErrNoConfig, ErrExtraContent, ErrTooLarge, ErrBadArchive}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lim
			if tt.lim != (Limits{}) {
				l = tt.lim
			}
			got, err := CheckArchive(tt.zip, l)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			t.Logf("err: %v", err)
			if got != nil {
				t.Errorf("returned %d bytes with an error", len(got))
			}
			for _, s := range sentinels {
				if s != tt.want && errors.Is(err, s) {
					t.Errorf("err %v also matches %v", err, s)
				}
			}
		})
	}
}

// ReadArchive reads what earlier versions stored: other entries beside
// cloud.cfg and bytes around the archive are ignored, the bounds hold.
func TestReadArchive(t *testing.T) {
	cfg := []byte("SetSave \"a\" \"b\" \"0\"\n")
	old := buildZip(t,
		entry{name: "readme.txt", body: []byte("hi"), method: zip.Deflate},
		entry{name: "cfg/", mode: fs.ModeDir | 0o755},
		entry{name: "cfg/cloud.cfg", body: []byte("not this one"), method: zip.Store},
		entry{name: ConfigName, body: cfg, method: zip.Deflate},
		func() entry { e := lyingEntry(t, cfg, uint64(len(cfg))); e.hdr.Name = "x"; e.hdr.Flags |= 1; return e }(),
	)
	for name, z := range map[string][]byte{"other entries": old, "bytes around": append(append([]byte("stub"), old...), "tail"...)} {
		got, err := ReadArchive(z, Limits{})
		if err != nil || !bytes.Equal(got, cfg) {
			t.Errorf("%s: ReadArchive = %q, %v; want cloud.cfg", name, got, err)
		}
	}
	if _, err := ReadArchive(buildZip(t, lyingEntry(t, make([]byte, 1<<20), 10)), Limits{MaxUncompressed: 1 << 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadArchive of a bomb: %v, want ErrTooLarge", err)
	}
	if _, err := ReadArchive(buildZip(t, entry{name: "x.cfg", body: cfg}), Limits{}); !errors.Is(err, ErrNoConfig) {
		t.Errorf("ReadArchive without cloud.cfg: %v, want ErrNoConfig", err)
	}
}

// TestCheckArchiveBombMemory checks that a lying header cannot make
// CheckArchive allocate anywhere near what the entry inflates to.
func TestCheckArchiveBombMemory(t *testing.T) {
	const bound = 64 << 10
	z := buildZip(t, lyingEntry(t, make([]byte, 16<<20), 100))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := CheckArchive(z, Limits{MaxUncompressed: bound})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("allocated %d bytes for a %d-byte bound", got, bound)
	}
}

func TestLimits(t *testing.T) {
	if got := (Limits{}).EnsureDefaults(); got != DefaultLimits {
		t.Errorf("EnsureDefaults() = %+v, want %+v", got, DefaultLimits)
	}
	if got := (Limits{MaxUncompressed: 3}).EnsureDefaults(); got.MaxUncompressed != 3 || got.MaxArchive != DefaultLimits.MaxArchive {
		t.Errorf("EnsureDefaults kept %+v", got)
	}
	if err := (Limits{MaxUncompressed: -1}).Validate(); err == nil {
		t.Error("negative limit accepted")
	}
	if _, err := CheckArchive(nil, Limits{MaxArchive: -1}); err == nil {
		t.Error("CheckArchive accepted a negative limit")
	}
}

func TestBuildArchiveRoundTrip(t *testing.T) {
	sample := readTestdata(t, "sample.cfg")
	for _, cfg := range [][]byte{nil, []byte("x"), sample, bytes.Repeat(sample, 20)} {
		z, err := BuildArchive(cfg)
		if err != nil {
			t.Fatalf("BuildArchive: %v", err)
		}
		got, err := CheckArchive(z, DefaultLimits)
		if err != nil {
			t.Fatalf("CheckArchive(BuildArchive(%d bytes)): %v", len(cfg), err)
		}
		if !bytes.Equal(got, cfg) {
			t.Fatalf("round trip changed %d bytes into %d", len(cfg), len(got))
		}
		again, _ := BuildArchive(cfg)
		if !bytes.Equal(z, again) {
			t.Error("BuildArchive is not deterministic")
		}
		// Any unzip must read it too.
		zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
		if err != nil || len(zr.File) != 1 || zr.File[0].Name != ConfigName {
			t.Fatalf("archive/zip reads %v, %v", zr, err)
		}
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The archive a client uploads: build it (the load tester does, once per
// store) and check it (the server does, once per store).
func BenchmarkBuildArchive(b *testing.B) {
	cfg := []byte("SetSave \"cl_Rap2Enable\" \"false\" \"1\"\nSetSave \"ui_loadtest\" \"lt-1\" \"1\"\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildArchive(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckArchive(b *testing.B) {
	z, err := BuildArchive(readTestdata(b, "sample.cfg"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckArchive(z, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

// insertAt returns z with extra inserted at offset at.
func insertAt(z []byte, at int, extra []byte) []byte {
	return append(append(append([]byte(nil), z[:at]...), extra...), z[at:]...)
}

// endRecord is the offset of z's end of central directory record (no
// archive comment).
func endRecord(t testing.TB, z []byte) int {
	t.Helper()
	end := len(z) - 22
	if end < 0 || binary.LittleEndian.Uint32(z[end:]) != 0x06054b50 {
		t.Fatal("no end record at the end of the archive")
	}
	return end
}

// An archive is what the specification says: a zip of exactly one file,
// cloud.cfg, and nothing else: no other entry, no bytes before or after
// the archive or between its parts. archive/zip reads all of these, and
// earlier versions stored them byte for byte.
func TestCheckArchiveOnlyCloudCfg(t *testing.T) {
	cfg := []byte("SetSave \"a\" \"b\" \"0\"\n")
	good := buildZip(t, entry{name: ConfigName, body: cfg, method: zip.Deflate})
	stored := buildZip(t, entry{name: ConfigName, body: cfg, method: zip.Store})

	sixtyFour := []entry{{name: ConfigName, body: cfg, method: zip.Deflate}}
	for i := range 63 {
		sixtyFour = append(sixtyFour, entry{name: "f" + strings.Repeat("x", i), body: []byte("x"), method: zip.Store})
	}

	withComment := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create(ConfigName)
		w.Write(cfg)
		zw.SetComment("MZ\x90\x00 a payload behind the comment")
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()

	// Bytes between the entry and the central directory: the end record
	// points past them, so archive/zip reads the archive as before.
	gap := func() []byte {
		end := endRecord(t, stored)
		cdOff := int(binary.LittleEndian.Uint32(stored[end+16:]))
		z := insertAt(stored, cdOff, []byte("hidden payload"))
		binary.LittleEndian.PutUint32(z[end+len("hidden payload")+16:], uint32(cdOff+len("hidden payload")))
		return z
	}()

	// The local header names another file than the central directory: a
	// streaming unzip would write evil1.exe.
	otherLocalName := bytes.Clone(stored)
	copy(otherLocalName[30:], "evil1.exe")

	tests := []struct {
		name string
		zip  []byte
		want error
	}{
		{name: "evil.exe beside cloud.cfg", zip: buildZip(t,
			entry{name: ConfigName, body: cfg, method: zip.Deflate},
			entry{name: "evil.exe", body: []byte("MZ\x90\x00"), method: zip.Store}), want: ErrExtraContent},
		{name: "../../etc/passwd beside cloud.cfg", zip: buildZip(t,
			entry{name: "../../etc/passwd", body: []byte("root:x:0:0::/root:/bin/sh\n"), method: zip.Deflate},
			entry{name: ConfigName, body: cfg, method: zip.Deflate}), want: ErrExtraContent},
		{name: "a folder beside cloud.cfg", zip: buildZip(t,
			entry{name: "cfg/", mode: fs.ModeDir | 0o755},
			entry{name: ConfigName, body: cfg, method: zip.Deflate}), want: ErrExtraContent},
		{name: "64 entries", zip: buildZip(t, sixtyFour...), want: ErrExtraContent},
		{name: "bytes before the archive", zip: append([]byte("MZ\x90\x00 a self-extractor's stub "), good...), want: ErrExtraContent},
		{name: "bytes after the archive", zip: append(bytes.Clone(good), "<?php system($_GET['c']); ?>"...), want: ErrExtraContent},
		{name: "one byte after the archive", zip: append(bytes.Clone(good), 0), want: ErrExtraContent},
		{name: "a second archive after it", zip: append(bytes.Clone(good), good...), want: ErrExtraContent},
		{name: "an archive comment", zip: withComment, want: ErrExtraContent},
		{name: "bytes between the entry and the directory", zip: gap, want: ErrExtraContent},
		{name: "local header names another file", zip: otherLocalName, want: ErrBadArchive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each is an archive archive/zip reads, cloud.cfg included.
			if zr, err := zip.NewReader(bytes.NewReader(tt.zip), int64(len(tt.zip))); err != nil && !errors.Is(err, zip.ErrInsecurePath) {
				t.Fatalf("fixture: archive/zip: %v", err)
			} else if f, err := zr.Open(ConfigName); err != nil {
				t.Fatalf("fixture: archive/zip finds no cloud.cfg: %v", err)
			} else {
				f.Close()
			}
			got, err := CheckArchive(tt.zip, Limits{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("CheckArchive = %d bytes, %v; want %v", len(got), err, tt.want)
			}
			if got != nil {
				t.Errorf("returned %d bytes with an error", len(got))
			}
		})
	}

	// What clients and zip tools write for one file is accepted: with a
	// data descriptor (archive/zip, Java), without one (Info-ZIP,
	// minizip), stored or deflated, with an extra field.
	utExtra := entry{raw: cfg, hdr: &zip.FileHeader{
		Name: ConfigName, Method: zip.Store, CRC32: crc32.ChecksumIEEE(cfg),
		CompressedSize64: uint64(len(cfg)), UncompressedSize64: uint64(len(cfg)),
		Extra: []byte{0x55, 0x54, 5, 0, 1, 0x80, 0x5b, 0x61, 0x66}, // UT: modification time
	}}
	plain := lyingEntry(t, cfg, uint64(len(cfg))) // CreateRaw: no data descriptor
	for name, z := range map[string][]byte{
		"deflated with a descriptor": good,
		"stored with a descriptor":   stored,
		"deflated, no descriptor":    buildZip(t, plain),
		"stored with an extra field": buildZip(t, utExtra),
		"BuildArchive":               func() []byte { z, _ := BuildArchive(cfg); return z }(),
	} {
		got, err := CheckArchive(z, Limits{})
		if err != nil || !bytes.Equal(got, cfg) {
			t.Errorf("%s: CheckArchive = %q, %v; want cloud.cfg", name, got, err)
		}
		// Each is read without archive/zip's directory reading.
		if _, ok := plainEntry(z); !ok {
			t.Errorf("%s: plainEntry does not read it", name)
		}
	}
}

// An entry with a data descriptor is checked as archive/zip checks it once
// it has read the entry: the descriptor's checksum is the directory's, and
// the content's is that too, even when the directory records zero. Both
// archives below are refused by CheckArchive and by ReadArchive (what
// archive/zip refuses to read back is never accepted).
func TestDataDescriptorChecksum(t *testing.T) {
	good, err := BuildArchive([]byte("SetSave \"a\" \"b\" \"0\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	end := len(good) - 22
	dirOff := int(le.Uint32(good[end+16:]))
	desc := dirOff - 16
	if le.Uint16(good[6:])&0x8 == 0 || le.Uint32(good[desc:]) != 0x08074b50 {
		t.Fatal("BuildArchive wrote no data descriptor with its signature before the directory")
	}
	otherCRC := bytes.Clone(good)
	le.PutUint32(otherCRC[desc+4:], le.Uint32(otherCRC[desc+4:])+1)
	zeroCRC := bytes.Clone(good) // the directory and the descriptor record 0
	le.PutUint32(zeroCRC[desc+4:], 0)
	le.PutUint32(zeroCRC[dirOff+16:], 0)
	for name, data := range map[string][]byte{"descriptor disagrees with the directory": otherCRC, "zero checksum recorded": zeroCRC} {
		t.Run(name, func(t *testing.T) {
			for fn, read := range map[string]func([]byte, Limits) ([]byte, error){"CheckArchive": CheckArchive, "ReadArchive": ReadArchive} {
				if got, err := read(data, Limits{}); !errors.Is(err, ErrBadArchive) || got != nil {
					t.Errorf("%s = %d bytes, %v; want ErrBadArchive", fn, len(got), err)
				}
			}
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			rc, err := zr.File[0].Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if _, err := io.ReadAll(rc); err == nil {
				t.Error("archive/zip reads it back: the case tests nothing")
			}
		})
	}
}
