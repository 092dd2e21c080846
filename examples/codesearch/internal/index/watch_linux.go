//go:build linux

package index

import (
	"errors"
	"path"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotify watches every directory of the tree with Linux's inotify. The kernel queues an
// event as a file is written, so draining the queue before a search (Index.Sync) lets the
// search see every change made before it began. fsnotify would hide the queue behind a
// goroutine, which a search could not wait for.
type inotify struct {
	root  string
	fd    int
	wake  int // an eventfd that wakes the polling goroutine to stop
	stop  chan struct{}
	sig   chan struct{}
	freed chan struct{} // told after each drain, so that the poller polls again
	wg    sync.WaitGroup
	logf  func(string, ...any)

	mu      sync.Mutex // guards what follows, and reading fd
	dirs    map[int32]string
	lost    bool // the queue overflowed, or a directory came or went: walk the tree
	polling bool // past the system's limit on watches: walk the tree every interval
	every   time.Duration
	buf     [1 << 16]byte
}

const inotifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK | unix.IN_ONLYDIR

func (ix *Index) newWatcher() watcher {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		ix.opts.Logf("index: inotify unavailable (%v); walking the tree every %v instead", err, ix.opts.PollInterval)
		return newPoller(ix.opts.PollInterval)
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return newPoller(ix.opts.PollInterval)
	}
	w := &inotify{root: ix.root, fd: fd, wake: wake, stop: make(chan struct{}), every: ix.opts.PollInterval, sig: make(chan struct{}, 1), freed: make(chan struct{}, 1),
		dirs: map[int32]string{}, logf: ix.opts.Logf}
	w.wg.Add(1)
	go w.run()
	w.lost = true // the first drain walks the tree, which adds the watches
	w.signal()
	return w
}

// run waits for the kernel to have events, tells the index, and waits for it to drain them
// before it polls again. Past the limit on watches, it asks for a walk every interval.
func (w *inotify) run() {
	defer w.wg.Done()
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	for {
		w.mu.Lock()
		timeout := -1
		if w.polling {
			timeout = int(w.every.Milliseconds())
		}
		w.mu.Unlock()
		fds[0].Revents, fds[1].Revents = 0, 0
		n, err := unix.Poll(fds, timeout)
		if err != nil && !errors.Is(err, unix.EINTR) || fds[1].Revents != 0 {
			return
		}
		if n == 0 && timeout >= 0 {
			w.mu.Lock()
			w.lost = true
			w.mu.Unlock()
		} else if fds[0].Revents == 0 {
			continue
		}
		w.signal()
		select {
		case <-w.freed:
		case <-w.stop:
			return
		}
	}
}

func (w *inotify) signal() {
	select {
	case w.sig <- struct{}{}:
	default:
	}
}

func (w *inotify) pending() <-chan struct{} { return w.sig }

func (w *inotify) drain() (paths []string, rescan bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		select {
		case w.freed <- struct{}{}:
		default:
		}
	}()
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		if err != nil || n <= 0 {
			break // EAGAIN: the queue is empty
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.lost = true
			case ev.Mask&unix.IN_IGNORED != 0:
				delete(w.dirs, ev.Wd)
			case ev.Mask&unix.IN_ISDIR != 0 && ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
				w.lost = true // a directory came or went: walk the tree for what is in it
			case name == ".gitignore":
				w.lost = true // what is ignored changed
			case ev.Mask&unix.IN_ISDIR == 0 && name != "":
				if dir, ok := w.dirs[ev.Wd]; ok {
					paths = append(paths, path.Join(dir, name))
				}
			}
		}
	}
	if w.lost {
		w.lost = false
		return nil, true
	}
	return paths, false
}

// rescanned watches the directories a walk found (adding a watch twice is harmless).
func (w *inotify) rescanned(dirs []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.polling {
		return
	}
	for _, d := range dirs {
		wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(d)), inotifyMask)
		if errors.Is(err, unix.ENOSPC) {
			w.logf("index: the system's limit on inotify watches (fs.inotify.max_user_watches) is reached; walking the tree every %v instead", w.every)
			w.polling = true
			return
		}
		if err == nil {
			w.dirs[int32(wd)] = d
		}
	}
}

func (w *inotify) close() {
	close(w.stop)
	unix.Write(w.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	w.wg.Wait()
	unix.Close(w.fd)
	unix.Close(w.wake)
}
