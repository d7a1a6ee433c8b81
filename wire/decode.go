package wire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Errors returned by Unmarshal, matched with errors.Is. Every Unmarshal
// error is a *SyntaxError and matches ErrSyntax; those about PHP types this
// package does not model (objects, references, enums) match ErrUnsupported
// as well.
var (
	ErrSyntax      = errors.New("wire: syntax error")
	ErrUnsupported = errors.New("wire: unsupported serialized type")
)

// SyntaxError describes where and why Unmarshal rejected its input.
type SyntaxError struct {
	Offset      int    // byte offset in the input
	Problem     string // what was wrong there
	unsupported bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("wire: syntax error at byte %d: %s", e.Offset, e.Problem)
}

// Unwrap lets errors.Is match ErrSyntax, and ErrUnsupported when the input
// used a PHP type outside this package's model.
func (e *SyntaxError) Unwrap() []error {
	if e.unsupported {
		return []error{ErrSyntax, ErrUnsupported}
	}
	return []error{ErrSyntax}
}

// minEntrySize is the smallest serialized array entry, i:0;N; , used to
// reject counts the remaining input cannot hold before anything is
// allocated for them.
const minEntrySize = 6

// Unmarshal decodes one PHP-serialized value that must span all of data.
// It returns nil, bool, int64, float64, string or *Array, whose values are
// of the same types. Strings are copies; data may be reused afterwards.
//
// It is strict: it accepts what PHP's serialize() writes and rejects
// trailing bytes, wrong lengths and counts, non-canonical integers ("+1",
// "01"), duplicate array keys, nesting deeper than MaxDepth, and objects,
// references and enums (ErrUnsupported). Array string keys that PHP would
// store as integers are returned as int64, as PHP's unserialize() does.
func Unmarshal(data []byte) (any, error) {
	d := decoder{data: data}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if d.pos != len(d.data) {
		return nil, d.fail("trailing data after the value")
	}
	return v, nil
}

type decoder struct {
	data  []byte
	pos   int
	depth int
}

func (d *decoder) fail(format string, args ...any) error {
	return &SyntaxError{Offset: d.pos, Problem: fmt.Sprintf(format, args...)}
}

func (d *decoder) expect(s string) error {
	if len(d.data)-d.pos < len(s) || string(d.data[d.pos:d.pos+len(s)]) != s {
		return d.fail("expected %q", s)
	}
	d.pos += len(s)
	return nil
}

// token returns the bytes up to (not including) the next stop byte and
// moves past the stop byte.
func (d *decoder) token(stop byte) ([]byte, error) {
	for i := d.pos; i < len(d.data); i++ {
		if d.data[i] == stop {
			tok := d.data[d.pos:i]
			d.pos = i + 1
			return tok, nil
		}
	}
	return nil, d.fail("missing %q", stop)
}

func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail("unexpected end of input")
	}
	switch c := d.data[d.pos]; c {
	case 'N':
		if err := d.expect("N;"); err != nil {
			return nil, err
		}
		return nil, nil
	case 'b':
		switch {
		case d.expect("b:0;") == nil:
			return false, nil
		case d.expect("b:1;") == nil:
			return true, nil
		}
		return nil, d.fail("boolean must be b:0; or b:1;")
	case 'i':
		return d.integer()
	case 'd':
		return d.float()
	case 's':
		return d.str()
	case 'a':
		return d.array()
	case 'O', 'C', 'o', 'r', 'R', 'E', 'S':
		return nil, &SyntaxError{Offset: d.pos, Problem: fmt.Sprintf("type %q (object, reference or enum) is not supported", c), unsupported: true}
	default:
		return nil, d.fail("unexpected byte %q", c)
	}
}

// parseCanonicalInt accepts only what serialize() writes for an integer.
func parseCanonicalInt(tok []byte) (int64, bool) {
	return canonicalInt(string(tok))
}

