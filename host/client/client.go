// Package client provides a Go client of the master server's HTTP API, as
// the game client uses it: SRP login, sub-account switching and plain form or
// multipart calls, and bodies built once to be sent many times. The end-to-end
// tests and the built-in load tester use it.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/wire"
)

// UserAgent is what the stock client sends (protocol-notes §1).
const UserAgent = "S2 Games/Heroes of Newerth/4.10.1.0/wac/x86_64"

// Client talks to one server.
type Client struct {
	Base  string // e.g. "http://127.0.0.1:8080"
	HTTP  *http.Client
	Group *srp.Group
}

// New returns a client of the server at base.
func New(base string) *Client {
	return &Client{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: 30 * time.Second}, Group: srp.DefaultGroup()}
}

// Reply is a raw reply.
type Reply struct {
	Status      int
	ContentType string
	Header      http.Header
	Body        []byte
}

// PHP decodes the reply as a PHP-serialized array.
func (r *Reply) PHP() (*wire.Array, error) {
	v, err := wire.Unmarshal(r.Body)
	if err != nil {
		return nil, fmt.Errorf("client: reply %q: %w", truncate(r.Body), err)
	}
	a, ok := v.(*wire.Array)
	if !ok {
		return nil, fmt.Errorf("client: reply is %T, not an array: %q", v, truncate(r.Body))
	}
	return a, nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// PostForm sends an url-encoded form to path (which may carry a query).
func (c *Client) PostForm(ctx context.Context, path string, form url.Values) (*Reply, error) {
	return c.do(ctx, path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

// FilePart is a file part of a multipart request.
type FilePart struct {
	Field, Filename string
	Data            []byte
}

// PostMultipart sends a multipart form, as the client does for cloud calls.
// The body is MultipartBody's.
func (c *Client) PostMultipart(ctx context.Context, path string, fields url.Values, files ...FilePart) (*Reply, error) {
	body, contentType, err := MultipartBody(fields, files...)
	if err != nil {
		return nil, err
	}
	return c.Post(ctx, path, contentType, body)
}

// MultipartBody builds the body of a multipart form and returns it with its
// Content-Type (which names the body's boundary): the fields first, in
// sorted name order (a name's values in the order given), then the files in
// the order given, each as application/octet-stream. Sent with Post, it is
// the request PostMultipart sends, so a caller that sends the same form many
// times can build it once.
func MultipartBody(fields url.Values, files ...FilePart) (body []byte, contentType string, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		for _, v := range fields[k] {
			if err := w.WriteField(k, v); err != nil {
				return nil, "", err
			}
		}
	}
	for _, f := range files {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Field, f.Filename)}
		h["Content-Type"] = []string{"application/octet-stream"}
		p, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := p.Write(f.Data); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// Post sends body, of the given Content-Type, to path. body is only read,
// so the same bytes may be sent again, by any number of calls at once.
func (c *Client) Post(ctx context.Context, path, contentType string, body []byte) (*Reply, error) {
	return c.do(ctx, path, contentType, bytes.NewReader(body))
}

func (c *Client) do(ctx context.Context, path, contentType string, body io.Reader) (*Reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", UserAgent)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Reply{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Header: resp.Header, Body: b}, nil
}

// Session is a logged-in account.
type Session struct {
	Login     string
	AccountID string
	Cookie    string
	Record    *wire.Array // the session record as received
}

// ErrLogin is returned when the server refuses a login, as a detail.Error
// whose detail is the server's auth text.
var ErrLogin = errors.New("client: login refused")

// ErrServerProof is returned when the server accepted the login but its
// own proof (M2) is wrong: it does not hold this account's verifier.
var ErrServerProof = errors.New("client: server proof")

// BadReplyError is a login call's reply that is not the game's PHP array
// (a proxy's error page, a truncated body): a reply came, with Status.
type BadReplyError struct {
	Status int
	Err    error // why it could not be read
}

func (e *BadReplyError) Error() string {
	return fmt.Sprintf("client: reply HTTP %d is not the game's: %v", e.Status, e.Err)
}

func (e *BadReplyError) Unwrap() error { return e.Err }

// Login runs pre_auth and srpAuth and checks the server's proof M2.
func (c *Client) Login(ctx context.Context, login, password string) (*Session, error) {
	cl, err := c.Group.NewClient(login, password, rand.Reader)
	if err != nil {
		return nil, err
	}
	pre, err := c.call(ctx, "/client_requester.php?f=pre_auth", url.Values{"login": {login}, "A": {cl.AHex()}, "SysInfo": {"test|client"}})
	if err != nil {
		return nil, err
	}
	salt, _ := pre.String("salt")
	salt2, _ := pre.String("salt2")
	b, _ := pre.String("B")
	m1, err := cl.Proof(salt, salt2, b)
	if err != nil {
		return nil, err
	}
	rec, err := c.call(ctx, "/client_requester.php?f=srpAuth", url.Values{"login": {login}, "proof": {m1},
		"OSType": {"wac"}, "MajorVersion": {"4"}, "MinorVersion": {"10"}, "MicroVersion": {"1"}, "SysInfo": {"test|client"}})
	if err != nil {
		return nil, err
	}
	m2, _ := rec.String("proof")
	if err := cl.VerifyServer(m2); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServerProof, err)
	}
	return sessionOf(login, rec), nil
}

// Switch runs switch_auth from s to the account with the given login and id.
func (c *Client) Switch(ctx context.Context, s *Session, login, accountID string) (*Session, error) {
	rec, err := c.call(ctx, "/client_requester.php?f=switch_auth", url.Values{"login": {login}, "account_id": {accountID}, "cookie": {s.Cookie}})
	if err != nil {
		return nil, err
	}
	return sessionOf(login, rec), nil
}

func sessionOf(login string, rec *wire.Array) *Session {
	id, _ := rec.String("account_id")
	cookie, _ := rec.String("cookie")
	return &Session{Login: login, AccountID: id, Cookie: cookie, Record: rec}
}

// call posts a login call and turns an auth failure body into ErrLogin.
func (c *Client) call(ctx context.Context, path string, form url.Values) (*wire.Array, error) {
	r, err := c.PostForm(ctx, path, form)
	if err != nil {
		return nil, err
	}
	a, err := r.PHP()
	if err != nil {
		return nil, &BadReplyError{Status: r.Status, Err: err}
	}
	if msg, ok := a.String("auth"); ok {
		return nil, detail.New(ErrLogin, "%s", msg)
	}
	return a, nil
}
