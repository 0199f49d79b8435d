package mirror

import (
	"os"
	"path"
	"sync"
)

// maxOpenDirs bounds the directories of the mirror a walk keeps open.
const maxOpenDirs = 32

// dirCache keeps the mirror's directories that files were last saved in
// open, each an os.Root within the mirror's: a file is then created,
// renamed and timed in its directory with one system call each, rather
// than os.Root resolving every element of its path again (which was a
// third of the walk's CPU time on 10,000 small files). At most
// maxOpenDirs stay open; one in use is never closed.
type dirCache struct {
	mu    sync.Mutex
	dirs  map[string]*openDir
	clock int64
}

type openDir struct {
	root *os.Root
	refs int
	used int64
}

// open returns dir (slash-separated, within root), made if missing, and
// the function that hands it back.
func (c *dirCache) open(root *os.Root, dir string) (*os.Root, func(), error) {
	c.mu.Lock()
	if c.dirs == nil {
		c.dirs = map[string]*openDir{}
	}
	c.clock++
	if d := c.dirs[dir]; d != nil {
		d.refs++
		d.used = c.clock
		c.mu.Unlock()
		return d.root, c.release(d), nil
	}
	c.mu.Unlock()
	if dir != "." {
		if err := root.MkdirAll(dir, 0o777); err != nil {
			return nil, nil, err
		}
	}
	r, err := root.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.dirs[dir]; d != nil {
		// Opened meanwhile by another file of the directory.
		r.Close()
		d.refs++
		d.used = c.clock
		return d.root, c.release(d), nil
	}
	d := &openDir{root: r, refs: 1, used: c.clock}
	c.dirs[dir] = d
	c.evict()
	return r, c.release(d), nil
}

func (c *dirCache) release(d *openDir) func() {
	return func() {
		c.mu.Lock()
		d.refs--
		c.mu.Unlock()
	}
}

// evict closes the least recently used idle directories beyond
// maxOpenDirs; c.mu is held.
func (c *dirCache) evict() {
	for len(c.dirs) > maxOpenDirs {
		var oldest string
		var od *openDir
		for k, d := range c.dirs {
			if d.refs == 0 && (od == nil || d.used < od.used) {
				oldest, od = k, d
			}
		}
		if od == nil {
			return // all in use
		}
		od.root.Close()
		delete(c.dirs, oldest)
	}
}

// close closes every directory.
func (c *dirCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range c.dirs {
		d.root.Close()
		delete(c.dirs, k)
	}
}

// splitRel splits rel into its directory ("." for none) and name.
func splitRel(rel string) (dir, name string) {
	dir, name = path.Split(rel)
	if dir == "" {
		return ".", name
	}
	return path.Clean(dir), name
}
