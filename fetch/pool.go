package fetch

import (
	"slices"
	"sync"
	"time"
)

// Defaults of the idle connections a driver keeps, for a Client whose
// MaxIdleConnsPerHost and IdleConnTimeout are zero.
const (
	DefaultMaxIdleConnsPerHost = 2
	DefaultIdleConnTimeout     = 60 * time.Second
)

// An IdlePool keeps the connections of finished fetches for the next
// fetch of the same key (a server and a login), as http.Transport keeps
// idle connections: at most the Client's MaxIdleConnsPerHost per key, each
// for at most its IdleConnTimeout, the most recently used taken first. A
// driver that reuses connections holds one; its zero value is ready to
// use. C is the driver's connection (an FTP session, an NNTP connection).
type IdlePool[K comparable, C comparable] struct {
	mu   sync.Mutex
	idle map[K][]*idleConn[C]
}

type idleConn[C comparable] struct {
	c     C
	end   func(C)
	timer *time.Timer
}

// Get takes the most recently kept idle connection for key.
func (p *IdlePool[K, C]) Get(key K) (c C, ok bool) { return p.GetPreferred(key, nil) }

// GetPreferred takes the most recently kept idle connection for key that
// prefer accepts or, when it accepts none, the most recently kept one: a
// driver's way to ask for a connection already in the state a fetch
// needs (an FTP session in the URL's directories), and to take another
// rather than open one. prefer runs under the pool's lock, on
// connections nobody uses.
func (p *IdlePool[K, C]) GetPreferred(key K, prefer func(C) bool) (c C, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[key]
	if len(list) == 0 {
		return c, false
	}
	i := len(list) - 1
	for j := i; prefer != nil && j >= 0; j-- {
		if prefer(list[j].c) {
			i = j
			break
		}
	}
	ic := list[i]
	p.idle[key] = slices.Delete(list, i, i+1)
	ic.timer.Stop()
	return ic.c, true
}

// Put keeps c idle for key under the limits of req's Client (a nil req:
// the defaults), or ends it with end when key has as many idle
// connections as the Client keeps, or the Client keeps none. end also
// ends c when it has been idle too long, and at CloseIdle; it runs
// outside the pool's lock.
func (p *IdlePool[K, C]) Put(req *Request, key K, c C, end func(C)) {
	cl := &Client{}
	if req != nil {
		cl = req.cl()
	}
	max, timeout := cl.idleLimits()
	p.mu.Lock()
	if max <= 0 || timeout <= 0 || len(p.idle[key]) >= max {
		p.mu.Unlock()
		end(c)
		return
	}
	if p.idle == nil {
		p.idle = make(map[K][]*idleConn[C])
	}
	ic := &idleConn[C]{c: c, end: end}
	p.idle[key] = append(p.idle[key], ic)
	ic.timer = time.AfterFunc(timeout, func() { p.expire(key, ic) })
	p.mu.Unlock()
}

// expire ends ic if it is still idle.
func (p *IdlePool[K, C]) expire(key K, ic *idleConn[C]) {
	p.mu.Lock()
	list := p.idle[key]
	i := slices.Index(list, ic)
	if i >= 0 {
		p.idle[key] = slices.Delete(list, i, i+1)
	}
	p.mu.Unlock()
	if i >= 0 {
		ic.end(ic.c)
	}
}

// CloseIdle ends every idle connection. The pool stays usable.
func (p *IdlePool[K, C]) CloseIdle() {
	p.mu.Lock()
	var all []*idleConn[C]
	for k, list := range p.idle {
		for _, ic := range list {
			ic.timer.Stop()
			all = append(all, ic)
		}
		delete(p.idle, k)
	}
	p.mu.Unlock()
	for _, ic := range all {
		ic.end(ic.c)
	}
}

// idleLimits are how many idle connections the Client's drivers keep per
// key, and for how long: none when either is negative.
func (c *Client) idleLimits() (int, time.Duration) {
	max, timeout := c.MaxIdleConnsPerHost, c.IdleConnTimeout
	if max == 0 {
		max = DefaultMaxIdleConnsPerHost
	}
	if timeout == 0 {
		timeout = DefaultIdleConnTimeout
	}
	return max, timeout
}
