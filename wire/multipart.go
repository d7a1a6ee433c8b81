package wire

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"path/filepath"
	"strings"
)

// maxPartHeader bounds the header block of one multipart part, from the
// line after its delimiter to the end of the empty line that closes it.
// A part header from the stock client is under 150 bytes.
const maxPartHeader = 16 << 10

// errPartHeaderTooLarge is wrapped, with ErrMalformed, when a part's header
// block exceeds maxPartHeader; tests tell it from other refusals.
var errPartHeaderTooLarge = fmt.Errorf("header block over %d bytes", maxPartHeader)

// parseMultipart reads a multipart/form-data body (RFC 7578; framing of
// RFC 2046 section 5.1.1) straight from its bytes: it searches the body
// for the delimiters and copies out only what it keeps, so nothing in r
// refers to body.
//
// What it accepts, which is what mime/multipart.Reader accepted before it
// (FuzzMultipartDifferential checks this against that reader):
//
//   - The preamble, every line before the first delimiter line, is
//     ignored.
//   - A delimiter line is "--" boundary, optional transport padding
//     (spaces and tabs), then CRLF. If the first delimiter line ends in a
//     bare LF instead, the whole body is read with LF line ends: the data
//     of a part then ends before "\n--" boundary, and the delimiter lines
//     and the close delimiter line end in LF.
//   - The close delimiter line is "--" boundary "--", padding, then the
//     line end or the end of the body. Whatever follows it (the epilogue)
//     is ignored. A close delimiter line in the preamble ends the body
//     with no parts.
//   - Part headers end at an empty line; each header line ends in CRLF
//     or a bare LF, whatever the delimiter lines end in. A line that
//     starts with a space or tab continues the previous header (the line
//     end and leading white space become one space). Header names are
//     matched without regard to case; the first Content-Disposition and
//     the first Content-Type count, others are ignored.
//   - A part's data runs from after the empty line to just before the
//     line end and "--" boundary of the next delimiter, when that is
//     followed by a space, tab, CR, LF, "--" or the end of the body (so
//     "--boundaryX" inside data is data). Data that begins with the
//     delimiter itself is empty.
//   - Content-Disposition is read as mime.ParseMediaType reads it (the
//     plain shape directly, anything else by ParseMediaType): it must be
//     form-data with a non-empty name parameter (quoted strings with
//     backslash escapes, tokens, and RFC 2231 name*= and filename*=
//     forms); any other part, and one whose Content-Disposition does not
//     parse, is ignored, as PHP ignores parts without a name. A part with
//     a non-empty filename parameter is a file, filed under its name with
//     the filename cut to its base name (filepath.Base) and the raw first
//     Content-Type value; other parts are form fields, in order.
//
// It refuses, with ErrMalformed and the detail, a body with no delimiter
// line; a part not followed by a delimiter or close delimiter line (a
// truncated body); a line after a part's data that is neither; a part
// header that starts with white space, has a line without a colon, a
// header name that is empty or holds bytes other than token characters
// and spaces (a name with a space is kept apart and so never matches), a
// control character other than tab in a value, or is not closed by an
// empty line; a boundary with a line feed (no line could ever match it);
// more files than Limits.MaxFiles, more fields (with the query's) than
// Limits.MaxFields, and two file parts of the same name. It never panics.
//
// Where it differs from mime/multipart, on purpose:
//
//   - Content-Transfer-Encoding is ignored: a quoted-printable part is
//     kept as sent, as PHP keeps it (mime/multipart decoded it, and
//     refused a part that did not decode). RFC 7578 section 4.7 deprecates
//     the header for form data, and no client of this service sends it.
//   - A body that ends inside a part's header block is refused as
//     truncated; mime/multipart took the end of the body there for the
//     end of the parts (its header reader's io.EOF ended the loop), and
//     dropped the part silently.
//   - A part header block over maxPartHeader (16 KiB) is refused;
//     mime/multipart allowed 10,000 header lines and 10 MiB. No form part
//     needs more, and the bound keeps small the copy that joining folded
//     header lines takes.
//   - Lines outside parts and boundaries are not limited to its 4 KiB
//     read buffer: a preamble line or a delimiter line (padding included)
//     over 4 KiB, or a boundary over 4 KiB, no longer fails the body.
//
// PHP's parser (main/rfc1867.c, as read, not run) differs again. It is
// laxer: a missing close delimiter ends the body, a header line without a
// colon is appended to the previous header, and data ends at LF "--"
// boundary whatever follows (less a CR before it). It is stricter about
// padding: its delimiter line is exactly "--" boundary. The lax cases are
// refused here, as mime/multipart refused them: no client of this service
// sends them, and a truncated body is more likely a broken upload than a
// complete one.
func parseMultipart(r *Request, body []byte, boundary string, fields *int, lim Limits) error {
	if strings.IndexByte(boundary, '\n') >= 0 {
		return fmt.Errorf("%w: multipart boundary %q holds a line feed", ErrMalformed, truncate([]byte(boundary)))
	}
	m := newMultipartScanner(body, boundary)

	// The preamble: lines up to the first delimiter line.
	for {
		line, complete := m.line()
		if !complete {
			if m.isClose(line) {
				return nil
			}
			return fmt.Errorf("%w: multipart body without a delimiter line --%s", ErrMalformed, truncate([]byte(boundary)))
		}
		m.pos += len(line)
		if m.isDelimiter(line, true) {
			break
		}
		if m.isClose(line) {
			return nil
		}
	}

	for n := 1; ; n++ {
		h, err := m.header()
		if err != nil {
			return fmt.Errorf("%w: multipart part %d: %w", ErrMalformed, n, err)
		}
		start := m.pos
		end, next := m.dataEnd()
		if end < 0 {
			return fmt.Errorf("%w: multipart part %d: no delimiter after its data (body truncated?)", ErrMalformed, n)
		}
		if err := r.addPart(h, body[start:end], fields, lim); err != nil {
			return err
		}
		m.pos = next
		line, complete := m.line()
		if complete && m.isDelimiter(line, false) {
			m.pos += len(line)
			continue
		}
		if m.isClose(line) {
			return nil
		}
		return fmt.Errorf("%w: multipart part %d: followed by %q, not a delimiter line", ErrMalformed, n, truncate(line))
	}
}

