package cloudcfg

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseSetting(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Setting
		bad  bool
	}{
		{name: "game form", line: `SetSave "cl_Rap2Enable" "false" "1"`, want: Setting{"cl_Rap2Enable", "false", true}},
		{name: "flag 0", line: `SetSave "cam_edgeScroll" "true" "0"`, want: Setting{"cam_edgeScroll", "true", false}},
		{name: "empty value", line: `SetSave "cg_current_weather" "" "0"`, want: Setting{"cg_current_weather", "", false}},
		{name: "spaces in value", line: `SetSave "chat_awayMessage" "back in 5" "0"`, want: Setting{"chat_awayMessage", "back in 5", false}},
		{name: "escaped quote", line: `SetSave "n" "say \"hi\"" "0"`, want: Setting{"n", `say "hi"`, false}},
		{name: "escaped backslash", line: `SetSave "n" "C:\\" "0"`, want: Setting{"n", `C:\`, false}},
		{name: "lone backslash kept", line: `SetSave "n" "C:\games\hon" "0"`, want: Setting{"n", `C:\games\hon`, false}},
		{name: "bare words", line: `SetSave sound_mute false 1`, want: Setting{"sound_mute", "false", true}},
		{name: "verb any case", line: `setsave "a" "b" "0"`, want: Setting{"a", "b", false}},
		{name: "tabs and indent", line: "\t SetSave\t\"a\"  \"b\"\t\"1\"  ", want: Setting{"a", "b", true}},
		{name: "unicode value", line: `SetSave "name" "Ärger ☃" "0"`, want: Setting{"name", "Ärger ☃", false}},
		{name: "missing flag", line: `SetSave "cg_smartcastingType" "1"`, bad: true},
		{name: "extra argument", line: `SetSave "a" "b" "0" "x"`, bad: true},
		{name: "flag not 0 or 1", line: `SetSave "a" "b" "true"`, bad: true},
		{name: "empty name", line: `SetSave "" "b" "0"`, bad: true},
		{name: "unterminated quote", line: `SetSave "a" "b "0"`, bad: true},
		{name: "quote mid word", line: `SetSave a"b" "c" "0"`, bad: true},
		{name: "text after quote", line: `SetSave "a"b "c" "0"`, bad: true},
		{name: "escaped closing quote", line: `SetSave "a" "b\" "0"`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.line), Strict)
			if tt.bad {
				wantLineError(t, err, 1, tt.line)
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(f.Settings) != 1 || f.Settings[0] != tt.want {
				t.Fatalf("Settings = %+v, want [%+v]", f.Settings, tt.want)
			}
		})
	}
}

func TestParseRebind(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Rebind
		bad  bool
	}{
		{
			name: "game form",
			line: `GameReBind Ability1 ActivateTool "0" button game "Q" "INVALID"`,
			want: Rebind{"Ability1", "ActivateTool", "0", "button", "game", "Q", "INVALID"},
		},
		{
			name: "all quoted",
			line: `GameReBind "Ability0" "ActivateTool" "0" "button" "game" "Q" "INVALID"`,
			want: Rebind{"Ability0", "ActivateTool", "0", "button", "game", "Q", "INVALID"},
		},
		{
			name: "empty argument, two keys",
			line: `GameReBind VoicePushToTalk VoicePushToTalk "" button game "SPACE" "MOUSEM"`,
			want: Rebind{"VoicePushToTalk", "VoicePushToTalk", "", "button", "game", "SPACE", "MOUSEM"},
		},
		{
			name: "impulse shop",
			line: `GameReBind Shop1 Shop "0" impulse shop "Q" "INVALID"`,
			want: Rebind{"Shop1", "Shop", "0", "impulse", "shop", "Q", "INVALID"},
		},
		{
			name: "odd key names",
			line: `GameReBind Ability12 ActivateTool "12" button game "~" "CTRL+SHIFT+~"`,
			want: Rebind{"Ability12", "ActivateTool", "12", "button", "game", "~", "CTRL+SHIFT+~"},
		},
		{name: "spectator", line: `GameReBind SpecUITab1A Cmd "SpecUITab1" impulse spectator "1" "INVALID"`, want: Rebind{"SpecUITab1A", "Cmd", "SpecUITab1", "impulse", "spectator", "1", "INVALID"}},
		{name: "replay", line: `GameReBind ReplayPauseA Cmd "ReplayPause" impulse replay "P" "INVALID"`, want: Rebind{"ReplayPauseA", "Cmd", "ReplayPause", "impulse", "replay", "P", "INVALID"}},
		{name: "ui", line: `GameReBind ToggleOverlayMenuUI ToggleOverlayMenuUI "" impulse ui "F6" "F10"`, want: Rebind{"ToggleOverlayMenuUI", "ToggleOverlayMenuUI", "", "impulse", "ui", "F6", "F10"}},
		{name: "mentor", line: `GameReBind TransmitMentorCursor TransmitMentorCursor "" button mentor "MOUSER" "INVALID"`, want: Rebind{"TransmitMentorCursor", "TransmitMentorCursor", "", "button", "mentor", "MOUSER", "INVALID"}},
		{name: "kind and context any case", line: `GameReBind A B "" Button GAME "Q" "INVALID"`, want: Rebind{"A", "B", "", "Button", "GAME", "Q", "INVALID"}},
		{name: "bad kind", line: `GameReBind A B "" toggle game "Q" "INVALID"`, bad: true},
		{name: "bad context", line: `GameReBind A B "" button observer "Q" "INVALID"`, bad: true},
		{name: "too few", line: `GameReBind A B "" button game "Q"`, bad: true},
		{name: "too many", line: `GameReBind A B "" button game "Q" "W" "E"`, bad: true},
		{name: "empty key", line: `GameReBind A B "" button game "" "INVALID"`, bad: true},
		{name: "empty name", line: `GameReBind "" B "" button game "Q" "INVALID"`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.line), Strict)
			if tt.bad {
				wantLineError(t, err, 1, tt.line)
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(f.Rebinds) != 1 || f.Rebinds[0] != tt.want {
				t.Fatalf("Rebinds = %+v, want [%+v]", f.Rebinds, tt.want)
			}
		})
	}
}

