package cloudcfg

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzParse checks that Parse never panics and that the modes agree:
//   - Off and Lenient never fail, and read the same records;
//   - Strict fails only with a *LineError wrapping ErrSyntax, at Lenient's
//     first unknown line, and when it succeeds Lenient gives the same records and no unknown lines;
//   - records never outnumber lines, and unknown lines carry a real line
//     number and a cause wrapping ErrSyntax;
//   - WriteText never fails and never emits a control character.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`SetSave "cl_Rap2Enable" "false" "1"`))
	f.Add([]byte(`GameReBind "Ability0" "ActivateTool" "0" button game "Q" "INVALID"`))
	f.Add([]byte(`BindButton game F1 Cmd "ToggleShop" false`))
	f.Add([]byte("\xef\xbb\xbf// c\r\nSetSave \"a\\\"b\" \"c\\\\\" \"0\"\r\n\"unterminated"))
	f.Add([]byte("SetSave \"\xff\" \"b\" \"0\"\n\tGameReBind a b \"\" impulse ui \"\" x"))
	f.Fuzz(func(t *testing.T, text []byte) {
		off, err := Parse(text, Off)
		if err != nil {
			t.Fatalf("Off failed: %v", err)
		}
		lenient, lerr := Parse(text, Lenient)
		if lerr != nil {
			t.Fatalf("Lenient failed: %v", lerr)
		}
		if !sameRecords(off, lenient) || !eq(lineNumbers(off.Unknown), lineNumbers(lenient.Unknown)) {
			t.Fatalf("Off and Lenient read differently")
		}
		strict, serr := Parse(text, Strict)
		if serr != nil {
			var le *LineError
			if !errors.As(serr, &le) || !errors.Is(serr, ErrSyntax) || le.Line < 1 {
				t.Fatalf("Strict error %v is not a *LineError wrapping ErrSyntax", serr)
			}
			if len(lenient.Unknown) == 0 || lenient.Unknown[0].Number != le.Line {
				t.Fatalf("Strict stopped at line %d, Lenient's first unknown lines are %v", le.Line, lineNumbers(lenient.Unknown))
			}
		} else {
			if len(strict.Unknown) != 0 {
				t.Fatalf("Strict kept unknown lines %v", strict.Unknown)
			}
			if !sameRecords(strict, lenient) || len(lenient.Unknown) != 0 {
				t.Fatalf("Strict accepted what Lenient read differently")
			}
		}

		lines := bytes.Count(text, []byte("\n")) + 1
		if n := len(off.Settings) + len(off.Rebinds) + len(off.Binds) + len(off.Unknown); n > lines {
			t.Fatalf("%d records from %d lines", n, lines)
		}
		for _, u := range off.Unknown {
			if u.Number < 1 || u.Number > lines || !errors.Is(u.Err, ErrSyntax) {
				t.Fatalf("bad unknown line %+v", u)
			}
		}

		var buf bytes.Buffer
		if err := off.WriteText(&buf); err != nil {
			t.Fatalf("WriteText: %v", err)
		}
		for _, c := range buf.Bytes() {
			if (c < ' ' && c != '\n') || c == 0x7f {
				t.Fatalf("WriteText emitted control byte %#x", c)
			}
		}
	})
}

func sameRecords(a, b *File) bool {
	return eq(a.Settings, b.Settings) && eq(a.Rebinds, b.Rebinds) && eq(a.Binds, b.Binds)
}

