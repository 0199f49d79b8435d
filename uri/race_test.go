//go:build race

package uri

const raceEnabled = true
