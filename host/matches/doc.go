// Package matches is the host side of the matches area (contract:
// plugins/matches/matchesapi; bundled plugin: plugins/matches): game
// servers and their managers attach to the master server, matches are
// started, players connect, and each match's statistics are recorded
// exactly once in every participant's totals. The protocol is that of the
// game's dedicated server and its managers (HoNfigurator, energizer), as
// the protocol notes describe it; where the known peers trust any
// logged-in server with everything, this area checks each step.
//
// # Accounts
//
// Only a game-host account may run a manager and game servers: the role is
// a record of the account (keyspace matches.role), written by its actor
// ("honmaster account create --game-host", "account role --game-host |
// --no-game-host", POST /api/matches/game-host). Managers log in as
// "NAME:" (replay_auth), game servers as "NAME:INSTANCE" (new_session),
// each with the lowercase hex MD5 of the account's password, checked
// against the stored SRP verifier (no MD5 is stored).
//
// # Records: one writer, the game-host account's actor
//
// Servers (and the manager) and matches are records of the game-host
// account (keyspaces matches.server and matches.match), written only by
// its actor:
//
//   - A server's id is taken from the durable global sequence "server" on
//     the first session of its NAME:INSTANCE and kept from then on (the
//     manager has one too). Match ids come from the global sequence
//     "match": each id is committed before it is handed out, never
//     reused, and unique across the nodes of a cluster (global commits
//     are ordered by compare-and-set). An index (matches.byid, owned by
//     the host) finds a match's host by its id.
//   - A session is a token of 48 hex characters: the host's account id,
//     the server's id and a 16-byte random secret, of which only the
//     SHA-256 is stored in the server's record and compared in constant
//     time. A new session of the same instance replaces the secret (the
//     old session ends), shutdown clears it. A player's cookie (32
//     characters) is never a server session, and a server session is never
//     a player's cookie (the login service never sees one); a manager's
//     session is refused where a game server's is expected and the other
//     way round.
//   - Heartbeats (set_online): a heartbeat that changes the server's state,
//     players or map is written at once; one that changes nothing is kept
//     in this node's memory and written at most every heartbeat_timeout/3,
//     so any node, and a restarted one, sees every server heard from
//     within heartbeat_timeout. A server not heard from for
//     heartbeat_timeout (150 s) is offline.
//   - start_game records the match, owned by the server that started it,
//     as the server's current match. c_conn accepts only a live player
//     session and records the player as a participant of that match with
//     a fresh random game_cookie (per match and player, never the
//     player's cookie; a reconnect gets the same one); at most
//     max_participants. A player who connects while the server has no
//     open match (a lobby before start_game, or after the last match was
//     recorded; the notes leave the order open) is kept with the server
//     and becomes a participant of the match it starts next. A shutdown
//     ends the server's lobby and its open match: players connecting
//     after it registers again wait for its next start_game (a match
//     never recorded stays on record, and may still be submitted). A
//     match also ends when the server goes back to idle: a heartbeat
//     reporting it idle or asleep after one since start_game reported a
//     lobby or a game (server.go's matchAfter), so the players of its
//     next lobby wait for the next match even when this one's statistics
//     never came. aids2cookie
//     answers only those game cookies, only for the asking server's
//     participants.
//   - accept_key answers official 1 only for a key issued to a player for
//     this very server within key_lifetime, else 0, and uses it up in the
//     same commit of the player's actor: a key is accepted once. A key is
//     the player's id, a key number and a secret whose hash the player's
//     actor stores: a server list's key (matches.listkey, by key number)
//     is bound to the servers that list showed; IssueKey's (key number 0,
//     matches.key) to one server (serverlist.go).
//
// # Players and chat servers
//
// The client's server_list and the chat servers' chatclient_connect are
// /client_requester.php functions of this area; serverlist.go and
// chatconnect.go hold their design (lists of online servers by state and
// region, the key bound to the player and the servers listed, the chat
// servers allowed by [matches] chat_servers).
//
// # Statistics, exactly once
//
// submit_stats is accepted only from the session of the server that
// started the match; resubmit_stats from the host's manager (login and
// password, and the resubmission key every game server computes, which is
// public and therefore only checked) for a match of that host. A match of
// another server or host, or no started match, is refused with nothing
// stored. player_stats[KEY] entries are resolved to the match's recorded
// participants: the entry's nickname (clan tag "[TAG]" stripped,
// case-insensitive) equal to a participant's, else KEY equal to a
// participant's account id (KEY may be a slot index, which can equal
// another participant's account id: the nickname decides when it names a
// participant). Nicknames are not unique: when an entry's nickname is
// that of several participants, KEY decides among them, and an entry
// whose KEY names none of them refuses the submission (ambiguous_player)
// rather than credit one's result to another. An entry that matches no
// participant, or a participant matched twice, refuses the whole
// submission (statistics are counted
// only for players the server connected, never for anyone it names). So
// does a counter that is not a whole number 0..100,000 (never clamped;
// pub_count and amm_team_count are counters), a pub_skill or
// amm_team_rating that is not a decimal within ±500
// (matchesapi.MaxRatingChange), a player who both won and lost, and
// winners on more than one team.
//
// The plugin decides each participant's delta (matchesapi.Tally); the host
// checks it against the submitted facts. The match is then recorded with
// the multi-account effect "matches.record" (docs/effects.md): its first
// share, in the game-host account's actor, marks the match recorded in
// the same commit as the effect's record; each other share adds one
// participant's delta to the participant's totals (matches.totals) in the
// participant's own actor, exactly once, resumed after a crash. The reply's
// four "OK" keys are sent only once the first share committed. A second
// submission or resubmission of a recorded match changes nothing and
// answers OK (the first share refuses it, writing nothing).
//
// # The players' side
//
// The client's get_match_stats, match_history_overview and hero
// statistics (history.go, herostats.go) read only what the effect's
// shares wrote: the recorded match keeps the submitted match_stats and
// player fields and inventories (bounded), and each participant's share
// adds, in the commit of the totals, the match to the player's per-hero
// totals, to its history (matches.history: the last history_length
// matches) and to its account's statistics record (the session record's
// infos[0]: games played, wins, losses, disconnects and ratings, by
// bucket, below). Nothing is recomputed by scanning matches.
//
// # Buckets and ratings
//
// The session record keeps its statistics in buckets: public (acc_*),
// ranked (rnk_*), casual (cs_*), MidWars (mid_*), RiftWars (rift_*). A
// match counts in one, from start_game's map, arrangedmatchtype and
// casual flag (bucketOf, stats.go): MidWars by map or type, RiftWars by
// map or type, matchmaking on caldavar_old (or casual matchmaking on
// caldavar) casual, matchmaking on caldavar ranked, everything else
// public. NEXUS, the one known master keeping buckets, counts "ranked
// caldavar" as normal and caldavar_old as casual; public games are played
// on caldavar too, so ranked here means the matchmaking type. Every match
// adds to games_played and discos; the bucket's own counters get the
// rest (addAccountStats, history.go).
//
// No known master computes a rating (the notes, section 2), and the game
// server submits per player pub_skill, pub_count, amm_team_rating and
// amm_team_count: the area reads them as the server's rating changes.
// pub_skill moves acc_pub_skill when pub_count is 1 in a public match;
// amm_team_rating moves rnk_amm_team_rating or cs_amm_team_rating when
// amm_team_count is 1 in a ranked or casual match; nothing else moves a
// rating. Changes are kept in thousandths (the record's three places), a
// rating stays within 0..10,000, and a new account starts at 1500. The
// bucket and the submitted figures are facts of the plugin's tally, whose
// deltas carry the bucket and the changes; the host checks they are
// exactly what the facts call for (matchesapi.Expected), so a plugin can
// neither move a rating the server did not nor count a match in another
// bucket.
//
// # Cluster mode
//
// A game server's requests carry its session, never a player's cookie
// (c_conn carries both), and a manager logs in by NAME: the area's routes
// name the game-host account of the session or the login
// (server.Route.Account, hostOf), so the cluster serves every request of
// a host's servers and manager on the host's home node, whichever node
// received it, and its one actor makes every write of the host's servers
// and matches. Concurrent matches of one host through several nodes
// therefore never fence one another's activations, and the host's rates
// (start_game_*, heartbeat_write_*) and the failed-password limits of its
// logins are counted on one node for the whole cluster; a request served
// while the host's home moves, or away from an unreachable home, is
// answered "try again" (503) with nothing written, as in every area. A
// player's records are written by the player's actor: a connection key
// (IssueKey) by a request of the player's own, served on the player's
// home; a match's totals by the effect's share, applied in a transient
// activation when the player is homed elsewhere (docs/effects.md). The
// sequences are global records, whose commits every node orders, retried
// a few times when the nodes take ids at once. The host account is one
// writer for all its servers, one commit at a time: about 25 matches a
// second on the shared test VM (docs/performance.md), far above what a
// community's servers start.
//
// # Replies
//
// The area writes its replies itself (server.PHP): the managers read HTTP
// status codes (401 bad credentials, 403 no hosting right, 5xx the master
// down), and the functions of one path answer different shapes (a PHP
// array, an empty body, JSON), which a table of causes answered in the
// body does not express. Every failure is the PHP array error => sentence
// with its status; an unknown function answers as the host's unknown
// functions (404). A failure whose outcome is unknown answers 503, never
// a plain refusal.
//
// # Not served
//
// Replays are not stored: set_replay_size only acknowledges, and
// get_spectator_header answers the upload target the notes give (JSON,
// <server.public_url>/replays/upload, which this server does not serve).
// get_quickstats answers "OK". The chat server is not part of this server:
// chat_address and the ports are settings.
package matches
