//go:build !linux

package index

// newWatcher walks the tree every PollInterval: outside Linux the index uses no system
// watcher (kqueue, which fsnotify uses on macOS, holds a descriptor open per file).
func (ix *Index) newWatcher() watcher { return newPoller(ix.opts.PollInterval) }