func (d *decoder) integer() (int64, error) {
	if err := d.expect("i:"); err != nil {
		return 0, err
	}
	start := d.pos
	tok, err := d.token(';')
	if err != nil {
		return 0, err
	}
	n, ok := parseCanonicalInt(tok)
	if !ok {
		d.pos = start
		return 0, d.fail("bad integer %q", truncate(tok))
	}
	return n, nil
}

func (d *decoder) float() (float64, error) {
	if err := d.expect("d:"); err != nil {
		return 0, err
	}
	start := d.pos
	tok, err := d.token(';')
	if err != nil {
		return 0, err
	}
	switch string(tok) {
	case "NAN":
		return math.NaN(), nil
	case "INF":
		return math.Inf(1), nil
	case "-INF":
		return math.Inf(-1), nil
	}
	// strconv.ParseFloat also takes "inf", hex floats and underscores,
	// which serialize() never writes; check the shape first.
	if !decimalFloat(tok) {
		d.pos = start
		return 0, d.fail("bad float %q", truncate(tok))
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		d.pos = start
		return 0, d.fail("float %q out of range", truncate(tok))
	}
	return f, nil
}

// decimalFloat reports whether tok is -?digits(.digits)?([eE][+-]?digits)?.
func decimalFloat(tok []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	if digits() == 0 {
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}

// length reads a non-negative count followed by ':'.
func (d *decoder) length() (int, error) {
	start := d.pos
	tok, err := d.token(':')
	if err != nil {
		return 0, err
	}
	n, ok := parseCanonicalInt(tok)
	if !ok || n < 0 || n > math.MaxInt32 {
		d.pos = start
		return 0, d.fail("bad length %q", truncate(tok))
	}
	return int(n), nil
}

func (d *decoder) str() (string, error) {
	if err := d.expect("s:"); err != nil {
		return "", err
	}
	n, err := d.length()
	if err != nil {
		return "", err
	}
	if err := d.expect(`"`); err != nil {
		return "", err
	}
	if n > len(d.data)-d.pos {
		return "", d.fail("string length %d exceeds the remaining %d bytes", n, len(d.data)-d.pos)
	}
	s := string(d.data[d.pos : d.pos+n])
	d.pos += n
	if err := d.expect(`";`); err != nil {
		return "", err
	}
	return s, nil
}

func (d *decoder) array() (*Array, error) {
	if err := d.expect("a:"); err != nil {
		return nil, err
	}
	if d.depth++; d.depth > MaxDepth {
		return nil, d.fail("arrays nested deeper than %d", MaxDepth)
	}
	defer func() { d.depth-- }()
	countAt := d.pos
	n, err := d.length()
	if err != nil {
		return nil, err
	}
	if err := d.expect("{"); err != nil {
		return nil, err
	}
	if n > (len(d.data)-d.pos)/minEntrySize {
		d.pos = countAt
		return nil, d.fail("array count %d exceeds what the remaining %d bytes can hold", n, len(d.data)-d.pos)
	}
	// The count is only a hint: nested arrays could each claim most of the
	// input, so preallocate little and let append grow with real entries.
	a := &Array{entries: make([]arrayEntry, 0, min(n, linearScanMax))}
	for range n {
		keyAt := d.pos
		var k arrayKey
		switch {
		case d.pos < len(d.data) && d.data[d.pos] == 'i':
			i, err := d.integer()
			if err != nil {
				return nil, err
			}
			k = arrayKey{i: i}
		case d.pos < len(d.data) && d.data[d.pos] == 's':
			s, err := d.str()
			if err != nil {
				return nil, err
			}
			k = stringKey(s)
		default:
			return nil, d.fail("array key must be an integer or a string")
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		if !a.set(k, v) {
			d.pos = keyAt
			return nil, d.fail("duplicate array key %s", k)
		}
	}
	if err := d.expect("}"); err != nil {
		return nil, err
	}
	return a, nil
}

// truncate keeps error messages short when the input is hostile.
func truncate(b []byte) string {
	const max = 32
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// Kind names the PHP type of a value Unmarshal returned: "null", "bool",
// "int", "float", "string" or "array" (tests compare reply shapes with it).
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "string"
	case *Array:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}
