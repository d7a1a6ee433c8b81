package accounts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
)

// An import file holds one account per line, as a JSON object (JSON
// lines); blank lines are skipped:
//
//	{"login":"alice","password":"secret","email":"alice@example.com","nickname":"Alice"}
//	{"login":"bob","salt":"<hex>","salt2":"<text>","verifier":"<hex>"}
//
// login is required. The credentials are either password (the server
// derives a new salt, salt2 and verifier from it, as account create
// does), or salt, salt2 and verifier together: the SRP credentials another
// server stored for the account (salt and verifier in hex, as pre_auth
// sends the salt), so that its players keep their passwords, which no
// server knows. email and nickname are optional, with the defaults of
// account create. Any other field makes the line bad: a misspelt
// "pasword" must not create an account without its password.
type ImportRecord struct {
	Login    string `json:"login"`
	Password string `json:"password,omitempty"`
	Salt     string `json:"salt,omitempty"`
	Salt2    string `json:"salt2,omitempty"`
	Verifier string `json:"verifier,omitempty"`
	Email    string `json:"email,omitempty"`
	Nickname string `json:"nickname,omitempty"`
}

// Limits of an import line.
const (
	// MaxImportLine is the longest line read, in bytes (a line of another
	// server's credentials is about 1.1 KiB).
	MaxImportLine = 16 << 10
	// maxSaltBytes is the longest salt taken from another server: the
	// length this server draws (256 bytes).
	maxSaltBytes = 256
	// maxSalt2 is the longest salt2 taken from another server, in bytes.
	maxSalt2 = 64
	// DefaultImportBatch is how many accounts one commit of an import
	// writes when ImportOptions.Batch is 0.
	DefaultImportBatch = 1000
)

var (
	// ErrBadImportLine marks a line that is not an account: not a JSON
	// object, unknown or missing fields, both or neither kind of
	// credentials, malformed hex, too long. Its detail (a detail.Error) says which.
	ErrBadImportLine = errors.New("accounts: bad import line")
)

// ImportOptions tune an import; the zero value is usable.
type ImportOptions struct {
	// Batch is how many accounts each commit writes (0:
	// DefaultImportBatch; at most actors.MaxCreateMany).
	Batch int
	// Workers is how many goroutines derive verifiers from passwords (0:
	// GOMAXPROCS). A Service with its own Rand uses one, in line order,
	// so that the outcome depends only on Rand.
	Workers int
	// Refused is called, in line order, with each line not imported.
	Refused func(ImportRefusal)
	// Progress is called after each commit with the totals so far.
	Progress func(ImportResult)
}

// ImportRefusal is a line not imported and why: Err is ErrBadImportLine,
// one of the rules of Create (RuleMessage words them, ErrBadNickname's
// included),
// actors.ErrLoginTaken or login.ErrLoginLookalike (a login that exists,
// or one earlier in the file).
type ImportRefusal struct {
	Line  int
	Login string // "" when the line has none
	Err   error
}

// ImportResult counts an import's lines.
type ImportResult struct {
	// Lines is the number of the last line handled: every line up to it
	// was created or refused. No line after it was written, unless
	// Unknown.
	Lines int
	// Unknown is set when the import stopped at a commit whose outcome is
	// unknown (failure.Uncertain): the batch after Lines may or may not be
	// written. An import that stopped otherwise wrote nothing after Lines.
	Unknown          bool
	Created, Refused int
	// Verifiers is how many verifiers were derived from passwords.
	Verifiers int
	// VerifierTime is the wall time spent deriving verifiers (spread over
	// the workers) and CommitTime the wall time spent creating accounts
	// in the registry (checks and synced commits). The two overlap: the
	// next batch's verifiers are derived while a batch commits.
	VerifierTime, CommitTime time.Duration
}

// importItem is one line on its way to the registry: a request to send,
// or a refusal.
type importItem struct {
	line  int
	login string
	req   *actors.NewAccount
	pass  string // derive the verifier from it (req's SRP is empty until then)
	err   error
}

