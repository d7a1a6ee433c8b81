package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
)

// The bulk import of accounts (a community moving from another server):
// many accounts per synced commit, with the rules of account create.
func init() {
	ops = append(ops, op{name: "account import", mayInit: true, usage: "[--init] FILE [--batch N] (JSON lines: login, password or salt+salt2+verifier, email, nickname; see docs/account-import.md)",
		parse: parseImportAccounts, empty: func() Request { return new(ImportAccountsRequest) }})
}

// importProgressEvery is how often a long import prints a progress line.
const importProgressEvery = 5 * time.Second

// ImportAccountsRequest creates the accounts of File (an absolute path,
// read by whichever process runs the request; format: accounts.ImportRecord),
// Batch accounts per commit.
type ImportAccountsRequest struct {
	File  string `json:"file"`
	Batch int    `json:"batch,omitempty"`
}

func (*ImportAccountsRequest) Op() string { return "account import" }

func (r *ImportAccountsRequest) Validate() error {
	if err := needFile("account import", r.File); err != nil {
		return err
	}
	if r.Batch < 0 || r.Batch > actors.MaxCreateMany {
		return usageError("--batch must be 1 to %d (0: %d)", actors.MaxCreateMany, accounts.DefaultImportBatch)
	}
	return nil
}

// Run imports the file, printing each refused line (its number, login and
// why) as it goes, a progress line every 5 s, and the totals. It exits 0
// when the import ran to the end of the file, refused lines or not (they
// are listed; fix them and import them again), and fails when it stopped
// part way (a commit failed, or, through a running server, the admin
// command's 60 s ran out: a big file is imported with the server
// stopped), or when every line was refused (a file imported twice).
func (r *ImportAccountsRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	f, err := os.Open(r.File)
	if err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("cannot read the account file: %v", unwrapPath(err))}
	}
	defer f.Close()
	start := time.Now()
	lastProgress := start
	res, err := app.Accounts.Import(ctx, f, accounts.ImportOptions{
		Batch: r.Batch,
		Refused: func(ref accounts.ImportRefusal) {
			fmt.Fprintf(out, "line %d: %s\n", ref.Line, importRefusal(ref))
		},
		Progress: func(res accounts.ImportResult) {
			if now := time.Now(); now.Sub(lastProgress) >= importProgressEvery {
				lastProgress = now
				fmt.Fprintf(out, "progress: line %d, %d created, %d refused, %.0f s\n", res.Lines, res.Created, res.Refused, now.Sub(start).Seconds())
			}
		},
	})
	elapsed := time.Since(start)
	if err != nil {
		return &opError{cause: err, msg: importStopped(res, err)}
	}
	fmt.Fprintf(out, "imported %s: %d lines, %d accounts created, %d refused in %.1f s (verifiers from passwords: %d in %.1f s; creation and commits %.1f s)\n",
		r.File, res.Lines, res.Created, res.Refused, elapsed.Seconds(), res.Verifiers, res.VerifierTime.Seconds(), res.CommitTime.Seconds())
	if res.Created == 0 && res.Refused > 0 {
		return &opError{cause: errNothingImported, msg: fmt.Sprintf("no account created: every one of the %d lines was refused (listed above)", res.Refused)}
	}
	return nil
}

// importStopped words an import that stopped part way: how far it got,
// why, and what is known of the lines after: nothing written, or (only
// when its last commit's outcome is unknown) the batch after may or may
// not be.
func importStopped(res accounts.ImportResult, err error) string {
	why := explain(err)
	if errors.Is(err, context.DeadlineExceeded) {
		why = fmt.Sprintf("an admin command may run %s (import a big file with the server stopped)", adminTimeout)
	}
	after := fmt.Sprintf("nothing after line %d was written", res.Lines)
	if res.Unknown {
		why = fmt.Sprintf("the outcome of the batch after line %d is unknown (%s)", res.Lines, why)
		after = "the batch after it may or may not be written"
	}
	return fmt.Sprintf("the import stopped after line %d (%d accounts created, %d lines refused): %s. "+
		"Every line up to %d was handled and %s: import the same file again to finish "+
		"(the accounts it created are then refused as taken)", res.Lines, res.Created, res.Refused, why, res.Lines, after)
}

// errNothingImported: every line of an import was refused.
var errNothingImported = errors.New("nothing imported")

// importRefusal words why a line was not imported.
func importRefusal(ref accounts.ImportRefusal) string {
	who := ""
	if ref.Login != "" {
		who = fmt.Sprintf("%q: ", ref.Login)
	}
	switch {
	case errors.Is(ref.Err, accounts.ErrBadImportLine):
		return who + specifics(ref.Err, accounts.ErrBadImportLine)
	case errors.Is(ref.Err, actors.ErrLoginTaken):
		return who + "the login is already taken (by an existing account or an earlier line)"
	}
	if msg := accounts.RuleMessage(ref.Err); msg != "" {
		return who + msg
	}
	return who + explain(ref.Err)
}

func parseImportAccounts(args []string) (Request, error) {
	fs := newFlags("account import", nil)
	var r ImportAccountsRequest
	fs.IntVar(&r.Batch, "batch", accounts.DefaultImportBatch, fmt.Sprintf("accounts written per synced commit (1 to %d)", actors.MaxCreateMany))
	files, err := parseInterleaved(fs, args) // the file may come before or after the flags
	if err != nil {
		return nil, err
	}
	if len(files) != 1 {
		return nil, usageError("account import FILE: give one file")
	}
	file, err := absPath(files[0])
	if err != nil {
		return nil, err
	}
	r.File = file
	return checked(&r)
}
