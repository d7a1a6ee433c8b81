// Package reports provides the player reports area's bundled plugin
// (Plugin), its rule as plain Go (Decide), and the area's vocabulary that
// is the host's, not the contract's: the one table of report statuses and
// moderator actions (Status, Action) and the account standings
// reportinforequest carries (Standing).
//
// The host gives Decide the facts of one report (who reports whom, for
// what, how long the text is, how many reports the reporter filed in the
// last day and against this reportee, how many other players have open
// reports against the reportee, the age of the reporter's account, and the
// configured limits) and gets back whether to accept it and at which
// priority. Decide is pure: it keeps no state and reads no clock, so the
// same facts always give the same decision. Its facts and decision are
// the contract's types (reportsapi.Facts, reportsapi.Decision of decision
// reportsapi.Assess), beside the one table of report reasons with their
// wire codes per path (reportsapi.Reason, reportsapi.CodeSet) and the
// refusals (reportsapi.Refusal); Plugin serves Decide over it. The host
// checks every decision against those tables before applying it.
//
// # Reason codes
//
// The stock client numbers reasons 1-6 but sends 5 and 6 differently on
// its two paths (protocol-notes §6): /rap/report2.php uses the
// specification's table (5 = Bad Nickname, 6 = AFK), /master/report/report
// the client's own (5 = AFK, 6 = Bad Nickname). Reason values are the
// specification's codes; Reason.Code and reportsapi.ReasonFromCode
// translate per CodeSet, so only the meaning is ever stored.
//
// # The bundled rule
//
// Refused, in this order: an unknown reason; a text over MaxTextRunes (the
// host cuts longer text before asking, so this only catches a host or
// path that did not); a report of oneself or of an account of the same
// main account; a reporter who already filed PerDay reports in the last
// 24 hours; a reporter who already filed PerReportee of them against this
// reportee. Accepted reports get priority 1 + the number of other distinct
// players with open reports against the reportee, at most MaxPriority,
// where other players whose accounts are younger than
// reportsapi.Limits.NewAccountAge do not count (NewReportersOfReportee); and a
// reporter whose own account is that young (the facts' ReporterAge; an
// unknown age counts as old) gets priority 1: an account made to push a
// player up the queue must age first.
package reports
