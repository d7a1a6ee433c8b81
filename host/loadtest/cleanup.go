package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/honmaster/masterserver/host/operator"
)

// Cleanup tells what became of the run's test accounts.
type Cleanup struct {
	// Registered is the number of test accounts the run registered or
	// tried to (each with its sub-account, when the mix switches).
	Registered int `json:"registered"`
	// Absent accounts were not on the server (a registration that failed).
	Absent int `json:"absent,omitempty"`
	// Removed accounts were deleted through the operator API (a main
	// account's sub-account goes with it and is not counted again).
	Removed int `json:"removed"`
	// Records is the number of records the server deleted with them.
	Records int `json:"records"`
	Failed  int `json:"failed"`
	// Kept says why the accounts were left (--keep-accounts, no operator
	// listener); they can be found by their login prefix.
	Kept string `json:"kept,omitempty"`
	// FirstError is the first failed deletion's error.
	FirstError string `json:"first_error,omitempty"`
}

// Summary is one line.
func (c *Cleanup) Summary() string {
	if c.Kept != "" {
		return fmt.Sprintf("%d test accounts kept (%s)", c.Registered, c.Kept)
	}
	s := fmt.Sprintf("%d of %d test accounts removed (%d records)", c.Removed, c.Registered, c.Records)
	if c.Absent > 0 {
		s += fmt.Sprintf(", %d never created", c.Absent)
	}
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed (first: %s)", c.Failed, c.FirstError)
	}
	return s
}

// ProvisionError is provisioning failing (Err), after which the accounts
// the run registered were removed, or not: Cleanup says.
type ProvisionError struct {
	Err     error
	Cleanup Cleanup
}

// Error is Err's text, with what became of the accounts when the run
// registered any.
func (e *ProvisionError) Error() string {
	if e.Cleanup.Registered == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v (%s)", e.Err, e.Cleanup.Summary())
}

func (e *ProvisionError) Unwrap() error { return e.Err }

// registered remembers the logins the run registered, so that they can
// be removed whatever happens after (provisioning failing half way too).
type registered struct {
	mu     sync.Mutex
	logins []string
}

func (r *registered) add(login string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logins = append(r.logins, login)
}

// remove forgets login: its registration was refused, or never reached
// the server.
func (r *registered) remove(login string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logins = slices.DeleteFunc(r.logins, func(l string) bool { return l == login })
}

// neverSent reports whether err is a request that never reached the
// server: no connection was made (refused, no such host, no route).
func neverSent(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

func (r *registered) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.logins...)
}

// removeAccounts deletes the run's accounts through the operator API
// (DELETE /operator/v1/account, which takes a main account's sub-accounts
// with it), a few at a time.
func removeAccounts(ctx context.Context, opc *opClient, logins []string) Cleanup {
	c := Cleanup{Registered: len(logins)}
	var removed, records, failed, absent atomic.Int64
	var once sync.Once
	_ = forEach(ctx, len(logins), 8, func(i int) error {
		reqCtx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		var d operator.Deleted
		err := opc.callJSON(reqCtx, http.MethodDelete, operator.PathAccount, url.Values{"login": {logins[i]}}, &d)
		var se *statusError
		if errors.As(err, &se) && se.status == http.StatusNotFound {
			absent.Add(1)
			return nil
		}
		if err != nil {
			failed.Add(1)
			once.Do(func() { c.FirstError = err.Error() })
			return nil // go on with the others
		}
		removed.Add(1)
		records.Add(int64(d.Records))
		return nil
	})
	c.Removed, c.Records, c.Failed, c.Absent = int(removed.Load()), int(records.Load()), int(failed.Load()), int(absent.Load())
	if missed := len(logins) - c.Removed - c.Failed - c.Absent; missed > 0 { // ctx ended
		c.Failed += missed
		if c.FirstError == "" {
			c.FirstError = "interrupted"
		}
	}
	return c
}

// statusError is an operator API answer other than 200.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

// callJSON sends a request to the operator API and decodes its JSON
// answer into out.
func (c *opClient) callJSON(ctx context.Context, method, path string, form url.Values, out any) error {
	var body io.Reader
	u := c.base + path
	if method == http.MethodPost {
		body = strings.NewReader(form.Encode())
	} else if len(form) > 0 {
		u += "?" + form.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("operator API: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != 200 {
		return &statusError{status: resp.StatusCode, msg: fmt.Sprintf("operator API %s %s: HTTP %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("operator API %s: %w", path, err)
	}
	return nil
}

// postJSON posts in as JSON to path and decodes the JSON answer into out.
func (c *opClient) postJSON(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("operator API: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != 200 {
		return &statusError{status: resp.StatusCode, msg: fmt.Sprintf("operator API POST %s: HTTP %d %s", path, resp.StatusCode, strings.TrimSpace(string(body)))}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("operator API %s: %w", path, err)
	}
	return nil
}