// addPart files one part's data under its form name, copying what it
// keeps.
func (r *Request) addPart(h partHeader, data []byte, fields *int, lim Limits) error {
	if !h.hasDisposition {
		return nil
	}
	cd := string(h.disposition)
	name, filename, ok := formDisposition(cd)
	if !ok {
		disposition, params, err := mime.ParseMediaType(cd)
		if err != nil || disposition != "form-data" {
			return nil
		}
		name, filename = params["name"], params["filename"]
	}
	if name == "" {
		// Not a form field: PHP ignores such parts too.
		return nil
	}
	if filename != "" {
		if len(r.Files) >= lim.MaxFiles {
			return fmt.Errorf("%w: more than %d files", ErrMalformed, lim.MaxFiles)
		}
		if _, dup := r.Files[name]; dup {
			return fmt.Errorf("%w: two file parts named %q", ErrMalformed, name)
		}
		r.Files[name] = File{
			Name: name,
			// RFC 7578 section 4.2: directory parts must not be used.
			Filename:    filepath.Base(filename),
			ContentType: string(h.contentType),
			Data:        bytes.Clone(data),
		}
		return nil
	}
	if *fields++; *fields > lim.MaxFields {
		return fmt.Errorf("%w: more than %d fields", ErrMalformed, lim.MaxFields)
	}
	r.Form[name] = append(r.Form[name], string(data))
	return nil
}

