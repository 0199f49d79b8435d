package misbehaving

// What the package's own tests, in package misbehaving_test like the
// kit's users, need to see of its insides.

// Behaviours lists every Behaviour, in order.
var Behaviours = behaviours

// Conns is how many connections and data listeners s holds open.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
