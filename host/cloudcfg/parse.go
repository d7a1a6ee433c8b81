package cloudcfg

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Strictness sets how much of the settings text Parse must understand.
type Strictness string

const (
	// Off is for hosts that check archives only and need not call Parse.
	// If they do, for a listing say, Parse treats Off like Lenient.
	Off Strictness = "off"
	// Lenient parses what it can and never fails: lines it cannot read,
	// including lines that are not valid UTF-8 (the game's encoding of
	// non-ASCII values is not known), are kept in File.Unknown.
	Lenient Strictness = "lenient"
	// Strict rejects the text at the first line that is not a blank line,
	// a comment, or one of the three known commands in its exact shape.
	// Lines that are not valid UTF-8 are rejected too.
	Strict Strictness = "strict"
)

// ParseStrictness converts a configuration value to a Strictness. The empty
// string means Lenient.
func ParseStrictness(s string) (Strictness, error) {
	switch st := Strictness(strings.ToLower(strings.TrimSpace(s))); st {
	case "":
		return Lenient, nil
	case Off, Lenient, Strict:
		return st, nil
	}
	return "", fmt.Errorf("%w: %q (want off, lenient or strict)", ErrStrictness, s)
}

// File is a parsed cloud.cfg. Records keep the order of their lines.
type File struct {
	Settings []Setting
	Rebinds  []Rebind
	Binds    []Bind
	Unknown  []Line // lines Parse could not read; kept in Lenient and Off modes
}

// Setting is a line SetSave "<name>" "<value>" "<flag 0 or 1>".
type Setting struct {
	Name, Value string
	Flag        bool
}

// UnboundKey is the key name the game writes for an unbound Rebind slot.
const UnboundKey = "INVALID"

// Rebind is a line
// GameReBind <name> <command> "<argument>" <kind> <context> "<key1>" "<key2>".
// Kind is one of RebindKinds and Context one of RebindContexts, spelled as in
// the file. A key equal to UnboundKey means the slot is unbound.
type Rebind struct {
	Name, Command, Argument, Kind, Context, Key1, Key2 string
}

// Bind is a line BindButton <context> <key> <command> "<argument>" <true|false>.
type Bind struct {
	Context, Key, Command, Argument string
	Flag                            bool
}

// Line is a line that Parse could not read.
type Line struct {
	Number int    // 1-based line number
	Text   string // the line, without its line ending
	Err    error  // why it could not be read; wraps ErrSyntax
}

// The wire names: commands, and the words GameReBind accepts. Matching
// ignores case, as the game's console does.
const (
	cmdSetSave    = "SetSave"
	cmdGameReBind = "GameReBind"
	cmdBindButton = "BindButton"
)

var (
	// RebindKinds are the kinds a GameReBind line may name.
	RebindKinds = []string{"button", "impulse"}
	// RebindContexts are the contexts a GameReBind line may name.
	RebindContexts = []string{"game", "shop", "spectator", "replay", "ui", "mentor"}
)

var bom = []byte("\xef\xbb\xbf")

// Parse parses settings text. In Strict mode the first unreadable line stops
// it with a *LineError wrapping ErrSyntax; in Lenient and Off modes it does
// not fail, and unreadable lines are returned in File.Unknown.
// The zero Strictness means Lenient; any other unknown value gives an error
// wrapping ErrStrictness.
func Parse(text []byte, s Strictness) (*File, error) {
	switch s {
	case "":
		s = Lenient
	case Off, Lenient, Strict:
	default:
		return nil, fmt.Errorf("%w: %q", ErrStrictness, s)
	}
	text = bytes.TrimPrefix(text, bom)
	f := &File{}
	for n := 1; len(text) > 0; n++ {
		var raw []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			raw, text = text[:i], text[i+1:]
		} else {
			raw, text = text, nil
		}
		line := string(bytes.TrimSuffix(raw, []byte("\r")))
		err := f.parseLine(line)
		if err == nil {
			continue
		}
		if s == Strict {
			return nil, &LineError{Line: n, Text: line, Err: err}
		}
		f.Unknown = append(f.Unknown, Line{Number: n, Text: line, Err: err})
	}
	return f, nil
}

