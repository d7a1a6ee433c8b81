package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// AdminSocketName is the admin socket's file name inside the data directory.
const AdminSocketName = "admin.sock"

// adminRequest is one operator command sent to a running server.
type adminRequest struct {
	Args []string `json:"args"`
}

// adminReply is the command's output and error text.
type adminReply struct {
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
	Usage  bool   `json:"usage,omitempty"`
}

// adminTimeout bounds one admin command.
const adminTimeout = 60 * time.Second

// serveAdmin answers operator commands on the socket until ctx ends. The
// socket is created with owner-only permissions.
func serveAdmin(ctx context.Context, app *App, path string) (stop func(), err error) {
	_ = os.Remove(path) // a stale socket from a killed server
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go handleAdmin(ctx, app, conn)
		}
	}()
	return func() { ln.Close(); os.Remove(path) }, nil
}

func handleAdmin(ctx context.Context, app *App, conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(adminTimeout))
	var req adminRequest
	if err := json.NewDecoder(bufio.NewReader(io.LimitReader(conn, 1<<20))).Decode(&req); err != nil {
		json.NewEncoder(conn).Encode(adminReply{Error: "bad admin request: " + err.Error()})
		return
	}
	o, args := findOp(req.Args)
	var out bytes.Buffer
	var reply adminReply
	if o == nil {
		reply.Error, reply.Usage = fmt.Sprintf("unknown command %q", req.Args), true
	} else {
		c, cancel := context.WithTimeout(ctx, adminTimeout)
		err := o.run(c, app, args, &out)
		cancel()
		if err != nil {
			// Worded for the operator here, since only the text travels.
			reply.Error, reply.Usage = explain(err), errors.Is(err, errUsage)
			if errors.Is(err, errUsage) {
				reply.Error = detail(err, errUsage) // the client adds it back
			}
		}
	}
	reply.Output = out.String()
	app.Log.Info("admin command", "args", redact(req.Args), "err", reply.Error)
	json.NewEncoder(conn).Encode(reply)
}

// errNoServer means no server answers on the data directory's socket.
var errNoServer = errors.New("no running server")

// runRemote sends a command to the server running on dataDir. It returns
// errNoServer when there is none, so the caller opens the directory itself.
func runRemote(dataDir string, words []string, out io.Writer) error {
	conn, err := net.DialTimeout("unix", filepath.Join(dataDir, AdminSocketName), 2*time.Second)
	if err != nil {
		return errNoServer
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(adminTimeout + 5*time.Second))
	if err := json.NewEncoder(conn).Encode(adminRequest{Args: words}); err != nil {
		return err
	}
	var reply adminReply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		return fmt.Errorf("admin socket reply: %w", err)
	}
	io.WriteString(out, reply.Output)
	switch {
	case reply.Error == "":
		return nil
	case reply.Usage:
		return fmt.Errorf("%w: %s", errUsage, reply.Error)
	default:
		return errors.New(reply.Error)
	}
}

// secretFlags are flags whose values never reach a log.
var secretFlags = map[string]bool{"--password": true, "-password": true}

// redact returns args with the values of secret flags replaced.
func redact(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case secretFlags[name] && hasValue:
			out[i] = name + "=REDACTED"
		case i > 0 && secretFlags[args[i-1]] && !strings.Contains(args[i-1], "="):
			out[i] = "REDACTED"
		default:
			out[i] = a
		}
	}
	return out
}
