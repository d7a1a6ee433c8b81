// Package reports provides the player reports area's vocabulary and the
// bundled plugin's rule, as plain Go: the one table of report reasons with
// their wire codes per path (Reason, CodeSet), the one table of report
// statuses and moderator actions (Status, Action), the account standings
// reportinforequest carries (Standing), the refusals (Refusal), and the
// rule itself: Decide(Facts) Decision.
//
// The host gives Decide the facts of one report (who reports whom, for
// what, how long the text is, how many reports the reporter filed in the
// last day and against this reportee, how many other players have open
// reports against the reportee, the age of the reporter's account, and the
// configured Limits) and gets back
// whether to accept it and at which priority. Decide is pure: it keeps no
// state and reads no clock, so the same facts always give the same
// decision. Facts and Decision are the contract's types
// (sdk.ReportFacts, sdk.ReportDecision of decision sdk.ReportsAssess);
// Plugin serves Decide over it. The host checks every decision against
// these tables before applying it.
//
// # Reason codes
//
// The stock client numbers reasons 1-6 but sends 5 and 6 differently on
// its two paths (protocol-notes §6): /rap/report2.php uses the
// specification's table (5 = Bad Nickname, 6 = AFK), /master/report/report
// the client's own (5 = AFK, 6 = Bad Nickname). Reason values are the
// specification's codes; Reason.Code and ReasonFromCode translate per
// CodeSet, so only the meaning is ever stored.
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
// Limits.NewAccountAge do not count (NewReportersOfReportee); and a
// reporter whose own account is that young (the facts' ReporterAge; an
// unknown age counts as old) gets priority 1: an account made to push a
// player up the queue must age first.
package reports
