package want

import (
	"testing"

	"github.com/urlfetch/urlfetch/internal/misbehaving"
)

// Every row of the table names a case of the kit that applies: a row
// whose case was renamed or dropped would otherwise want nothing of
// anyone. (internal/misbehaving's TestCases checks the other way: every
// case that applies has its kind.)
func TestKindsNameCases(t *testing.T) {
	applies := map[string]bool{}
	for _, c := range misbehaving.Cases() {
		applies[c.Name()] = c.NA == ""
	}
	for name, kind := range kinds() {
		ok, found := applies[name]
		switch {
		case !found:
			t.Errorf("kind %v for %s, which is not a case of misbehaving.Cases", kind, name)
		case !ok:
			t.Errorf("kind %v for %s, a case that does not apply", kind, name)
		}
	}
}
