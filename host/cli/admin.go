package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/operator"
)

// AdminSocketName is the admin socket's file name inside the data directory.
const AdminSocketName = "admin.sock"

// AdminProtocol is the version of the admin socket's protocol. 1 carried
// the command line's words; 2 carries one typed Request per operation. A
// command and a server of different versions refuse each other with a
// sentence saying which one is older.
const AdminProtocol = 2

// adminRequest is one operator operation sent to a running server: Op names
// the Request type (the command, "account grant") and Request is that
// Request as JSON.
type adminRequest struct {
	Protocol int             `json:"protocol"`
	Op       string          `json:"op"`
	Request  json.RawMessage `json:"request"`
}

// adminReply is the operation's output and error text. Protocol is the
// server's (absent, so 0, from a server of protocol 1).
type adminReply struct {
	Protocol int    `json:"protocol"`
	Output   string `json:"output"`
	Error    string `json:"error,omitempty"`
	Usage    bool   `json:"usage,omitempty"`
	// Config: the failure is a configuration mistake (exit status 2), such
	// as a backup asked of a server whose database is in PostgreSQL.
	Config bool `json:"config,omitempty"`
}

// adminTimeout bounds one admin command.
const adminTimeout = 60 * time.Second

// maxAdminRequest bounds the bytes of one request.
const maxAdminRequest = 1 << 20

// serveAdmin answers operator commands on the socket until stop. The
// socket is created with owner-only permissions.
//
// stop closes the socket, cuts short the reading of requests still
// arriving, cancels the commands running (their context) and waits until
// every one has replied: the server closes the database after it, and a
// command still reading it then panicked the stopping server (Pebble
// panics on a closed database). A request read after the stop began is
// refused, nothing done.
func serveAdmin(ctx context.Context, app *App, path string) (stop func(), conns *adminConns, err error) {
	_ = os.Remove(path) // a stale socket from a killed server
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, nil, fmt.Errorf("admin socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &adminConns{open: map[net.Conn]struct{}{}}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			if !s.add(conn) {
				conn.Close()
				continue
			}
			go func() {
				defer s.done(conn)
				handleAdmin(ctx, app, conn)
			}()
		}
	}()
	return func() {
		ln.Close()
		os.Remove(path)
		cancel() // before the reads are cut: a cut read then tells the stop
		s.stop()
		s.wg.Wait()
	}, s, nil
}

// maxSocketPath is the longest path a Unix socket address holds: Linux's
// sun_path is 108 bytes with its final NUL, the BSDs' and macOS's 104.
var maxSocketPath = func() int {
	if runtime.GOOS == "linux" {
		return 107
	}
	return 103
}()

// checkAdminSocketPath refuses a data directory whose admin socket path a
// Unix socket address cannot hold, naming the setting and the limit.
func checkAdminSocketPath(dataDir string) error {
	path := filepath.Join(dataDir, AdminSocketName)
	if len(path) > maxSocketPath { // as net.Listen is given it

		return &opError{cause: errConfig, msg: fmt.Sprintf("storage.data_dir (--data) %s is too long a path: its admin socket %s "+
			"takes %d bytes, and a Unix socket path holds at most %d; choose a shorter data directory", dataDir, path, len(path), maxSocketPath)}
	}
	return nil
}

// adminConns are the admin socket's connections being served.
type adminConns struct {
	mu       sync.Mutex
	open     map[net.Conn]struct{}
	stopping bool
	wg       sync.WaitGroup
}

// add counts conn in, unless the stop began.
func (s *adminConns) add(conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.open[conn] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *adminConns) done(conn net.Conn) {
	s.mu.Lock()
	delete(s.open, conn)
	s.mu.Unlock()
	s.wg.Done()
}

// stop refuses new connections and ends the reads of the open ones (a
// request still arriving); a command already read runs on to its reply.
func (s *adminConns) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
	for conn := range s.open {
		_ = conn.SetReadDeadline(time.Now())
	}
}

// served reports how many connections are being served (tests).
func (s *adminConns) served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

