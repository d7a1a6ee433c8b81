// Package reportsapi is the player reports area's contract, built on
// package sdk: the area (Area), its one decision Assess ("reports.assess":
// whether to accept a report, and at which priority) with the plain Go
// facts and decision it carries (Facts, Decision), the one table of report
// reasons with their wire codes per path (Reason, CodeSet), the refusals
// (Refusal) and the limits (Limits), and their wire form
// (proto/reports.proto, converted in reports_translation.go).
//
// Both sides import it: the host's reports area asks a plugin for Assess,
// a plugin serves it (plugins/reports is the bundled one).
package reportsapi
