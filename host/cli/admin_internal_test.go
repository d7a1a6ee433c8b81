package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sampleArgs are valid arguments of every operator command (after its
// words, without --data).
var sampleArgs = map[string][]string{
	"account create":  {"--login", "x", "--password", "p"},
	"account grant":   {"--login", "x", "--tickets", "5", "--upgrade", "aa.Hero_Pyromancer.Alt2"},
	"account show":    {"--login", "x"},
	"account role":    {"--login", "x", "--operator"},
	"account delete":  {"--login", "x", "--yes"},
	"backup":          {"--to", "backup-dir"},
	"plugins":         {},
	"products import": {"catalog.json"},
	"cloud show":      {"--login", "x", "--bucket", "b"},
	"reports list":    {"--status", "any", "--reportee", "Someone"},
	"reports show":    {"12-3"},
	"reports resolve": {"12-3", "--action", "suspend", "--days", "2", "--note", "spam", "--by", "mod"},
	"guides import":   {"guides.json", "--strict"},
	"guides list":     {"--hero", "Hero_Pyromancer"},
	"guides hide":     {"--gid", "7"},
	"guides unhide":   {"--gid", "7"},
	"guides premium":  {"--gid", "7", "--off"},
}

// TestRequestsRoundTrip: every operator command parses its sample command
// line into a request of its own Op, which travels over the admin socket's
// encoding and decodes (strictly) into an equal request.
func TestRequestsRoundTrip(t *testing.T) {
	for i := range ops {
		o := &ops[i]
		t.Run(o.name, func(t *testing.T) {
			args, ok := sampleArgs[o.name]
			if !ok {
				t.Fatalf("no sample arguments for %q: add them to sampleArgs", o.name)
			}
			req, err := o.parse(args)
			if err != nil {
				t.Fatalf("parse %q: %v", args, err)
			}
			if req.Op() != o.name {
				t.Fatalf("request Op %q, command %q", req.Op(), o.name)
			}
			body, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			env, err := json.Marshal(adminRequest{Protocol: AdminProtocol, Op: req.Op(), Request: body})
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeAdmin(bytes.NewReader(env))
			if err != nil {
				t.Fatalf("decode %s: %v", env, err)
			}
			if !reflect.DeepEqual(got, req) {
				t.Errorf("decoded %#v, sent %#v", got, req)
			}
		})
	}
}

// TestRequestPathsAbsolute: paths given on the command line are made
// absolute before the request may travel to a server with another working
// directory; a relative path arriving over the socket is refused.
func TestRequestPathsAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Each request as it travels over the socket (JSON), read by its
	// field's name: an area's request type is its own package's.
	for _, tc := range []struct{ op, field string }{
		{"backup", "to"},
		{"products import", "file"},
		{"guides import", "file"},
	} {
		req, err := opNamed(tc.op).parse(sampleArgs[tc.op])
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		if p, _ := fields[tc.field].(string); !filepath.IsAbs(p) || !strings.HasPrefix(p, wd) {
			t.Errorf("%s: path %q not made absolute (request %s)", tc.op, p, b)
		}
	}
	_, err = decodeAdmin(strings.NewReader(`{"protocol":2,"op":"backup","request":{"to":"relative"}}`))
	if !errors.Is(err, errUsage) || !strings.Contains(explain(err), "absolute") {
		t.Errorf("relative backup path over the socket: %v", err)
	}
}

