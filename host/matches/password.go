package matches

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// verifierCheck is the area's own check of an MD5 password against the
// stored SRP verifier, used until the login service offers one that also
// counts failures against the login limits: the SRP password secret is
// derived from the MD5 as login.password_hash "md5_first" derives it from
// the password's MD5, then the verifiers are compared in constant time.
// No MD5 is stored.
func verifierCheck(cfg *config.Config, db *storage.DB) (PasswordCheck, error) {
	group, err := srp.NewGroup(cfg.SRP.N, int64(cfg.SRP.G), cfg.SRP.Magic1, cfg.SRP.Magic2, srp.HashForm(cfg.Login.PasswordHash))
	if err != nil {
		return nil, err
	}
	m1, m2 := cfg.SRP.Magic1, cfg.SRP.Magic2
	return func(_ context.Context, login, md5Hex, _ string) (storage.AccountID, error) {
		if group.Form() != srp.HashMD5First || len(md5Hex) != 32 {
			return 0, errBadLogin
		}
		id, err := db.LoginID(login)
		if errors.Is(err, storage.ErrNotFound) {
			return 0, errBadLogin
		} else if err != nil {
			return 0, err
		}
		cred, err := db.Credentials(id)
		if err != nil {
			return 0, err
		}
		inner := md5.Sum([]byte(md5Hex + cred.Salt2 + m1))
		secret := sha256.Sum256([]byte(hex.EncodeToString(inner[:]) + m2))
		v := group.Verifier(login, cred.Salt, hex.EncodeToString(secret[:]))
		if len(v) != len(cred.Verifier) || subtle.ConstantTimeCompare(v, cred.Verifier) != 1 {
			return 0, errBadLogin
		}
		return id, nil
	}, nil
}
