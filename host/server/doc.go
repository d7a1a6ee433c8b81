// Package server provides the fasthttp host: it routes each request by path
// (and, on /client_requester.php, by the function named in f) to an area's
// handler, gives the handler an owned copy of the request (package wire), and
// writes the handler's reply. The route table in routes.go is the one place
// where paths and function names live.
package server
