package cloud

import (
	"github.com/honmaster/masterserver/wire"
)

// infoRecord is the cloud storage info record of the spec: it is the data
// of the enrollment reply and the cloud_storage_info of the status reply.
type infoRecord struct {
	AccountID      string  `php:"account_id"`
	UseCloud       string  `php:"use_cloud"`        // "0" or "1"
	AutoUpload     string  `php:"cloud_autoupload"` // "0" or "1"
	FileModifyTime *string `php:"file_modify_time"` // nil: nothing stored (null)
}

// enrollmentReply answers /master/cloud/set-user-enrollment.
type enrollmentReply struct {
	Success bool        `php:"success"`
	Data    *infoRecord `php:"data"`
}

// statusReply answers /master/storage/status.
type statusReply struct {
	Success  bool        `php:"success"`
	Data     any         `php:"data"` // always null
	Info     storageInfo `php:"cloud_storage_info"`
	Messages string      `php:"messages"`
}

// resultReply is the store reply, and the failure reply of enrollment,
// store and retrieve: a:2:{s:7:"success";b:<0|1>;s:8:"messages";s:<n>:"...";}
type resultReply struct {
	Success  bool   `php:"success"`
	Messages string `php:"messages"`
}

// storageInfo is cloud_storage_info: the info record, or boolean false when
// nothing is stored in the bucket.
type storageInfo struct{ rec *infoRecord }

// AppendPHP writes the record, or b:0; without one.
func (s storageInfo) AppendPHP(dst []byte) ([]byte, error) {
	if s.rec == nil {
		return append(dst, "b:0;"...), nil
	}
	return wire.AppendMarshal(dst, s.rec)
}

var _ wire.Marshaler = storageInfo{}

// wireFlag is the wire form of an enrollment switch.
func wireFlag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
