// Package guides provides the hero guides area's bundled plugin (Plugin,
// RulesPlugin) and its pure rules over the contract's plain Go facts and
// decisions (defined with the decisions guidesapi.Rank and guidesapi.Vote
// in package guidesapi, named here by aliases).
//
// The host keeps every guide, flag, vote and count; a guides plugin only
// decides:
//
//   - the order of a hero's list (Rank: RankFacts -> RankDecision), which the
//     host checks with ValidateRank and refuses, never repairs;
//   - whether a vote counts (AcceptVote: VoteFacts -> VoteDecision).
//
// The bundled rules are the specification's order (default, premium, the
// rest by descending upvote fraction) with favorites after premium guides,
// a new account's vote weighing a quarter in that fraction
// (YoungVotesPerVote: sock puppets are new accounts), and "every vote
// counts". An operator's plugin may rank otherwise (for
// example by a confidence bound on the upvote fraction) or refuse authors'
// votes on their own guides:
//
//	func noSelfVotes(f guides.VoteFacts) guides.VoteDecision {
//		return guides.VoteDecision{Counts: f.Author == 0 || f.Author != f.Account}
//	}
//
// A ranking must be a function of its facts: the host reuses a decision
// for later lists with the same facts (and, within guides.rank_staleness,
// after votes moved the counts). A ranking that does not read Account sets
// RankDecision.Shared, as Rank does, so that one decision serves every
// account with the same default and favorites; one that ranks per account
// leaves it false and is reused for that account only.
//
// Nothing here knows storage or the host; the contract (guidesapi, on the
// SDK) carries these types.
package guides
