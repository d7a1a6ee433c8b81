package server

import "sync"

// healthChecks are conditions /healthz reports besides readiness (storage
// accepting writes ...): each is nil when fine, or an error whose text an
// operator reads.
type healthChecks struct {
	mu     sync.Mutex
	checks []namedCheck
}

type namedCheck struct {
	name string
	f    func() error
}

// AddHealthCheck makes /healthz answer 503 "<name> failing" while f
// returns an error (with ": <error>" on the operator listener,
// HealthDetails). Call it before Serve.
func (s *Server) AddHealthCheck(name string, f func() error) {
	s.checks.mu.Lock()
	defer s.checks.mu.Unlock()
	s.checks.checks = append(s.checks.checks, namedCheck{name, f})
}

// failing returns the first failing check's name and error, or a nil
// error.
func (h *healthChecks) failing() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.checks {
		if err := c.f(); err != nil {
			return c.name, err
		}
	}
	return "", nil
}