// formDisposition reads a Content-Disposition value of the plain shape
// clients send, form-data with name and filename parameters, tokens or
// quoted strings without escapes, as mime.ParseMediaType would, without
// its map and copies: name and filename are substrings of v. It returns
// ok false for anything else (another type or parameter, an escape, an
// RFC 2231 form, a repeated parameter, white space other than spaces and
// tabs, anything that does not parse), which is left to ParseMediaType;
// FuzzFormDisposition checks that the two agree.
func formDisposition(v string) (name, filename string, ok bool) {
	i := skipOWS(v, 0)
	if len(v)-i < len("form-data") || !equalFoldASCII(v[i:i+len("form-data")], "form-data") {
		return "", "", false
	}
	i = skipOWS(v, i+len("form-data"))
	var haveName, haveFilename bool
	for i < len(v) {
		if v[i] != ';' {
			return "", "", false
		}
		if i = skipOWS(v, i+1); i == len(v) {
			break // a trailing semicolon
		}
		j := i
		for j < len(v) && isMIMETokenByte(v[j]) {
			j++
		}
		param := v[i:j]
		if i = skipOWS(v, j); i == len(v) || v[i] != '=' {
			return "", "", false
		}
		i = skipOWS(v, i+1)
		var value string
		if i < len(v) && v[i] == '"' {
			j := strings.IndexAny(v[i+1:], "\"\\\r\n")
			if j < 0 || v[i+1+j] != '"' {
				return "", "", false
			}
			value, i = v[i+1:i+1+j], i+j+2
		} else {
			j := i
			for j < len(v) && isMIMETokenByte(v[j]) {
				j++
			}
			if j == i {
				return "", "", false
			}
			value, i = v[i:j], j
		}
		switch {
		case !haveName && equalFoldASCII(param, "name"):
			name, haveName = value, true
		case !haveFilename && equalFoldASCII(param, "filename"):
			filename, haveFilename = value, true
		default:
			return "", "", false
		}
		i = skipOWS(v, i)
	}
	return name, filename, true
}

func skipOWS(s string, i int) int {
	for i < len(s) && isLWSP(s[i]) {
		i++
	}
	return i
}

// isMIMETokenByte reports whether c may appear in a token of RFC 2045, as
// mime.ParseMediaType reads parameters: an RFC 9110 token byte, or { or }.
func isMIMETokenByte(c byte) bool {
	return isTokenByte(c) || c == '{' || c == '}'
}

// multipartScanner walks a multipart body held in memory.
type multipartScanner struct {
	body     []byte
	pos      int    // start of what is not yet read
	nl       []byte // "\r\n", or "\n" once the first delimiter line ends in LF
	nlDash   []byte // nl "--" boundary: what ends a part's data
	dash     []byte // "--" boundary
	dashDash []byte // "--" boundary "--"
}

func newMultipartScanner(body []byte, boundary string) *multipartScanner {
	b := make([]byte, 0, len(boundary)+6)
	b = append(b, "\r\n--"...)
	b = append(b, boundary...)
	b = append(b, "--"...)
	return &multipartScanner{
		body:     body,
		nl:       b[:2],
		nlDash:   b[:len(b)-2],
		dash:     b[2 : len(b)-2],
		dashDash: b[2:],
	}
}

// line returns the line at pos with its LF, and whether it has one; a
// line without is the rest of the body.
func (m *multipartScanner) line() (line []byte, complete bool) {
	rest := m.body[m.pos:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i+1], true
	}
	return rest, false
}

// isDelimiter reports whether line is a delimiter line: "--" boundary,
// padding, line end. The first one decides the line end of the body.
func (m *multipartScanner) isDelimiter(line []byte, first bool) bool {
	if !bytes.HasPrefix(line, m.dash) {
		return false
	}
	rest := bytes.TrimLeft(line[len(m.dash):], lwsp)
	if first && len(rest) == 1 && rest[0] == '\n' {
		m.nl, m.nlDash = m.nl[1:], m.nlDash[1:]
	}
	return bytes.Equal(rest, m.nl)
}

// isClose reports whether line is the close delimiter line: "--" boundary
// "--", padding, then the line end or the end of the body.
func (m *multipartScanner) isClose(line []byte) bool {
	if !bytes.HasPrefix(line, m.dashDash) {
		return false
	}
	rest := bytes.TrimLeft(line[len(m.dashDash):], lwsp)
	return len(rest) == 0 || bytes.Equal(rest, m.nl)
}

// dataEnd finds the end of the data that starts at pos: it returns where
// the data ends and where the delimiter's "--" boundary starts, or -1, -1
// when no delimiter follows.
func (m *multipartScanner) dataEnd() (end, next int) {
	i := m.pos
	if bytes.HasPrefix(m.body[i:], m.dash) {
		if delimiterEnds(m.body[i:], len(m.dash)) {
			return i, i
		}
		i += len(m.dash)
	}
	for {
		j := bytes.Index(m.body[i:], m.nlDash)
		if j < 0 {
			return -1, -1
		}
		i += j
		if delimiterEnds(m.body[i:], len(m.nlDash)) {
			return i, i + len(m.nl)
		}
		i += len(m.nlDash)
	}
}