// errAdminStopping refuses a command that the server's stop reached
// before it ran.
var errAdminStopping = &opError{cause: errors.New("admin: stopping"), msg: "the server is stopping: nothing was done; run the command again once it is back (or with --data while it is stopped)"}

// errAdminInterrupted: the server's stop cancelled a command running.
var errAdminInterrupted = &opError{cause: errors.New("admin: interrupted"), msg: "the server stopped while the command ran: " +
	"it was interrupted, and what it did before is kept (its output says what); run it again once the server is back"}

// errBadAdminRequest: the admin socket got something that is not a request
// of this protocol.
var errBadAdminRequest = errors.New("bad admin request")

// decodeAdmin reads one request: the envelope, then the typed Request its
// Op names. Both are decoded strictly (an unknown field is refused), the
// Request is validated, and a request of another protocol version is
// refused with a sentence for the operator.
func decodeAdmin(r io.Reader) (Request, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(io.LimitReader(r, maxAdminRequest)).Decode(&raw); err != nil {
		return nil, badAdminRequest("not JSON", err)
	}
	var version struct {
		Protocol int `json:"protocol"`
	}
	if err := json.Unmarshal(raw, &version); err != nil {
		return nil, badAdminRequest("no protocol version", err)
	}
	switch {
	case version.Protocol < AdminProtocol:
		return nil, &opError{cause: errBadAdminRequest, msg: fmt.Sprintf("this %s command is older than the running server "+
			"(admin protocol %d, the server speaks %d): run the command with the server's own %s binary", Name, version.Protocol, AdminProtocol, Name)}
	case version.Protocol > AdminProtocol:
		return nil, &opError{cause: errBadAdminRequest, msg: fmt.Sprintf("the running server is older than this %s command "+
			"(admin protocol %d, the command speaks %d): run the command with the server's own %s binary, or restart the server with this one",
			Name, AdminProtocol, version.Protocol, Name)}
	}
	var env adminRequest
	if err := strictJSON(raw, &env); err != nil {
		return nil, badAdminRequest("not a request", err)
	}
	o := opNamed(env.Op)
	if o == nil {
		return nil, usageError("unknown operation %q", env.Op)
	}
	req := o.empty()
	if err := strictJSON(env.Request, req); err != nil {
		return nil, usageError("%s request: %w", env.Op, err)
	}
	if req.Op() != env.Op {
		return nil, usageError("the request is a %q request, not %q", req.Op(), env.Op)
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return req, nil
}

// badAdminRequest is a request the server cannot read.
func badAdminRequest(what string, err error) error {
	return &opError{cause: errors.Join(errBadAdminRequest, err), msg: fmt.Sprintf("the server could not read the command (%s: %v)", what, stripInternal(err.Error()))}
}

// strictJSON decodes one JSON value into v, refusing unknown fields and
// anything after the value.
func strictJSON(data []byte, v any) error {
	if len(data) == 0 {
		return errors.New("empty request")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the request")
	}
	return nil
}

func handleAdmin(ctx context.Context, app *App, conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(adminTimeout))
	reply := adminReply{Protocol: AdminProtocol}
	var out bytes.Buffer
	req, err := decodeAdmin(bufio.NewReader(conn))
	if ctx.Err() != nil {
		// The stop began while the request arrived (its reading cut
		// short) or before it ran.
		err = errAdminStopping
	}
	if err == nil {
		c, cancel := context.WithTimeout(ctx, adminTimeout)
		err = req.Run(c, app, &out)
		cancel()
		if err != nil && ctx.Err() != nil {
			err = errAdminInterrupted
		}
	}
	if err != nil {
		// Worded for the operator here, since only the text travels.
		reply.Error, reply.Usage, reply.Config = explain(err), errors.Is(err, errUsage), errors.Is(err, errConfig)
	}
	reply.Output = out.String()
	if req != nil {
		auditCommand(app.Log, req, reply.Error)
	} else {
		app.Log.Warn("admin request refused", "err", err)
	}
	json.NewEncoder(conn).Encode(reply)
}