// Import creates the accounts of the JSON lines read from r (see
// ImportRecord), Batch accounts per synced commit, through the registry
// (actors.System.CreateAccounts: its doc says why a batch of new accounts
// keeps one writer per account). The rules are those of Create: logins
// unique, look-alikes refused, the same checks of login, password and
// e-mail. A line that breaks one, or is not a valid line, is reported to
// Refused with its line number, and the import goes on: one typo in a
// million lines must not leave the operator to find where to restart.
//
// Import is not idempotent but is safe to run again: a line whose login
// exists is refused as taken (whether an earlier run created it or
// someone else: the import cannot tell), so a run that stopped part way
// is finished by running the same file again.
//
// The error is for the whole import: reading r failed, ctx ended, or a
// commit failed (its outcome may be unknown: storage.ErrCommitUncertain).
// The result then says how far the import got: every line up to
// result.Lines was handled, and nothing after it was written, unless
// result.Unknown (the batch after it may or may not be written).
func (s *Service) Import(ctx context.Context, r io.Reader, opt ImportOptions) (ImportResult, error) {
	var res ImportResult
	batch := opt.Batch
	if batch <= 0 {
		batch = DefaultImportBatch
	}
	batch = min(batch, actors.MaxCreateMany)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if s.Rand != nil {
		workers = 1
	}
	if err := s.ensureSkeletons(ctx); err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(ctx)

	// Lines are read and their verifiers derived one batch ahead of the
	// commits.
	type prepared struct {
		items  []importItem
		verify time.Duration
		n      int // verifiers derived
		err    error
	}
	ready := make(chan prepared, 1)
	// On return the reader is stopped and waited for: r is the caller's
	// again (a file it closes).
	defer func() {
		cancel()
		for range ready {
		}
	}()
	go func() {
		defer close(ready)
		lr := newLineReader(r)
		for {
			var p prepared
			p.items, p.err = s.readBatch(lr, batch)
			if len(p.items) > 0 {
				start := time.Now()
				p.n = s.deriveVerifiers(p.items, workers)
				p.verify = time.Since(start)
			}
			select {
			case ready <- p:
			case <-ctx.Done():
				return
			}
			if p.err != nil || len(p.items) == 0 {
				return
			}
		}
	}()

	refuse := func(it *importItem) {
		res.Refused++
		if opt.Refused != nil {
			opt.Refused(ImportRefusal{Line: it.line, Login: it.login, Err: it.err})
		}
	}
	// The reader closes ready without a last batch when ctx ends while it
	// waits to hand one over: only a batch with no items (the file's end)
	// says every line was read.
	finished := false
	for p := range ready {
		if len(p.items) == 0 && p.err == nil {
			finished = true
		}
		res.VerifierTime += p.verify
		res.Verifiers += p.n
		if len(p.items) > 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			var reqs []*actors.NewAccount
			for i := range p.items {
				if p.items[i].err == nil {
					reqs = append(reqs, p.items[i].req)
				}
			}
			start := time.Now()
			created, err := s.Sys.CreateAccounts(ctx, reqs)
			res.CommitTime += time.Since(start)
			if err != nil {
				res.Unknown = failure.Uncertain(err)
				return res, err
			}
			k := 0
			for i := range p.items {
				it := &p.items[i]
				if it.err == nil {
					it.err = created[k].Err
					if errors.Is(it.err, actors.ErrLoginLookalike) {
						it.err = fmt.Errorf("%w: %w", login.ErrLoginLookalike, it.err)
					}
					k++
				}
				if it.err != nil {
					refuse(it)
				} else {
					res.Created++
				}
				res.Lines = it.line
			}
			if opt.Progress != nil {
				opt.Progress(res)
			}
		}
		if p.err != nil {
			return res, p.err
		}
	}
	if !finished {
		return res, ctx.Err()
	}
	return res, nil
}

// readBatch reads lines until it holds n accounts to create (refusals
// ride along, in line order), or the input ends. Each item is checked as
// Create checks an account; its verifier is derived later.
func (s *Service) readBatch(lr *lineReader, n int) ([]importItem, error) {
	var items []importItem
	for todo := n; todo > 0; {
		line, num, err := lr.next()
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return items, err
		}
		it := importItem{line: num}
		if err != nil {
			it.err = detail.New(ErrBadImportLine, "longer than %d bytes", MaxImportLine)
		} else {
			s.parseLine(line, &it)
		}
		if it.err == nil {
			// Early, so that a file imported again costs no verifier per
			// line; the registry checks again.
			if it.err = s.lookupTaken(it.req); errors.Is(it.err, storage.ErrNotFound) {
				it.err = nil
			} else if it.err != nil && !isRefusal(it.err) {
				return items, it.err
			}
		}
		if it.err == nil {
			todo--
		}
		items = append(items, it)
	}
	return items, nil
}