func eq[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzCheckArchive checks that CheckArchive never panics, never returns more
// than the bound, returns data only without an error, and that every error
// wraps exactly one of the package's sentinels. What it accepts is exactly
// one file: archive/zip reads one entry, cloud.cfg, with the same content,
// and the data starts with that entry's local header and ends with the end
// record (no byte before or after, no comment). ReadArchive, which reads
// what earlier versions stored, keeps the same bounds and sentinels and
// reads the same cloud.cfg from every archive CheckArchive accepts (seeds
// with other entries, which it reads and CheckArchive refuses, are not a
// failure of either).
func FuzzCheckArchive(f *testing.F) {
	lim := Limits{MaxArchive: 64 << 10, MaxUncompressed: 1 << 10}
	for _, cfg := range [][]byte{nil, []byte(`SetSave "a" "b" "0"`), bytes.Repeat([]byte("x"), 2000)} {
		z, err := BuildArchive(cfg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(z)
		f.Add(append(bytes.Clone(z), 0))
	}
	f.Add(buildZip(f, lyingEntry(f, make([]byte, 10<<10), 10)))
	f.Add(buildZip(f,
		entry{name: "a", body: []byte("a"), method: zip.Store},
		entry{name: ConfigName, body: []byte("SetSave a b 1"), method: zip.Store}))
	f.Add(buildZip(f, entry{name: ConfigName, body: []byte("SetSave a b 1"), method: zip.Store}))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	f.Add([]byte("not a zip"))

	sentinels := []error{ErrNotZip, ErrNoConfig, ErrExtraContent, ErrTooLarge, ErrBadArchive}
	oneSentinel := func(t *testing.T, what string, err error) {
		n := 0
		for _, s := range sentinels {
			if errors.Is(err, s) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%s error %v matches %d sentinels", what, err, n)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := CheckArchive(data, lim)
		if int64(len(got)) > lim.MaxUncompressed {
			t.Fatalf("returned %d bytes, bound %d", len(got), lim.MaxUncompressed)
		}
		// The path without archive/zip (plainEntry) answers as the path
		// through it: the same bytes, or a refusal of the same kind.
		if slow, serr := checkArchiveZip(data, lim); !bytes.Equal(slow, got) || (serr == nil) != (err == nil) {
			t.Fatalf("CheckArchive = %d bytes, %v; through archive/zip %d bytes, %v", len(got), err, len(slow), serr)
		} else if err != nil {
			for _, s := range sentinels {
				if errors.Is(err, s) != errors.Is(serr, s) {
					t.Fatalf("CheckArchive refuses with %v, through archive/zip with %v", err, serr)
				}
			}
		}
		old, oerr := ReadArchive(data, lim)
		if int64(len(old)) > lim.MaxUncompressed || (oerr != nil && old != nil) {
			t.Fatalf("ReadArchive returned %d bytes, bound %d, with error %v", len(old), lim.MaxUncompressed, oerr)
		}
		if oerr != nil {
			oneSentinel(t, "ReadArchive", oerr)
			if errors.Is(oerr, ErrExtraContent) {
				t.Fatalf("ReadArchive refused extra content: %v", oerr)
			}
		}
		if err != nil {
			if got != nil {
				t.Fatalf("returned %d bytes with error %v", len(got), err)
			}
			oneSentinel(t, "CheckArchive", err)
			return
		}
		// What CheckArchive accepts, archive/zip reads back as one file.
		zr, zerr := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if zerr != nil {
			t.Fatalf("accepted an archive archive/zip rejects: %v", zerr)
		}
		if len(zr.File) != 1 || zr.File[0].Name != ConfigName {
			t.Fatalf("accepted an archive of %d entries", len(zr.File))
		}
		rc, rerr := zr.File[0].Open()
		if rerr != nil {
			t.Fatalf("archive/zip cannot open accepted cloud.cfg: %v", rerr)
		}
		want, rerr := io.ReadAll(io.LimitReader(rc, lim.MaxUncompressed+1))
		rc.Close()
		if rerr != nil || !bytes.Equal(want, got) {
			t.Fatalf("archive/zip reads %q (%v), CheckArchive returned %q", want, rerr, got)
		}
		if !bytes.HasPrefix(data, []byte("PK\x03\x04")) || !bytes.HasPrefix(data[len(data)-22:], []byte("PK\x05\x06")) || data[len(data)-2] != 0 || data[len(data)-1] != 0 {
			t.Fatalf("accepted bytes before or after the archive")
		}
		if oerr != nil || !bytes.Equal(old, got) {
			t.Fatalf("ReadArchive = %q, %v; CheckArchive accepted %q", old, oerr, got)
		}
	})
}
