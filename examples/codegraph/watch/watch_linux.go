//go:build linux

package watch

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// start watches the tree with inotify (or polls it, where inotify fails), telling events of
// relevant changes; stop ends it.
func start(ctx context.Context, root string, opts Options, events chan<- struct{}) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	stop = func() { cancel(); wg.Wait() }
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err == nil && forcePoll {
		unix.Close(fd)
		err = errors.New("polling asked for")
	}
	if err != nil {
		opts.Logf("watch: inotify unavailable (%v); walking %s every %v instead", err, root, opts.PollEvery)
		wg.Add(1)
		go func() { defer wg.Done(); poll(ctx, root, opts, events) }()
		return stop
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		wg.Add(1)
		go func() { defer wg.Done(); poll(ctx, root, opts, events) }()
		return stop
	}
	w := &inotify{root: root, fd: fd, dirs: map[int32]string{}, opts: opts}
	if !w.addTree(".") {
		unix.Close(fd)
		unix.Close(wake)
		opts.Logf("watch: past the system's limit on inotify watches (fs.inotify.max_user_watches); walking %s every %v instead", root, opts.PollEvery)
		wg.Add(1)
		go func() { defer wg.Done(); poll(ctx, root, opts, events) }()
		return stop
	}
	watched()
	wg.Add(2)
	go func() {
		defer wg.Done()
		<-ctx.Done()
		unix.Write(wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}()
	go func() {
		defer wg.Done()
		defer unix.Close(wake)
		defer unix.Close(fd)
		w.run(ctx, wake, events)
	}()
	return stop
}

type inotify struct {
	root string
	fd   int
	dirs map[int32]string // watch descriptor -> directory, relative to the root
	opts Options
	buf  [64 << 10]byte
}

// addTree watches dir and the directories under it; false past the limit on watches.
func (w *inotify) addTree(dir string) bool {
	dirs, _ := walk(filepath.Join(w.root, filepath.FromSlash(dir)), func(string) bool { return false })
	for _, d := range dirs {
		rel := path.Join(dir, d)
		wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), mask)
		if errors.Is(err, unix.ENOSPC) {
			return false
		}
		if err == nil {
			w.dirs[int32(wd)] = rel
		}
	}
	return true
}

func (w *inotify) run(ctx context.Context, wake int, events chan<- struct{}) {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	for ctx.Err() == nil {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			w.opts.Logf("watch: %v; walking %s every %v instead", err, w.root, w.opts.PollEvery)
			poll(ctx, w.root, w.opts, events)
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if w.drain() {
			signal(events)
		}
	}
}

// drain reads the queued events and reports whether one was relevant.
func (w *inotify) drain() bool {
	relevant := false
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		if err != nil || n <= 0 {
			return relevant // EAGAIN: the queue is empty
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
			dir, known := w.dirs[ev.Wd]
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				relevant = true // events were lost: look again
			case ev.Mask&unix.IN_IGNORED != 0:
				delete(w.dirs, ev.Wd)
			case !known || name == "":
			case ev.Mask&unix.IN_ISDIR != 0:
				if skipDir(name) {
					continue
				}
				if ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
					w.addTree(path.Join(dir, name)) // and what was made in it before the watch
				}
				relevant = true
			case w.opts.Relevant(path.Join(dir, name)):
				relevant = true
			}
		}
	}
}
