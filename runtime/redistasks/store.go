// Package redistasks keeps the tasks of mcpgen servers in Redis, so that replicas of a server
// behind a load balancer share them: a task created through one replica is read, answered
// and cancelled through any other.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	srv := mcp.NewServer(info, &mcp.ServerOptions{
//		StateKey: key, // shared by the replicas too
//		Tasks:    mcp.TaskOptions{Store: redistasks.New(rdb)},
//	})
//
// Each task is one Redis string holding its JSON, which expires with the task's TTL. Updates
// are optimistic transactions (WATCH, then MULTI/EXEC), retried when another replica changed
// the task meanwhile, so no update is lost.
//
// The store bounds the bytes of tasks it keeps, all replicas together (Options.MaxBytes,
// counted as mcp.TaskRecord.Size), and those of one caller's tasks (Options.MaxBytesPerCaller,
// a quarter of MaxBytes by default): a write past a bound fails with mcp.ErrTaskStoreFull
// (mcp.ErrTaskCallerFull for the caller's), and servers refuse new tasks or fail the task,
// saying so. The counts are kept beside the tasks, in five keys of the store's own (the
// prefix and ".sizes", ".expiry", ".total", ".callers" and ".callerbytes"), written with
// each task by one Lua script, so that replicas agree on them; expired tasks leave them as
// writes come. On Redis Cluster these keys and the tasks must be in one hash slot: give a
// prefix with a hash tag, such as "{mcp}:task:".
package redistasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts the keys of the tasks.
const DefaultPrefix = "mcp:task:"

// maxRetries bounds the attempts of one update that other replicas keep racing.
const maxRetries = 50

// Store is an mcp.TaskStore in Redis.
type Store struct {
	rdb       redis.UniversalClient
	prefix    string
	maxBytes  int
	maxCaller int // of one caller's tasks; negative: none
}

var _ mcp.TaskStore = (*Store)(nil)

// Options configure a Store.
type Options struct {
	// Prefix starts the keys of the store; the default is DefaultPrefix. Servers that share
	// a Redis but not their tasks use prefixes of their own.
	Prefix string
	// MaxBytes bounds the bytes of tasks the store keeps, all replicas together
	// (mcp.TaskRecord.Size of each). The default is mcp.DefaultTaskStoreBytes; a negative
	// value sets no bound.
	MaxBytes int
	// MaxBytesPerCaller bounds those of one caller's tasks (mcp.TaskRecord.Caller: the
	// issuer, subject and client of a protected server's caller), so that one caller cannot
	// fill the store until the TTL and have everyone's new tasks refused. The default is a
	// quarter of MaxBytes (mcp.DefaultTaskCallerBytes); a negative value sets no bound.
	// Tasks without a caller (a server that is not protected) count toward MaxBytes only.
	MaxBytesPerCaller int
}

// New returns a store that keeps tasks in rdb under keys that start with DefaultPrefix, at
// most mcp.DefaultTaskStoreBytes of them.
func New(rdb redis.UniversalClient) *Store { return NewWithOptions(rdb, Options{}) }

// NewWithPrefix returns a store whose keys start with prefix, for servers that share a Redis
// but not their tasks.
func NewWithPrefix(rdb redis.UniversalClient, prefix string) *Store {
	return NewWithOptions(rdb, Options{Prefix: prefix})
}

// NewWithOptions returns a store configured by o.
func NewWithOptions(rdb redis.UniversalClient, o Options) *Store {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = mcp.DefaultTaskStoreBytes
	}
	if o.MaxBytesPerCaller == 0 {
		o.MaxBytesPerCaller = mcp.DefaultTaskCallerBytes(o.MaxBytes)
	}
	return &Store{rdb: rdb, prefix: o.Prefix, maxBytes: o.MaxBytes, maxCaller: o.MaxBytesPerCaller}
}

func (s *Store) key(id string) string { return s.prefix + id }

// keys are the keys the write script touches for a task: the task's own, then the store's
// counts of bytes: each task's size, when each expires, and the total; each task's caller,
// and the bytes of each caller's tasks.
func (s *Store) keys(id string) []string {
	return []string{s.key(id), s.prefix + ".sizes", s.prefix + ".expiry", s.prefix + ".total", s.prefix + ".callers", s.prefix + ".callerbytes"}
}