// delimiterEnds reports whether what follows the n bytes of a delimiter
// at the start of b lets it end a part: a space, tab, CR, LF, "--" or the
// end of the body.
func delimiterEnds(b []byte, n int) bool {
	if len(b) == n {
		return true
	}
	switch b[n] {
	case ' ', '\t', '\r', '\n':
		return true
	case '-':
		return len(b) > n+1 && b[n+1] == '-'
	}
	return false
}

// partHeader holds the headers of a part that parseMultipart uses. The
// values may point into the body; addPart copies what it keeps.
type partHeader struct {
	disposition, contentType       []byte
	hasDisposition, hasContentType bool
}

var errHeaderNotEnded = errors.New("header not closed by an empty line")

var cr = []byte{'\r'}

// header reads the header block at pos, leaving pos at the part's data.
func (m *multipartScanner) header() (h partHeader, err error) {
	body := m.body
	limit := min(len(body), m.pos+maxPartHeader)
	// lineEnd is the index of the LF that ends the line at i.
	lineEnd := func(i int) (int, error) {
		if i < limit {
			if j := bytes.IndexByte(body[i:limit], '\n'); j >= 0 {
				return i + j, nil
			}
		}
		if limit < len(body) {
			return 0, errPartHeaderTooLarge
		}
		return 0, errHeaderNotEnded
	}
	if m.pos < len(body) && isLWSP(body[m.pos]) {
		return h, errors.New("header starts with white space")
	}
	for {
		e, err := lineEnd(m.pos)
		if err != nil {
			return h, err
		}
		line := bytes.TrimSuffix(body[m.pos:e], cr)
		m.pos = e + 1
		if len(line) == 0 {
			return h, nil
		}
		if bytes.IndexByte(line, ':') < 0 {
			return h, fmt.Errorf("header line %q without a colon", truncate(line))
		}
		kv := bytes.Trim(line, lwsp)
		// Continuation lines join with one space.
		var joined []byte
		for m.pos < len(body) && isLWSP(body[m.pos]) {
			i := m.pos
			for i < len(body) && isLWSP(body[i]) {
				i++
			}
			e, err := lineEnd(i)
			if err != nil {
				return h, err
			}
			if joined == nil {
				joined = append(make([]byte, 0, len(kv)+e-i+1), kv...)
			}
			joined = append(joined, ' ')
			joined = append(joined, bytes.Trim(bytes.TrimSuffix(body[i:e], cr), lwsp)...)
			m.pos = e + 1
		}
		if joined != nil {
			kv = joined
		}
		colon := bytes.IndexByte(kv, ':')
		name, value := kv[:colon], kv[colon+1:]
		if len(name) == 0 {
			return h, fmt.Errorf("header line %q without a name", truncate(kv))
		}
		exact := true // name is a token, to be matched without case
		for _, c := range name {
			if !isTokenByte(c) {
				if c != ' ' {
					return h, fmt.Errorf("header name %q holds %q", truncate(name), c)
				}
				exact = false
			}
		}
		for _, c := range value {
			if c < ' ' && c != '\t' || c == 0x7f {
				return h, fmt.Errorf("header %q holds control character %q", truncate(name), c)
			}
		}
		value = bytes.TrimLeft(value, lwsp)
		switch {
		case !exact:
		case !h.hasDisposition && equalFoldASCII(name, "Content-Disposition"):
			h.disposition, h.hasDisposition = value, true
		case !h.hasContentType && equalFoldASCII(name, "Content-Type"):
			h.contentType, h.hasContentType = value, true
		}
	}
}

func isLWSP(c byte) bool { return c == ' ' || c == '\t' }

// lwsp is linear white space: the cutset of bytes.Trim for header lines.
const lwsp = " \t"

// isTokenByte reports whether c may appear in a header name (RFC 9110
// token).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// equalFoldASCII reports whether b equals s without regard to ASCII case.
func equalFoldASCII[T string | []byte](b T, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