func TestParseBind(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Bind
		bad  bool
	}{
		{name: "cmd", line: `BindButton game F1 Cmd "ToggleShop" false`, want: Bind{"game", "F1", "Cmd", "ToggleShop", false}},
		{name: "game form", line: `BindButton game T ActivateTool "8" true`, want: Bind{"game", "T", "ActivateTool", "8", true}},
		{name: "empty argument", line: `BindButton game SPACE VoicePushToTalk "" true`, want: Bind{"game", "SPACE", "VoicePushToTalk", "", true}},
		{name: "unbound key", line: `BindButton game INVALID ActivateToolSelf "1" true`, want: Bind{"game", "INVALID", "ActivateToolSelf", "1", true}},
		{name: "all quoted", line: `BindButton "game" "F2" "Cmd" "Screenshot" "TRUE"`, want: Bind{"game", "F2", "Cmd", "Screenshot", true}},
		{name: "any context", line: `BindButton console F12 Cmd "x" false`, want: Bind{"console", "F12", "Cmd", "x", false}},
		{name: "flag 1 is not true", line: `BindButton game F1 Cmd "x" 1`, bad: true},
		{name: "missing flag", line: `BindButton game F1 Cmd "x"`, bad: true},
		{name: "extra", line: `BindButton game F1 Cmd "x" true more`, bad: true},
		{name: "empty key", line: `BindButton game "" Cmd "x" true`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.line), Strict)
			if tt.bad {
				wantLineError(t, err, 1, tt.line)
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(f.Binds) != 1 || f.Binds[0] != tt.want {
				t.Fatalf("Binds = %+v, want [%+v]", f.Binds, tt.want)
			}
		})
	}
}

func TestParseLayout(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		settings int
	}{
		{name: "empty", text: ""},
		{name: "blank lines and comments", text: "\n   \n// a comment\n  // indented comment\n\t\n"},
		{name: "CRLF", text: "SetSave \"a\" \"b\" \"0\"\r\nSetSave \"c\" \"d\" \"1\"\r\n", settings: 2},
		{name: "BOM", text: "\xef\xbb\xbfSetSave \"a\" \"b\" \"0\"\n", settings: 1},
		{name: "BOM then CRLF comment", text: "\xef\xbb\xbf// hi\r\nSetSave \"a\" \"b\" \"0\"", settings: 1},
		{name: "no final newline", text: "SetSave \"a\" \"b\" \"0\"", settings: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.text), Strict)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(f.Settings) != tt.settings || len(f.Unknown) != 0 {
				t.Fatalf("got %d settings, %d unknown; want %d, 0", len(f.Settings), len(f.Unknown), tt.settings)
			}
		})
	}
	// A BOM only counts at the very start.
	if _, err := Parse([]byte("// x\n\xef\xbb\xbfSetSave \"a\" \"b\" \"0\""), Strict); err == nil {
		t.Error("BOM on line 2 accepted")
	}
}