// write stores a task's JSON and counts its size, in one step: first the tasks whose TTL
// passed leave the counts (a hundred at most each time); then the write is refused if it
// makes the task larger and the total would pass the bound ("full"), or the bytes of its
// caller's tasks would pass theirs ("caller"), or if a new task's id is taken ("exists").
// ARGV: id, JSON, size, when the task expires (ms since the epoch, or +inf), now (ms), the
// bound (negative: none), 1 to create (else update, keeping the key's TTL), the TTL of a
// new key (ms, 0: none), the task's caller ("" for none), the bound of a caller's tasks
// (negative: none). A task counts for its caller once .callers names it: one written
// before callers were counted, from its next write on.
var write = redis.NewScript(`
local id, value, size = ARGV[1], ARGV[2], tonumber(ARGV[3])
local now, max, create, px = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == '1', tonumber(ARGV[8])
local caller, maxCaller = ARGV[9], tonumber(ARGV[10])
local function uncount(task, n)
  local c = redis.call('HGET', KEYS[5], task)
  if c then
    if redis.call('HINCRBY', KEYS[6], c, -n) <= 0 then redis.call('HDEL', KEYS[6], c) end
    redis.call('HDEL', KEYS[5], task)
  end
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. now, 'LIMIT', 0, 100)
for _, g in ipairs(gone) do
  local n = redis.call('HGET', KEYS[2], g)
  if n then
    redis.call('DECRBY', KEYS[4], n)
    uncount(g, tonumber(n))
  end
  redis.call('HDEL', KEYS[2], g)
  redis.call('ZREM', KEYS[3], g)
end
if create and redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local old = tonumber(redis.call('HGET', KEYS[2], id) or '0')
local total = tonumber(redis.call('GET', KEYS[4]) or '0')
if max >= 0 and size > old and total - old + size > max then return 'full' end
if caller ~= '' and maxCaller >= 0 and size > old then
  local counted = 0
  if redis.call('HGET', KEYS[5], id) == caller then counted = old end
  local mine = tonumber(redis.call('HGET', KEYS[6], caller) or '0')
  if mine - counted + size > maxCaller then return 'caller' end
end
if not create then
  redis.call('SET', KEYS[1], value, 'KEEPTTL')
elseif px > 0 then
  redis.call('SET', KEYS[1], value, 'PX', px)
else
  redis.call('SET', KEYS[1], value)
end
uncount(id, old)
if caller ~= '' then
  redis.call('HSET', KEYS[5], id, caller)
  redis.call('HINCRBY', KEYS[6], caller, size)
end
redis.call('HSET', KEYS[2], id, size)
redis.call('ZADD', KEYS[3], ARGV[4], id)
redis.call('INCRBY', KEYS[4], size - old)
return 'ok'
`)

// writeArgs are the arguments of the write script for task t, as JSON b.
func (s *Store) writeArgs(t *mcp.TaskRecord, b []byte, create bool) []any {
	expires, px := "+inf", int64(0)
	if t.TTL > 0 {
		expires = strconv.FormatInt(t.CreatedAt.Add(t.TTL).UnixMilli(), 10)
		px = ttl(t).Milliseconds()
	}
	c := "0"
	if create {
		c = "1"
	}
	return []any{t.ID, b, t.Size(), expires, time.Now().UnixMilli(), s.maxBytes, c, px, t.Caller, s.maxCaller}
}

// written turns the write script's answer into the store's error.
func (s *Store) written(id, answer string) error {
	switch answer {
	case "ok":
		return nil
	case "exists":
		return fmt.Errorf("redistasks: task %s exists already", id)
	case "full":
		return fmt.Errorf("redistasks: task %s: %w: it keeps at most %d bytes of tasks", id, mcp.ErrTaskStoreFull, s.maxBytes)
	case "caller":
		return fmt.Errorf("redistasks: task %s: %w: it keeps at most %d bytes of one caller's tasks", id, mcp.ErrTaskCallerFull, s.maxCaller)
	}
	return fmt.Errorf("redistasks: task %s: the write script answered %q", id, answer)
}

