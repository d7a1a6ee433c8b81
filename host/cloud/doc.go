// Package cloud provides the cloud storage of client settings: enrollment
// (/master/cloud/set-user-enrollment) and the settings archive calls
// (/master/storage/status, store and retrieve), plus [Show], the operator's
// listing of an account's stored settings.
//
// Every call is a multipart form authenticated by its cookie field alone
// (through login.Service.Authenticate). The account acted on is always the
// session's account: account_id, login or any other field a client sends is
// ignored, so no request can reach another account's settings. Uploads are
// checked in the handler (size, cloudcfg.CheckArchive, and cloudcfg.Parse at
// the configured strictness) before anything is asked of the account's
// actor; the Changes in changes.go only write. Reads (status, retrieve, the
// enrollment reply's file_modify_time) come straight from storage, which only
// ever holds committed state.
//
// Where the specification is silent, this package chose:
//
//   - Requests that are not multipart/form-data are refused on all four
//     paths, as the spec says all of them are multipart.
//   - Enrollment needs cookie and enroll; cloud_autoupload may be left out,
//     and then keeps its stored value. enroll and cloud_autoupload take "0"
//     or "1" only. Its file_modify_time is that of the stock client's bucket
//     ([DefaultBucket]) and is read after the change is committed.
//   - Enrollment is a client preference only: status, store and retrieve work
//     whether or not the account is enrolled.
//   - Failures of enrollment, store and retrieve answer success false with a
//     messages text from the table in failure.go (two entries, no trailing
//     extras: the recorded store reply has none either). Status answers the
//     bare invalid_request for every request it cannot accept (not
//     multipart, missing or bad cookie, missing or unsafe bucket); an
//     internal failure of status answers success false, data null,
//     cloud_storage_info false and a messages text.
//   - A bucket must match the configured pattern as a whole (the pattern is
//     anchored here, whatever the operator wrote) and be at most
//     [MaxBucketLength] bytes.
//   - file_modify_time must be exactly "YYYY-MM-DD hh:mm:ss" and a real
//     date and time; it is stored as sent. A store replaces the stored
//     archive whatever its file_modify_time: the client decides which copy
//     is newer, and its last upload wins.
//   - The archive must be a zip of cloud.cfg alone, as the specification
//     says: other entries, bytes before or after the archive or between its
//     parts, and an archive comment are refused (ReasonExtraContent;
//     cloudcfg.CheckArchive). What passes is stored byte for byte as
//     uploaded, never rebuilt. Archives stored by earlier versions, which
//     accepted other entries, are served as stored until replaced.
//   - config's max_uncompressed bounds cloud.cfg (declared and actual size).
package cloud