func TestParseStrictness(t *testing.T) {
	text := strings.Join([]string{
		`SetSave "a" "b" "0"`,             // 1
		`Exec "autoexec.cfg"`,             // 2 unknown command
		``,                                // 3
		`SetSave "a" "b"`,                 // 4 wrong shape
		"SetSave \"\xff\" \"b\" \"0\"",    // 5 invalid UTF-8
		`BindButton game F1 Cmd "x" true`, // 6
	}, "\n")

	t.Run("strict stops at first bad line", func(t *testing.T) {
		_, err := Parse([]byte(text), Strict)
		wantLineError(t, err, 2, `Exec "autoexec.cfg"`)
	})
	for _, mode := range []Strictness{Lenient, Off, ""} {
		t.Run(fmt.Sprintf("%q keeps bad lines", mode), func(t *testing.T) {
			f, err := Parse([]byte(text), mode)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(f.Settings) != 1 || len(f.Binds) != 1 {
				t.Errorf("got %d settings, %d binds; want 1, 1", len(f.Settings), len(f.Binds))
			}
			if got := lineNumbers(f.Unknown); !reflect.DeepEqual(got, []int{2, 4, 5}) {
				t.Errorf("unknown lines %v, want [2 4 5]", got)
			}
			for _, u := range f.Unknown {
				if !errors.Is(u.Err, ErrSyntax) {
					t.Errorf("line %d: Err %v does not wrap ErrSyntax", u.Number, u.Err)
				}
			}
		})
	}
	t.Run("strict rejects invalid UTF-8", func(t *testing.T) {
		_, err := Parse([]byte("SetSave \"a\" \"b\" \"0\"\nSetSave \"\xff\" \"b\" \"0\""), Strict)
		wantLineError(t, err, 2, "SetSave \"\xff\" \"b\" \"0\"")
	})
	t.Run("unknown strictness", func(t *testing.T) {
		if _, err := Parse([]byte(text), "loose"); !errors.Is(err, ErrStrictness) {
			t.Errorf("err = %v, want ErrStrictness", err)
		}
	})
}

func TestParseStrictnessValue(t *testing.T) {
	tests := []struct {
		in   string
		want Strictness
		bad  bool
	}{
		{in: "", want: Lenient},
		{in: "off", want: Off},
		{in: " Strict ", want: Strict},
		{in: "LENIENT", want: Lenient},
		{in: "paranoid", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseStrictness(tt.in)
		if tt.bad {
			if !errors.Is(err, ErrStrictness) {
				t.Errorf("ParseStrictness(%q) err = %v, want ErrStrictness", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseStrictness(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSampleStrict(t *testing.T) {
	text := readTestdata(t, "sample.cfg")
	_, err := Parse(text, Strict)
	wantLineError(t, err, 11, `SetSave "cg_smartcastingType" "1"`)

	f, err := Parse(text, Lenient)
	if err != nil {
		t.Fatalf("Parse lenient: %v", err)
	}
	if len(f.Settings) != 9 || len(f.Rebinds) != 12 || len(f.Binds) != 5 || len(f.Unknown) != 3 {
		t.Errorf("got %d/%d/%d/%d settings/rebinds/binds/unknown, want 9/12/5/3",
			len(f.Settings), len(f.Rebinds), len(f.Binds), len(f.Unknown))
	}
}

func wantLineError(t *testing.T, err error, line int, text string) {
	t.Helper()
	if !errors.Is(err, ErrSyntax) {
		t.Fatalf("err = %v, want ErrSyntax", err)
	}
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *LineError", err)
	}
	if le.Line != line || le.Text != text {
		t.Fatalf("LineError at %d %q, want %d %q", le.Line, le.Text, line, text)
	}
}

func lineNumbers(ls []Line) []int {
	var n []int
	for _, l := range ls {
		n = append(n, l.Number)
	}
	return n
}

func TestErrorMessages(t *testing.T) {
	_, err := Parse([]byte("\nSetSave a"), Strict)
	// Text is for logs; this only pins that it names the line and the cause.
	want := "line 2: cloudcfg: syntax error: SetSave wants 3 arguments, got 1"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