// ttl is how long Redis keeps a task: what is left of its TTL (at least a millisecond), or
// forever (0) for a task without one.
func ttl(t *mcp.TaskRecord) time.Duration {
	if t.TTL <= 0 {
		return 0
	}
	return max(time.Until(t.CreatedAt.Add(t.TTL)), time.Millisecond)
}

// Create stores a new task; an id that exists already is an error.
func (s *Store) Create(ctx context.Context, t *mcp.TaskRecord) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	answer, err := write.Run(ctx, s.rdb, s.keys(t.ID), s.writeArgs(t, b, true)...).Text()
	if err != nil {
		return fmt.Errorf("redistasks: storing task %s: %w", t.ID, err)
	}
	if err := s.written(t.ID, answer); err != nil {
		return err
	}
	s.announce(ctx, t.ID)
	return nil
}

// changes is the channel on which the store announces the ids of the tasks it changes.
func (s *Store) changes() string { return s.prefix + "changes" }

// announce tells the other replicas' watchers (WatchTasks) that a task changed. A lost
// announcement costs a notification, not a task: clients poll tasks/get either way.
func (s *Store) announce(ctx context.Context, id string) {
	s.rdb.Publish(context.WithoutCancel(ctx), s.changes(), id)
}

var _ mcp.TaskChanges = (*Store)(nil)

// WatchTasks calls changed with the id of every task any replica creates or updates, until
// ctx ends.
func (s *Store) WatchTasks(ctx context.Context, changed func(id string)) error {
	sub := s.rdb.Subscribe(ctx, s.changes())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription is confirmed
		return fmt.Errorf("redistasks: watching for changes: %w", err)
	}
	ch := sub.Channel()
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				return errors.New("redistasks: the watch of changes ended")
			}
			changed(m.Payload)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Get returns the task, or mcp.ErrTaskNotFound.
func (s *Store) Get(ctx context.Context, id string) (*mcp.TaskRecord, error) {
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if err != nil {
		return nil, notFound(id, err)
	}
	return decode(id, b)
}

func notFound(id string, err error) error {
	if errors.Is(err, redis.Nil) {
		return mcp.ErrTaskNotFound
	}
	return fmt.Errorf("redistasks: reading task %s: %w", id, err)
}

func decode(id string, b []byte) (*mcp.TaskRecord, error) {
	var t mcp.TaskRecord
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("redistasks: task %s holds no task: %w", id, err)
	}
	return &t, nil
}

// Update changes the task in an optimistic transaction: if another replica changes it
// between the read and the write, the write is dropped and the update runs again on what
// that replica stored. Watchers (WatchTasks) hear of it when its UpdatedAt changed: a
// renewal of the lease of the process that runs it is none of theirs.
func (s *Store) Update(ctx context.Context, id string, change func(*mcp.TaskRecord) error) (*mcp.TaskRecord, error) {
	key := s.key(id)
	var out *mcp.TaskRecord
	var visible bool
	txn := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		if err != nil {
			return notFound(id, err)
		}
		t, err := decode(id, b)
		if err != nil {
			return err
		}
		before := t.UpdatedAt
		if err := change(t); err != nil {
			return err
		}
		nb, err := json.Marshal(t)
		if err != nil {
			return err
		}
		var w *redis.Cmd
		if _, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			w = write.Eval(ctx, p, s.keys(id), s.writeArgs(t, nb, false)...)
			return nil
		}); err != nil {
			return err
		}
		answer, err := w.Text()
		if err != nil {
			return fmt.Errorf("redistasks: storing task %s: %w", id, err)
		}
		out, visible = t, !t.UpdatedAt.Equal(before)
		return s.written(id, answer)
	}
	for range maxRetries {
		err := s.rdb.Watch(ctx, txn, key)
		if !errors.Is(err, redis.TxFailedErr) {
			if err != nil {
				return nil, err
			}
			if visible {
				s.announce(ctx, id)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("redistasks: task %s: gave up after %d updates raced by others", id, maxRetries)
}
