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
package redistasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	rdb    redis.UniversalClient
	prefix string
}

var _ mcp.TaskStore = (*Store)(nil)

// New returns a store that keeps tasks in rdb under keys that start with DefaultPrefix.
func New(rdb redis.UniversalClient) *Store { return NewWithPrefix(rdb, DefaultPrefix) }

// NewWithPrefix returns a store whose keys start with prefix, for servers that share a Redis
// but not their tasks.
func NewWithPrefix(rdb redis.UniversalClient, prefix string) *Store {
	return &Store{rdb: rdb, prefix: prefix}
}

func (s *Store) key(id string) string { return s.prefix + id }

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
	ok, err := s.rdb.SetNX(ctx, s.key(t.ID), b, ttl(t)).Result()
	if err != nil {
		return fmt.Errorf("redistasks: storing task %s: %w", t.ID, err)
	}
	if !ok {
		return fmt.Errorf("redistasks: task %s exists already", t.ID)
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
// that replica stored.
func (s *Store) Update(ctx context.Context, id string, change func(*mcp.TaskRecord) error) (*mcp.TaskRecord, error) {
	key := s.key(id)
	var out *mcp.TaskRecord
	txn := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		if err != nil {
			return notFound(id, err)
		}
		t, err := decode(id, b)
		if err != nil {
			return err
		}
		if err := change(t); err != nil {
			return err
		}
		nb, err := json.Marshal(t)
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SetArgs(ctx, key, nb, redis.SetArgs{KeepTTL: true})
			return nil
		})
		out = t
		return err
	}
	for range maxRetries {
		err := s.rdb.Watch(ctx, txn, key)
		if !errors.Is(err, redis.TxFailedErr) {
			if err != nil {
				return nil, err
			}
			s.announce(ctx, id)
			return out, nil
		}
	}
	return nil, fmt.Errorf("redistasks: task %s: gave up after %d updates raced by others", id, maxRetries)
}
