// Package docscheck holds tests of the project's Markdown: README.md stays
// short and points at every file of docs/, and every relative link in
// README.md and docs/*.md leads to a file, and to a heading when it names one.
package docscheck
