// Package guides provides the hero guides area of the host: the guide
// records, the seven guide functions of POST /client_requester.php (f as a
// form field), their exact replies, the list text, the players' vote
// counts, operator import formats and the demo guides.
//
// The ranking of a list and whether a vote counts are the guides plugin's
// decisions (package plugins/guides: facts, decisions, bundled rules); this
// package keeps formatting, flags and counts, and checks every decision.
//
// # Functions and replies
//
// Every request carries account, cookie and hosttime; hosttime is echoed as
// the exact string received in every reply, failures included (the client
// drops a reply whose hosttime differs). Replies, entries in wire order
// (replies.go; fixtures in testdata/*.golden, checked by real PHP):
//
//	get_guide_list_filtered  hero            errors, success, guide_list, hosttime, extras (6)
//	get_guide                hero, gid       the full guide (22), or 23 with vote (below)
//	guide_default_set/remove gid             errors, success, set (1 set, 0 removed), hosttime, extras (6)
//	guide_favorite_set/remove gid            same
//	guide_vote               v, gid          errors, success, vote (echoes v), hosttime, extras (6)
//
// Every failure has the 5-entry shape of the recorded no_guides_found
// answer (errors, success 0, hosttime, extras) with one of the texts of
// reasonText: no_guides_found (unknown or hidden gid, and always gid 99999,
// which the client asks for first), invalid_cookie, wrong_account (the
// form's account is not the cookie's: a session acts only for its own
// account), bad_request, vote_refused, guides_unavailable, storage_full,
// internal_error, and outcome_unknown. A failed request changes nothing,
// except one answered outcome_unknown: a change whose commit outlasted the
// wait, which may have been written.
//
// guide_vote names its guide by gid; compendium_guide, which the client
// sends with the same id, is used when gid is absent and must agree with it
// otherwise. v is 1 (up) or 0 (down).
//
// # get_guide: thumb and vote
//
// thumb is the requester's own vote: noVote (captured), up or down (this
// server's values; the client only tests that thumb is not empty). A
// requester who has not voted gets the captured 22 entries; one who has
// voted also gets vote (1 up, 0 down) right after thumb, 23 entries: the
// client disables its vote buttons only when thumb is not empty and vote is
// 1 or 0. Names (guide and author) have apostrophes escaped as \'; the
// guide name is whole. Dates are written in UTC.
//
// # The list
//
// At most 20 entries separated by backticks, each nine pipe-separated
// fields: gid, date (MM/DD/YY hh:mm:ssam, lowercase, zero-padded 12-hour),
// author, name, is_def|not_def, is_fav|not_fav, rating, is_yours|not_yours,
// premium 0|1. Guide names are cut to 36 characters before escaping (by
// characters, so neither a UTF-8 sequence nor an escape is split); a pipe
// or backtick inside a name would shift the fields, so it is shown as / or '.
// The rating is the upvote fraction with two decimals, rounded half up in
// integer arithmetic, 0.00 without votes.
//
// The bundled ranking (plugins/guides.Rank) lists the account's default for
// the hero first (the client loads the first entry automatically), then
// premium guides, then the account's favorites (so that a player always
// finds them among the 20, whatever their rating), then the rest; within
// each group by descending upvote fraction, then more votes, then lower
// gid, where a vote cast by a new account weighs a quarter (see Counts:
// young votes). The host refuses a decision that lists a guide that is not a visible
// candidate, lists one twice, or lists more than 20 (ListEntries).
//
// # Flags and votes
//
// An account's flags and votes (Marks) belong to that account and are
// changed only by its actor. One default per account and hero: setting
// another replaces it in the same commit; removing a flag that is not set
// succeeds and changes nothing. A vote is up or down; changing it moves
// both counts, repeating it changes nothing.
//
// # Counts
//
// A guide's counts are its imported starting counts (a global record only
// the import writes) plus the players' votes. The players' part is derived
// from the accounts' own vote records, never stored as a shared value:
// Tally rebuilds it at start from a scan of every vote record, and each
// account's actor applies its vote's delta with one atomic swap after its
// commit. Concurrent voters therefore never read-modify-write a shared
// record, one writer per account holds, and after a crash (kill -9) the
// rebuild counts exactly the votes whose records committed.
//
// Young votes (sock puppets): a vote cast by an account younger than
// limits.new_account_age (default 7 days) is stored as young (Ballot) and
// keeps that class as the account ages — a vote weighs what its voter
// weighed when it voted, so nothing is re-tallied, and the rebuild finds
// the classes in the records (records from before read established).
// Changing a vote casts it anew in the account's class then; repeating it
// changes nothing. The tally keeps each guide's young part beside its
// counts; the ranking gets both (guidesapi.GuideCandidate.YoungUp, YoungDown) and
// decides the weight: the bundled one counts four young votes as one. The
// counts shown (list ratings, get_guide) and stored stay exact: a list's
// ratings are the full counts of the snapshot its order was ranked on, so
// after new accounts' votes a lower rating may be listed above a higher
// one. A Pebble merge
// operator was not chosen: data directories already exist with Pebble's
// default merger name pinned in their options, and a new one would refuse
// to open them.
//
// # Storage and serving
//
// Service (NewService, Routes) is the area in a server; store.go has the
// records. Guide content, premium and hidden marks and imported counts are
// global records written only by the global writer (Import, Seed,
// Moderate: one System.UpdateGlobal commit each); requests read them from
// an in-memory catalog reloaded when System.GlobalVersion moves. An
// account's default per hero, favorites and votes are its own records,
// written only by its actor (flagChange, voteChange); the default is keyed
// by hero, so a new default overwrites the old in the same commit. A vote
// asks the plugin (guidesapi.Vote) inside the actor and commits its record
// with the plugin's state; the tally moves after the commit (deltas of
// one account's successive votes commute, so their order does not matter).
// A list is a read: it runs outside the actor on committed records and
// asks the plugin (guidesapi.Rank) with the account's stored plugin state,
// refusing a result that changes it. Each hero's candidates (visible
// guides with counts) are cached per catalog version and generation of the hero's counts (a vote
// moves only its own hero's generation: other heroes keep their rankings).
//
// # Reused rankings
//
// A ranking is a function of its facts (the contract), so a decision is
// reused for later lists with the same facts instead of asking the plugin
// again (rankings.go): keyed by hero, default and favorites, and by the
// account and its plugin state unless the plugin declares the decision
// Shared (the bundled ranking does: it never reads the account). A
// decision is reused only on the catalog version it was ranked on (hide,
// unhide, premium and import re-rank the next list), and after a vote only
// within guides.rank_staleness (default 1s) of the moment its counts were
// read: a vote is in the order of every list that starts later than that
// after its reply. A list is one snapshot: the ratings it shows are the
// counts its order was ranked on (kept with the decision), so a reused
// order shows its own ratings, never newer ones in the older order.
// Concurrent lists of the same facts share one plugin call. The host
// checks every reused order against the current candidates like a fresh
// one. Flags (is_def, is_fav, is_yours) are the host's, per request.
// Counts are rebuilt at start by one scan of all accounts' vote records
// (storage AccountKeyspace.EachAll).
//
// # Import
//
// ParseImport reads either format, told apart by the first byte of the
// file: '[' is the project's own JSON array (gid, counts, RFC 3339 dates);
// '{' is captured replies, an object keyed by hero CLI name whose values
// are lists of get_guide replies as decoded JSON. Archived guides carry no
// gid: each gets the FNV-1a hash of hero, author, name and date mapped into
// [10,000,000, 2^24) (never an own-format gid, which must be below, never
// 99999, exact even as a 32-bit float), and on a collision the next free gid
// in the range, in a canonical order, so that re-importing the same file
// gives every guide the gid it has (an update, never a duplicate). Names are
// unescaped (\' to '). Starting counts come from the rating: 100 votes,
// up = round(rating*100), so the guide shows its archived rating byte for
// byte; 0.00 means no votes. Names may be longer than 36 characters (kept
// whole); txt_intro is at most 200 characters. Text fields may hold tab, LF
// and CR, since the original service's descriptions break lines with CR LF
// and get_guide serves them unchanged (a PHP string's length counts bytes,
// so nothing is escaped); any other control character refuses the guide.
// Every problem is reported at once, naming its guide. A guide with
// problems is refused and the file's other guides are imported (Import
// lists the refused ones in ImportResult.Refused); with
// ImportOptions.Strict (guides import --strict), or when every guide is
// refused, nothing is stored.
//
// # Demo
//
// DemoGuides seeds three guides per hero of the default free rotation
// (Hero_Pyromancer, Hero_Devourer, Hero_Hammerstorm): one premium, one by
// the demo account (is_yours) and one community guide with votes.
package guides
