// Package opmsg words error text for the people who run the server: it
// takes out the package names that errors of this module and of its
// libraries carry ("storage: actors: ..."), which are for logs. The
// command line (host/cli) and the web console (host/console) share it.
//
// Operator messages come from typed errors where the module makes them
// (host/failure/detail); Strip is for the text of errors it does not word
// itself (the operating system's, Pebble's, pgx's, JSON's) and for what
// those wrap.
package opmsg

import (
	"errors"
	"regexp"
)

// prefix matches a run of "name: " prefixes, where name is a package of
// this module (or a library) whose errors carry it: text for logs, not for
// operators. TestPrefixKnowsEveryPackage fails when a package of the
// module is missing (cloudcfg's errors leaked). An area added from its own
// directories names its packages <area>api (contract), <area>plugin,
// <area>area (host side) and <area>pb (generated), which match without an
// edit here (docs/adding-an-area.md). A prefix counts at the start of the
// text, after an error chain's ": " or after an opening bracket or quote,
// so that a run ("storage: actors: ...") goes whole and an ordinary word
// before a colon mid-sentence ("unknown login: bob") stays.
var prefix = regexp.MustCompile(`(^|: |[("'])(?:(?:storage|actors|wire|host|cli|client|config|accounts|cloud|cloudcfg|plinko|guides|reports|matches|matchsim|console|consolepage|login|server|operator|supervisor|sdk|srp|metrics|limit|cluster|failure|detail|opmsg|gcfloor|cpustat|loadtest|logflood|cache|docscheck|modfiles|pity|guidesrank|actorstest|killtest|clitest|configtest|storagetest|wiretest|clustertest|supervisortest|pb|cloudpb|clusterpb|guidespb|reportspb|pebble|pgkv|toml|json|grpc|rpc error|proto|protobuf|area|[a-z][a-z0-9]*(?:api|plugin|area|pb)):\s*)+`)

// Strip removes internal package prefixes from text.
func Strip(text string) string {
	return prefix.ReplaceAllString(text, "$1")
}

// NotUTF8 is the sentence of a write refused because a text in it is not
// UTF-8 (InvalidUTF8).
const NotUTF8 = "a text field is not valid UTF-8 text, so nothing was stored; send it as UTF-8"

// InvalidUTF8 reports whether err is the storage's refusal of a record
// holding text that is not UTF-8 (a protobuf string field must be): its
// text ("encode \"a/\": string field contains invalid UTF-8") names the
// storage's internals, so operator messages say NotUTF8 instead. The
// console and the operator API refuse such a form field before anything
// is stored; this is for whatever reaches the storage by another way.
func InvalidUTF8(err error) bool {
	var e interface{ InvalidUTF8() bool }
	return errors.As(err, &e) && e.InvalidUTF8()
}
