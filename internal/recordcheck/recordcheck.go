// Package recordcheck checks the records of fetch --json against their
// schema, internal/records/records.schema.json, for the tests: every test that
// runs the command with --json passes its output through Check, so every
// record the test suite produces is validated.
package recordcheck

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema compiles the schema once per test binary.
var schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "records", "records.schema.json")
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	return c.Compile(path)
})

// Check validates each line of out, the standard output of fetch --json,
// as one record. It returns an error naming the first line that is not
// a record of the schema.
func Check(out []byte) error {
	s, err := schema()
	if err != nil {
		return fmt.Errorf("records.schema.json: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.Bytes()))
		if err != nil {
			return fmt.Errorf("--json line %d is not JSON: %v: %q", n, err, sc.Bytes())
		}
		if err := s.Validate(v); err != nil {
			return fmt.Errorf("--json line %d is not a record of records.schema.json: %v\n%s", n, err, sc.Bytes())
		}
	}
	return sc.Err()
}
