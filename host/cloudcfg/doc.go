// Package cloudcfg provides validation of the settings archives that game
// clients upload to cloud storage, and a parser for the cloud.cfg file they
// contain.
//
// A client uploads a zip archive (form part "cloud.zip") holding one file
// named exactly "cloud.cfg". The host checks the upload with [CheckArchive]
// before storing it, and may then check the settings text with [Parse]:
//
//	cfg, err := cloudcfg.CheckArchive(upload, cloudcfg.DefaultLimits)
//	if err != nil {
//		// errors.Is(err, cloudcfg.ErrTooLarge), ErrNotZip, ErrNoConfig, ...
//	}
//	file, err := cloudcfg.Parse(cfg, cloudcfg.Strict)
//	if err != nil {
//		var le *cloudcfg.LineError
//		if errors.As(err, &le) { /* le.Line names the bad line */ }
//	}
//	_ = file.WriteText(os.Stdout) // listing for operators
//
// # Archives
//
// An upload must be what the specification says, a zip archive of exactly
// one file named exactly "cloud.cfg", and nothing else: CheckArchive
// refuses other entries (evil.exe, ../../etc/passwd, 64 of anything), bytes
// before the archive (a self-extractor's stub), after it or between its
// parts, and an archive comment (which could cover appended bytes), all of
// which archive/zip reads without complaint ([ErrExtraContent]). The local
// header must agree with the central directory, so that a streaming unzip
// sees the same file. What it accepts can therefore be stored byte for
// byte: there is nothing in it but cloud.cfg.
//
// CheckArchive defends against zip bombs twice: it rejects a cloud.cfg whose
// declared uncompressed size exceeds [Limits].MaxUncompressed, and it
// decompresses the entry itself through an [io.LimitReader] so that a header
// which understates the size cannot make it read more than the bound. It also
// rejects an encrypted cloud.cfg, compression methods other than Store and
// Deflate, a directory named cloud.cfg and duplicate cloud.cfg entries.
// The bounded read also applies every check archive/zip's own reading
// makes (the declared size, the checksum, a data descriptor's checksum,
// data that runs past the archive), so that whatever is accepted,
// archive/zip reads back byte for byte. An archive of the one plain layout
// every client writes is read from its bytes; any other goes through
// archive/zip's directory reader, and both ways give the same answer
// (FuzzCheckArchive checks both).
//
// [ReadArchive] reads cloud.cfg, within the same bounds, from archives that
// earlier versions accepted and stored (other entries were allowed and
// ignored then): it is for showing stored settings, never for uploads.
//
// # Settings text
//
// cloud.cfg holds one command per line. Three commands are understood:
//
//	SetSave "<name>" "<value>" "<flag 0 or 1>"
//	GameReBind <name> <command> "<argument>" <button|impulse> <context> "<key1>" "<key2>"
//	BindButton <context> <key> <command> "<argument>" <true|false>
//
// Tokens are separated by spaces or tabs. Any token may be quoted or bare;
// quotes are needed only for values holding spaces or nothing at all ("").
// Inside quotes, \" stands for a literal quote and \\ for a literal
// backslash; any other backslash is kept as it is, so Windows paths such as
// "C:\games" read naturally (a value that ends in a backslash must write it
// as \\). Command names match without regard to case, as in the game's
// console. Blank lines and lines starting with // are skipped; a comment
// after a command is not supported. CRLF line endings and a UTF-8 byte order
// mark at the start are accepted.
//
// How much of the text must be understood is set by [Strictness]; see
// [Off], [Lenient] and [Strict].
package cloudcfg