// parseLine adds the record on line to f, or says why it cannot.
func (f *File) parseLine(line string) error {
	if !utf8.ValidString(line) {
		return syntaxf("invalid UTF-8")
	}
	trimmed := strings.TrimLeft(line, " \t")
	if trimmed == "" || strings.HasPrefix(trimmed, "//") {
		return nil
	}
	toks, err := tokenize(trimmed)
	if err != nil {
		return err
	}
	verb, args := toks[0], toks[1:]
	switch {
	case strings.EqualFold(verb, cmdSetSave):
		s, err := parseSetting(args)
		if err != nil {
			return err
		}
		f.Settings = append(f.Settings, s)
	case strings.EqualFold(verb, cmdGameReBind):
		r, err := parseRebind(args)
		if err != nil {
			return err
		}
		f.Rebinds = append(f.Rebinds, r)
	case strings.EqualFold(verb, cmdBindButton):
		b, err := parseBind(args)
		if err != nil {
			return err
		}
		f.Binds = append(f.Binds, b)
	default:
		return syntaxf("unknown command %q", verb)
	}
	return nil
}

func parseSetting(a []string) (Setting, error) {
	if len(a) != 3 {
		return Setting{}, syntaxf("%s wants 3 arguments, got %d", cmdSetSave, len(a))
	}
	if a[0] == "" {
		return Setting{}, syntaxf("%s with an empty name", cmdSetSave)
	}
	var flag bool
	switch a[2] {
	case "0":
	case "1":
		flag = true
	default:
		return Setting{}, syntaxf("%s flag %q is not 0 or 1", cmdSetSave, a[2])
	}
	return Setting{Name: a[0], Value: a[1], Flag: flag}, nil
}

func parseRebind(a []string) (Rebind, error) {
	if len(a) != 7 {
		return Rebind{}, syntaxf("%s wants 7 arguments, got %d", cmdGameReBind, len(a))
	}
	r := Rebind{Name: a[0], Command: a[1], Argument: a[2], Kind: a[3], Context: a[4], Key1: a[5], Key2: a[6]}
	switch {
	case r.Name == "" || r.Command == "":
		return Rebind{}, syntaxf("%s with an empty name or command", cmdGameReBind)
	case !oneOf(r.Kind, RebindKinds):
		return Rebind{}, syntaxf("%s kind %q is not one of %v", cmdGameReBind, r.Kind, RebindKinds)
	case !oneOf(r.Context, RebindContexts):
		return Rebind{}, syntaxf("%s context %q is not one of %v", cmdGameReBind, r.Context, RebindContexts)
	case r.Key1 == "" || r.Key2 == "":
		return Rebind{}, syntaxf("%s with an empty key (unbound is %s)", cmdGameReBind, UnboundKey)
	}
	return r, nil
}

func parseBind(a []string) (Bind, error) {
	if len(a) != 5 {
		return Bind{}, syntaxf("%s wants 5 arguments, got %d", cmdBindButton, len(a))
	}
	b := Bind{Context: a[0], Key: a[1], Command: a[2], Argument: a[3]}
	if b.Context == "" || b.Key == "" || b.Command == "" {
		return Bind{}, syntaxf("%s with an empty context, key or command", cmdBindButton)
	}
	switch {
	case strings.EqualFold(a[4], "true"):
		b.Flag = true
	case strings.EqualFold(a[4], "false"):
	default:
		return Bind{}, syntaxf("%s flag %q is not true or false", cmdBindButton, a[4])
	}
	return b, nil
}

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if strings.EqualFold(s, v) {
			return true
		}
	}
	return false
}

// tokenize splits a line into words. A word is either a run of characters
// other than space and tab, or a quoted string in which \" and \\ are escapes
// and every other backslash is literal. A quote may not start or end in the
// middle of a word.
func tokenize(s string) ([]string, error) {
	var toks []string
	for i := 0; ; {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return toks, nil
		}
		if s[i] != '"' {
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				if s[j] == '"' {
					return nil, syntaxf("quote inside word at column %d", j+1)
				}
				j++
			}
			toks = append(toks, s[i:j])
			i = j
			continue
		}
		start := i + 1
		var sb strings.Builder
		closed := false
		for i = start; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				i++
				sb.WriteByte(s[i])
				continue
			}
			if c == '"' {
				closed = true
				i++
				break
			}
			sb.WriteByte(c)
		}
		if !closed {
			return nil, syntaxf("unterminated quote starting at column %d", start)
		}
		if i < len(s) && s[i] != ' ' && s[i] != '\t' {
			return nil, syntaxf("text right after closing quote at column %d", i+1)
		}
		toks = append(toks, sb.String())
	}
}
