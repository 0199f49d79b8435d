package fetch

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// ends records the connections a pool ends.
type ends struct {
	mu  sync.Mutex
	got []int
}

func (e *ends) end(c int) {
	e.mu.Lock()
	e.got = append(e.got, c)
	e.mu.Unlock()
}

func (e *ends) all() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

func TestIdlePoolLimits(t *testing.T) {
	var p IdlePool[string, int]
	var e ends
	req := NewRequest(&Client{MaxIdleConnsPerHost: 2}, nil)
	for c := 1; c <= 3; c++ {
		p.Put(req, "a", c, e.end)
	}
	p.Put(req, "b", 4, e.end)
	if got := e.all(); !slices.Equal(got, []int{3}) {
		t.Errorf("ended %v; want the third of a's (the limit is 2)", got)
	}
	if c, ok := p.Get("a"); !ok || c != 2 {
		t.Errorf("Get(a) = %d, %v; want the most recent, 2", c, ok)
	}
	if c, ok := p.Get("a"); !ok || c != 1 {
		t.Errorf("second Get(a) = %d, %v; want 1", c, ok)
	}
	if _, ok := p.Get("a"); ok {
		t.Error("third Get(a) found one; want none")
	}
	p.CloseIdle()
	if got := e.all(); !slices.Equal(got, []int{3, 4}) {
		t.Errorf("after CloseIdle ended %v; want b's too", got)
	}
	if _, ok := p.Get("b"); ok {
		t.Error("Get after CloseIdle found one")
	}

	// None is kept when either limit is negative.
	for _, c := range []*Client{{MaxIdleConnsPerHost: -1}, {IdleConnTimeout: -1}} {
		var e ends
		p.Put(NewRequest(c, nil), "a", 5, e.end)
		if _, ok := p.Get("a"); ok || !slices.Equal(e.all(), []int{5}) {
			t.Errorf("Client %+v: kept a connection; want it ended", c)
		}
	}
}

func TestIdlePoolTimeout(t *testing.T) {
	var p IdlePool[string, int]
	var e ends
	p.Put(NewRequest(&Client{IdleConnTimeout: 20 * time.Millisecond}, nil), "a", 1, e.end)
	deadline := time.Now().Add(5 * time.Second)
	for len(e.all()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := e.all(); !slices.Equal(got, []int{1}) {
		t.Fatalf("after the idle timeout ended %v; want 1", got)
	}
	if _, ok := p.Get("a"); ok {
		t.Error("Get found an expired connection")
	}
	// Taken before it expires, it is not ended under its user.
	p.Put(NewRequest(&Client{IdleConnTimeout: 20 * time.Millisecond}, nil), "a", 2, e.end)
	if c, ok := p.Get("a"); !ok || c != 2 {
		t.Fatalf("Get = %d, %v", c, ok)
	}
	time.Sleep(60 * time.Millisecond)
	if got := e.all(); !slices.Equal(got, []int{1}) {
		t.Errorf("ended %v; a taken connection must not expire", got)
	}
}

// GetPreferred takes the most recent connection prefer accepts, and the
// most recent of all when it accepts none.
func TestIdlePoolPreferred(t *testing.T) {
	var p IdlePool[string, int]
	var e ends
	req := NewRequest(&Client{MaxIdleConnsPerHost: 4}, nil)
	for c := 1; c <= 4; c++ {
		p.Put(req, "a", c, e.end)
	}
	odd := func(c int) bool { return c%2 == 1 }
	if c, ok := p.GetPreferred("a", odd); !ok || c != 3 {
		t.Errorf("GetPreferred(a, odd) = %d, %v; want 3, the most recent odd one", c, ok)
	}
	if c, ok := p.GetPreferred("a", func(c int) bool { return c > 10 }); !ok || c != 4 {
		t.Errorf("GetPreferred(a, none) = %d, %v; want 4, the most recent", c, ok)
	}
	if c, ok := p.Get("a"); !ok || c != 2 {
		t.Errorf("Get(a) = %d, %v; want 2: the ones taken are out of the pool", c, ok)
	}
	if c, ok := p.GetPreferred("a", odd); !ok || c != 1 {
		t.Errorf("last GetPreferred(a, odd) = %d, %v; want 1", c, ok)
	}
	if _, ok := p.GetPreferred("a", odd); ok {
		t.Error("GetPreferred on an empty pool found one")
	}
	if got := e.all(); len(got) != 0 {
		t.Errorf("ended %v; want none", got)
	}
}
