// Package reports provides the player reports area on the host side: the
// served area (Area: routes, the Backend over the accounts' actors, the
// login service and the reports plugin, the login hook, and the
// moderation commands' reads and writes; records.go lists the records),
// domain model of stored reports and of an account's moderation state,
// request parsing for both report paths and the reporting status, the
// replies, the handlers (written against a small Backend interface), the
// assessment of reports against the plugin's rule, and the pure parts of
// the moderation commands. The vocabulary shared with plugins (reasons,
// statuses, actions, standings, refusals, Facts, Decision, Limits) and the
// bundled rule live in plugins/reports, imported here as rules.
//
// # Endpoints
//
// Every endpoint answers HTTP 200 with a PHP-serialized array (replies.go;
// fixtures in testdata/, checked by real PHP):
//
//	POST /rap/report2.php                     account_id, cookie, offenderName[], match_id[], type[], body[], time[]
//	POST /master/report/report                reporter_id, cookie, reportee_name, reason_type, report_description
//	POST /master/report/reportinforequest     account_id, cookie
//	POST /rap/player_list.php                 a:1:{i:0;i:0;} (no match data)
//	POST /rap/match_list2.php                 a:1:{i:0;i:0;} (no match data)
//
// /rap/report.php is unused by the client (specification) and not served.
// /rap/report2.php belongs to the site URL; it is served on the same
// listener.
//
// # Reason codes
//
// Codes are mapped per path to one reportsapi.Reason and only the meaning is
// stored: report2.php uses the specification's table (5 = Bad Nickname,
// 6 = AFK), /master/report/report the client's own (5 = AFK, 6 = Bad
// Nickname). An unknown code refuses that report (the host cannot name
// its reason, so the plugin is not asked).
//
// # Several reports in one request (report2.php)
//
// The arrays are paired by position. offenderName[] and type[] are
// required and must have the same length, 1..MaxPerRequest (10);
// match_id[], body[] and time[] may be left out as a whole, but when sent
// must have that length too. Arrays of different lengths refuse the whole
// request: pairing them otherwise could file one player's text against
// another. Each report is then judged on its own: an unknown player, type
// or minute, or a refusal by the plugin, drops that report only, and the
// others are stored in one commit. Reports of one request count against
// the limits of the ones after them. The reply is ["true", "<n accepted>"]
// when at least one was accepted and ["false"] otherwise (the client
// ignores the body; another implementation answered ["true","1"] and
// ["false"]).
//
// # Replies of /master/report/report
//
// Accepted: success true (b:1), report_success 1, report_enabled true, the
// two extras. Refused or failed: success is the string "false" (the client
// shows "submission failed" when success reads as the text false; a PHP
// false might read as "" or "0"), report_success 2, report_enabled true,
// and an extra message (the reason in words, which the client does not
// read). Reporting disabled (Config.Disabled): success true,
// report_success 3, report_enabled false, so the client shows its own
// "disabled" text.
//
// # Text
//
// On /master/report/report the client escapes ' as \' and appends one ';
// both are undone (UndoMasterQuirk) and the raw text is kept beside the
// clean one. Clean text is valid UTF-8 without control characters (line
// breaks and tabs become spaces, terminal escapes and direction overrides
// are dropped), trimmed, and cut to Limits.MaxTextRunes (210) characters,
// never inside a character: a longer description is cut, not refused, so
// a player's report is never lost over length (the stock client never
// sends more); Truncated records that it was cut. A raw description over
// MaxRawTextBytes (4096 bytes) is not from the stock client and is
// refused, so one request cannot make the server store megabytes.
//
// # Validation and limits
//
// The reporter is the session's account (cookie); account_id or
// reporter_id must be that account, or the request is refused. The
// reportee must exist (Backend.LookupPlayer: by nickname, through the
// storage's nickname index, the exact spelling first, then a unique match
// in another case; a nickname several accounts share is refused as
// unknown). The plugin's
// rule (rules.Decide) then refuses a report of oneself or of one's own
// sub-account, and a reporter over Limits.PerDay (20) reports, or over
// Limits.PerReportee (2) reports against one player, in the last 24 hours
// (a rolling window, Window). The counts come from the reporter's own
// stored reports (Batch.Recent), which only the reporter's actor writes:
// they are exact across restarts and need no lock. A report dated after
// now (the clock went back) still counts.
//
// A warned or suspended player may still report others: a suspension
// keeps a player out of matches, not from telling moderators about the
// last one, and the limits bound what anyone can file.
//
// # Priority
//
// The bundled rule gives priority 1 plus one for each other player with an
// open report against the same reportee, at most Limits.MaxPriority (10).
// Those players, and how many of them are new accounts, are read from
// counts kept beside the reports (counts.go), not by reading the reports
// against the reportee: filing costs the same with a thousand reports or a
// million, and with ten thousand against one player. A database written by
// an earlier version gets its counts at the area's start (one pass over the
// reportee index and the resolutions).
// "honmaster reports list" shows the highest priority first, then the oldest.
//
// # Decisions
//
// A plugin's decision is checked against the tables (CheckDecision): an
// accepted report has no refusal and a priority 1..MaxPriority; a refused
// one names a known refusal and no priority. A decision that breaks them
// fails that report (ErrBadDecision) and nothing of it is stored; the host
// never repairs a decision.
//
// # Stored reports
//
// A report's ID is "<reporter account>-<n>", n counting the reporter's
// reports from 1: the reporter's actor mints it alone, with no global
// counter. The submission (reporter, reportee, reason, clean and raw text,
// match id as sent, minute, time received, the reporter's latest SysInfo,
// path, priority) is written once by the reporter's actor. The
// resolution (action, days, note, moderator, time) is written by the
// reportee's actor, with the reportee's new moderation state, in one
// commit. A report's status is open until resolved, then dismissed,
// warned or suspended after its resolution's action. A report is resolved
// once (ErrAlreadyResolved); other open reports of the same player stay
// open.
//
// A report stays when its reportee's account is deleted (it is the
// reporter's record); the deleted account's records, its resolutions and
// moderation state among them, go. Such a report can only be dismissed:
// the reporter's actor, having read that the reportee is gone, records the
// dismissal beside the report (records.go). A warning or suspension of it
// is refused (ErrReporteeDeleted), nothing written, and "reports show"
// says the player's account was deleted where the standing would be. A
// report resolved before its reportee's deletion lost that resolution with
// the account, shows open again and is dismissed the same way.
//
// The moderator recorded with a resolution is the command's --by NAME,
// else "admin" (the command may run inside the server, whose user is not
// the operator's).
//
// # Moderation
//
// "reports resolve ID --action dismiss|warn|suspend --days N [--note T]":
// dismiss takes no days and changes nothing but the report's status; warn
// takes 0..3650 days (0 or none: DefaultWarningDays, 7); suspend needs
// 1..3650 days and runs from the resolution's time. A warning does not
// replace a running suspension; a new suspension ending before a running
// one keeps the later end. Every warning or suspension raises the
// account's guilty level and sets a popup that reportinforequest shows
// once. A warning or suspension ends by itself at its end (Effective is a
// function of now; nothing needs to be written when it ends).
//
// # Reporting status (reportinforequest)
//
// The session's own account only (account_id must match the cookie's).
// success bool; forcePopup bool (true once per warning or suspension);
// status int (0 normal, 1 warning, 2 suspended; 3 and 4, observed, are
// never set by this server); reason string (the reason's title, then
// " - " and the moderator's note); guiltyLevel int; endDate string
// "YYYY-MM-DD hh:mm:ss" in UTC; the two extras. Everything is empty or 0
// in good standing and after a warning or suspension has ended. A bad
// request or session answers success false with the same keys.
//
// # Session record and login
//
// susp_id is the number of the account's running suspension (its first
// suspension is 1) and "0" when it is not suspended; standing stays the
// account's stored standing (its account tier, used by the client for
// more than moderation, so moderation does not rewrite it). A suspended
// account can still log in: the client needs the session to show the
// suspension (reportinforequest at login) and disables matchmaking
// itself; refusing the login would leave the player with a bare error.
// The chat server, which is not part of this service, is where a
// suspension would also be enforced.
//
// # Logs
//
// Refusals are logged at debug level with their cause; server faults
// (plugin, storage) at error level. Report texts and SysInfo are never
// logged.
package reports