// lookupTaken returns ErrLoginTaken or login.ErrLoginLookalike when the
// store holds req's login or its skeleton, storage.ErrNotFound when it
// holds neither, or the store's failure.
func (s *Service) lookupTaken(req *actors.NewAccount) error {
	db := s.Sys.DB()
	if _, err := db.LoginID(req.Login); err == nil {
		return fmt.Errorf("%w: %q", actors.ErrLoginTaken, req.Login)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if _, err := db.LoginSkeletonID(req.LoginSkeleton); err == nil {
		return fmt.Errorf("%w: %q", login.ErrLoginLookalike, req.Login)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return storage.ErrNotFound
}

// isRefusal reports whether err refuses one account (rather than failing
// the import).
func isRefusal(err error) bool {
	return errors.Is(err, actors.ErrLoginTaken) || errors.Is(err, login.ErrLoginLookalike)
}

// parseLine fills it from one line.
func (s *Service) parseLine(line []byte, it *importItem) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		it.err = detail.New(ErrBadImportLine, "not a JSON object")
		return
	}
	// The login first, so that the refusal of a bad line names it.
	_ = json.Unmarshal(fields["login"], &it.login)
	var unknown []string
	for name := range fields {
		if !importFields[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		it.err = detail.New(ErrBadImportLine, "unknown field %q (the fields are login, password, salt, salt2, verifier, email, nickname)", unknown[0])
		return
	}
	var rec ImportRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			it.err = detail.New(ErrBadImportLine, "field %q must be a string", te.Field)
		} else {
			it.err = detail.New(ErrBadImportLine, "not a JSON object")
		}
		return
	}
	it.login = rec.Login
	if rec.Login == "" {
		it.err = detail.New(ErrBadImportLine, "no login")
		return
	}
	c := Create{Login: rec.Login, Email: rec.Email, Nickname: rec.Nickname}
	if err := s.complete(&c); err != nil {
		it.err = err
		return
	}
	var cred storage.SRPVerifier
	stored := rec.Salt != "" || rec.Salt2 != "" || rec.Verifier != ""
	switch {
	case rec.Password != "" && stored:
		it.err = detail.New(ErrBadImportLine, "both a password and stored credentials (salt, salt2, verifier): give one")
		return
	case stored:
		if cred, it.err = s.storedCredentials(&rec); it.err != nil {
			return
		}
	default:
		if it.err = CheckPassword(rec.Password); it.err != nil {
			return
		}
		it.pass = rec.Password
	}
	it.req = s.newAccount(c, login.Skeleton(c.Login), cred)
}

// storedCredentials checks the SRP credentials of another server.
func (s *Service) storedCredentials(rec *ImportRecord) (storage.SRPVerifier, error) {
	if rec.Salt == "" || rec.Salt2 == "" || rec.Verifier == "" {
		return storage.SRPVerifier{}, detail.New(ErrBadImportLine, "stored credentials need salt, salt2 and verifier together")
	}
	salt, err := hex.DecodeString(rec.Salt)
	if err != nil {
		return storage.SRPVerifier{}, detail.New(ErrBadImportLine, "salt must be hex (an even number of hex digits)")
	}
	if len(salt) > maxSaltBytes {
		return storage.SRPVerifier{}, detail.New(ErrBadImportLine, "salt must be at most %d bytes (%d hex digits)", maxSaltBytes, 2*maxSaltBytes)
	}
	if len(rec.Salt2) > maxSalt2 || strings.ContainsFunc(rec.Salt2, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return storage.SRPVerifier{}, detail.New(ErrBadImportLine, "salt2 must be at most %d printable ASCII characters without spaces", maxSalt2)
	}
	raw, err := hex.DecodeString(rec.Verifier)
	if err != nil {
		return storage.SRPVerifier{}, detail.New(ErrBadImportLine, "verifier must be hex")
	}
	v, err := s.Group.StoredVerifier(raw)
	if err != nil {
		return storage.SRPVerifier{}, detail.New(ErrBadImportLine, "verifier must be a number in [1, N) of the SRP group")
	}
	return storage.SRPVerifier{Salt: salt, Salt2: rec.Salt2, Verifier: v}, nil
}

// importFields are the fields of an import line (ImportRecord's).
var importFields = map[string]bool{"login": true, "password": true, "salt": true, "salt2": true, "verifier": true, "email": true, "nickname": true}

// deriveVerifiers derives, on workers goroutines, the SRP credentials of
// the items that carry a password, and returns how many it derived.
func (s *Service) deriveVerifiers(items []importItem, workers int) int {
	var todo []*importItem
	for i := range items {
		if items[i].err == nil && items[i].req != nil && items[i].req.Account.SRP.Verifier == nil {
			todo = append(todo, &items[i])
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				it := todo[i]
				salt, salt2, v, err := s.Group.NewVerifier(it.req.Login, it.pass, s.rand())
				it.pass = ""
				if err != nil {
					it.err = err
					continue
				}
				it.req.Account.SRP = storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}
			}
		}()
	}
	wg.Wait()
	return len(todo)
}

// errLineTooLong: a line longer than MaxImportLine (skipped to its end).
var errLineTooLong = errors.New("line too long")

// lineReader reads lines, numbering them from 1 and skipping blank ones.
type lineReader struct {
	r   *bufio.Reader
	num int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, MaxImportLine+1)}
}

// next returns the next non-blank line (valid until the next call) and
// its number; errLineTooLong for one too long, io.EOF at the end.
func (lr *lineReader) next() ([]byte, int, error) {
	for {
		line, err := lr.r.ReadSlice('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil, 0, io.EOF
		}
		lr.num++
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lr.r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, lr.num, err
			}
			return nil, lr.num, errLineTooLong
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, lr.num, err
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return line, lr.num, nil
		}
		if err != nil { // EOF after a blank last line
			return nil, 0, io.EOF
		}
	}
}