// TestAdminDecodeRefuses: the server decodes strictly; whatever is not a
// valid request of its protocol is refused with a sentence for the
// operator, and nothing runs.
func TestAdminDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		usage    bool
		want     string
	}{
		{"not JSON", `account show`, false, "not JSON"},
		{"protocol 1 (argv)", `{"args":["account","show","--login","x"]}`, false, "command is older than the running server"},
		{"newer protocol", `{"protocol":3,"op":"account show","request":{"login":"x"}}`, false, "server is older than this"},
		{"unknown op", `{"protocol":2,"op":"account purge","request":{"login":"x"}}`, true, `unknown operation "account purge"`},
		{"unknown envelope field", `{"protocol":2,"op":"account show","request":{"login":"x"},"args":["x"]}`, false, `unknown field "args"`},
		{"unknown request field", `{"protocol":2,"op":"account show","request":{"login":"x","gold":1}}`, true, `unknown field "gold"`},
		{"wrong type", `{"protocol":2,"op":"account grant","request":{"login":"x","tickets":"many"}}`, true, "account grant request"},
		{"no request", `{"protocol":2,"op":"account show"}`, true, "empty request"},
		{"missing login", `{"protocol":2,"op":"account grant","request":{"tickets":1}}`, true, "--login is required"},
		{"op and request disagree", `{"protocol":2,"op":"guides hide","request":{"gid":3,"hidden":false}}`, true, `unknown field "hidden"`},
		{"unknown area request field", `{"protocol":2,"op":"reports show","request":{"id":"1-1","gold":1}}`, true, `unknown field "gold"`},
		{"bad report id", `{"protocol":2,"op":"reports show","request":{"id":"x"}}`, true, "REPORTER-NUMBER"},
		{"suspend without days", `{"protocol":2,"op":"reports resolve","request":{"id":"1-1","action":"suspend","by":"m"}}`, true, "suspend needs --days"},
		{"request not an object", `{"protocol":2,"op":"account show","request":["x"]}`, true, "account show request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := decodeAdmin(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("accepted: %#v", req)
			}
			if errors.Is(err, errUsage) != tc.usage {
				t.Errorf("usage error %t, want %t: %v", errors.Is(err, errUsage), tc.usage, err)
			}
			msg := explain(err)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q lacks %q", msg, tc.want)
			}
			assertNoPrefix(t, "message", msg)
		})
	}
}

// fakeAdmin answers one connection on dir's admin socket with reply.
func fakeAdmin(t *testing.T, dir, reply string) <-chan string {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dir, AdminSocketName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		var raw json.RawMessage
		json.NewDecoder(conn).Decode(&raw)
		got <- string(raw)
		conn.Write([]byte(reply + "\n"))
	}()
	return got
}

// TestAdminProtocolMismatch: a command talking to a server of another
// protocol version says which one is older and exits 1, and prints none of
// the server's output.
func TestAdminProtocolMismatch(t *testing.T) {
	for _, tc := range []struct{ name, reply, want string }{
		// What a protocol-1 server answers a request without "args".
		{"older server", `{"output":"","error":"unknown command \"[]\"","usage":true}`, "server running on"},
		{"newer server", `{"protocol":3,"output":"ignored","error":"this honmaster command is older"}`, "this " + Name + " command is older than the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sent := fakeAdmin(t, dir, tc.reply)
			code, out, errOut := run("account", "show", "--login", "x", "--data", dir)
			if code != 1 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 with %q", code, out, errOut, tc.want)
			}
			if tc.name == "older server" && !strings.Contains(errOut, "is older than this") {
				t.Errorf("stderr %q does not say the server is older", errOut)
			}
			if s := <-sent; s != `{"protocol":2,"op":"account show","request":{"login":"x"}}` {
				t.Errorf("sent %s", s)
			}
			assertNoPrefix(t, "stderr", errOut)
		})
	}
}

// TestAdminLogHidesPassword: the server's log line of a command names the
// operation and its values but never a password.
func TestAdminLogHidesPassword(t *testing.T) {
	req, err := opNamed("account create").parse([]string{"--login", "x", "--password", "hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	auditCommand(slog.New(slog.NewTextHandler(&buf, nil)), req, "")
	if strings.Contains(buf.String(), "hunter2") || !strings.Contains(buf.String(), "account=x") ||
		!strings.Contains(buf.String(), `action="account create"`) || !strings.Contains(buf.String(), "password=(redacted)") || strings.Contains(buf.String(), "&{") {
		t.Errorf("log line %q", buf.String())
	}
}
