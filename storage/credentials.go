package storage

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

// An account's SRP salt and verifier (~540 bytes with salt2) are read at
// each pre_auth and console sign-in, and never otherwise: a live account's
// state goes without them on Pebble (DropCredentials), and they are read
// from its profile record (Credentials) when needed, a local read of a
// record its actor keeps hot. With 100,000 players online that is ~80 MiB
// of heap not held. On PostgreSQL that read would be a round trip for every
// profile write, so there the state keeps them.

// The profile record's fields that hold the credentials.
var credentialFields = func() [3]protowire.Number {
	fs := (&pb.Profile{}).ProtoReflect().Descriptor().Fields()
	return [3]protowire.Number{fs.ByName("srp_salt").Number(), fs.ByName("srp_salt2").Number(), fs.ByName("srp_verifier").Number()}
}()

func isCredentialField(n protowire.Number) bool {
	return n == credentialFields[0] || n == credentialFields[1] || n == credentialFields[2]
}

func (v SRPVerifier) empty() bool { return len(v.Salt) == 0 && v.Salt2 == "" && len(v.Verifier) == 0 }

// CredentialsOnDemand reports whether live accounts' states go without
// their credentials (DropCredentials): on Pebble, where the profile write
// that must keep them reads them locally.
func (db *DB) CredentialsOnDemand() bool {
	_, ok := db.eng.(*pebbleEngine)
	return ok
}

// DropCredentials empties a's SRP, which stays stored: a profile record
// written from a (PutAccount) keeps the stored credentials unless a change
// set new ones. Call it only on an account loaded from storage, and only
// when the database says so (CredentialsOnDemand).
func (a *Account) DropCredentials() {
	a.SRP = SRPVerifier{}
	a.noCreds = true
}

// Credentials reads the SRP salt and verifier of account id from its
// profile record, decoding nothing else. ErrNotFound when there is no such
// account.
func (db *DB) Credentials(id AccountID) (SRPVerifier, error) {
	var v SRPVerifier
	raw, err := db.storedCredentialFields(id)
	if err != nil {
		return v, err
	}
	for b := raw; len(b) > 0; {
		num, _, n := protowire.ConsumeTag(b)
		val, m := protowire.ConsumeBytes(b[n:])
		if n < 0 || m < 0 {
			return SRPVerifier{}, fmt.Errorf("storage: account %d credentials: %w", id, ErrCorrupt)
		}
		switch num {
		case credentialFields[0]:
			v.Salt = val
		case credentialFields[1]:
			v.Salt2 = string(val)
		case credentialFields[2]:
			v.Verifier = val
		}
		b = b[n+m:]
	}
	return v, nil
}

// storedCredentialFields returns the credential fields of account id's
// profile record as they are encoded (tag and value each).
func (db *DB) storedCredentialFields(id AccountID) ([]byte, error) {
	var out []byte
	err := db.eng.view(accountKey(id), func(v []byte) error {
		if len(v) == 0 || v[0] != formatV2 {
			return fmt.Errorf("%w: unknown value format", ErrCorrupt)
		}
		for b := v[1:]; len(b) > 0; {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return fmt.Errorf("%w: %v", ErrCorrupt, protowire.ParseError(n))
			}
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if m < 0 {
				return fmt.Errorf("%w: %v", ErrCorrupt, protowire.ParseError(m))
			}
			if isCredentialField(num) {
				out = append(out, b[:n+m]...)
			}
			b = b[n+m:]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: account %d: %w", id, err)
	}
	return out, nil
}

// FillCredentials reads a's credentials from storage if its state went
// without them (DropCredentials), so that a copy of an account handed out
// of its actor (actors.System.Account) is whole.
func (db *DB) FillCredentials(a *Account) error {
	if !a.noCreds {
		return nil
	}
	v, err := db.Credentials(a.ID)
	if err != nil {
		return err
	}
	a.SRP, a.noCreds = v, false
	return nil
}
