// Package guidesapi is the hero guides area's contract, built on package
// sdk: the area (Area), its decisions Rank ("guides.rank": the order of a
// hero's guide list) and Vote ("guides.vote": whether a vote counts) with
// the plain Go facts and decisions they carry, the host's check of a
// ranking (ValidateGuideRank), and their wire form (proto/guides.proto,
// converted in guides_translation.go).
//
// Both sides import it: the host's guides area asks a plugin for Rank and
// Vote, a plugin serves them (plugins/guides is the bundled one).
package guidesapi