// auditCommand writes an operator command's line of the audit trail
// (operator.Audit): failed is the sentence the operator read, "" when it
// succeeded.
func auditCommand(log *slog.Logger, req Request, failed string) {
	var err error
	if failed != "" {
		err = errors.New(failed)
	}
	account, change := requestAttrs(req)
	operator.Audit(log, operator.ByCommand, req.Op(), account, change, err)
}

// requestAttrs are an operator command's account (its login field) and
// what it asks for: each other field of its request by name ("gold",
// "operator"; an area's command by its JSON names: "id", "action", "by"),
// a pointer by the value it points at (unset ones left out), secrets (a
// password, a token) shown only as set or not.
func requestAttrs(req Request) (account string, change []any) {
	if ar, ok := req.(*areaRequest); ok {
		return areaAttrs(ar)
	}
	v := reflect.Indirect(reflect.ValueOf(req))
	if v.Kind() != reflect.Struct {
		return "", nil
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.ToLower(f.Name)
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		val := fv.Interface()
		switch {
		case operator.Secret(name):
			val = "(redacted)"
			if fv.IsZero() {
				val = "(none)"
			}
		case name == "login":
			account, _ = val.(string)
			continue
		}
		change = append(change, name, val)
	}
	return account, change
}

// areaAttrs are requestAttrs of an area's command: its request's JSON
// fields (what travels over the admin socket), a "login" one as the
// account.
func areaAttrs(r *areaRequest) (account string, change []any) {
	b, err := json.Marshal(r.req)
	if err != nil {
		return "", nil
	}
	var fields map[string]any
	if json.Unmarshal(b, &fields) != nil {
		return "", nil
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		val := fields[k]
		switch {
		case operator.Secret(k):
			val = "(redacted)"
		case k == "login":
			account = fmt.Sprint(val)
			continue
		}
		change = append(change, k, val)
	}
	return account, change
}

// errNoServer means no server answers on the data directory's socket.
var errNoServer = errors.New("no running server")

// errAdminProtocol: the command and the running server speak different
// versions of the admin protocol.
var errAdminProtocol = errors.New("admin protocol mismatch")

// runRemote sends req to the server running on dataDir. It returns
// errNoServer when there is none, so the caller opens the directory itself.
func runRemote(dataDir string, req Request, out io.Writer) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("unix", filepath.Join(dataDir, AdminSocketName), 2*time.Second)
	if err != nil {
		return errNoServer
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(adminTimeout + 5*time.Second))
	if err := json.NewEncoder(conn).Encode(adminRequest{Protocol: AdminProtocol, Op: req.Op(), Request: body}); err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("cannot send the command to the server running on %s: %v", dataDir, err)}
	}
	var reply adminReply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("the server running on %s sent no answer (it may be stopping; "+
			"the command may or may not have been applied): %v", dataDir, err)}
	}
	if reply.Protocol < AdminProtocol {
		// A server of protocol 1 answers a request it cannot read with an
		// error and no protocol; one of a later version says so itself.
		return &opError{cause: errAdminProtocol, msg: fmt.Sprintf("the server running on %s is older than this %s command "+
			"(admin protocol %d, the command speaks %d): run the command with the server's own %s binary, or restart the server with this one",
			dataDir, Name, reply.Protocol, AdminProtocol, Name)}
	}
	if reply.Protocol > AdminProtocol {
		return &opError{cause: errAdminProtocol, msg: fmt.Sprintf("this %s command is older than the server running on %s "+
			"(admin protocol %d, the server speaks %d): run the command with the server's own %s binary", Name, dataDir, AdminProtocol, reply.Protocol, Name)}
	}
	io.WriteString(out, reply.Output)
	switch {
	case reply.Error == "":
		return nil
	case reply.Usage:
		return usageError("%s", reply.Error)
	case reply.Config:
		return &opError{cause: errors.Join(errConfig, errRemote), msg: reply.Error}
	default:
		return &opError{cause: errRemote, msg: reply.Error}
	}
}

// errRemote is a failure the running server reported (its text is already
// worded for the operator).
var errRemote = errors.New("the server refused the command")
