package protect

import (
	"container/heap"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The memory of DPoP proofs: each proof's jti is remembered until the proof would be too
// old to be taken anyway (its iat plus the window and the verifier's leeway), so that it is
// taken once. It is kept per key, the thumbprint the token is bound to (cnf.jkt), so that
// one client filling it fills only its own share: a key keeps at most perKey proofs still
// good; when all keys together keep soft, a key holding more than an even share of soft
// (soft divided by the keys) is refused too, while keys under their share are still taken;
// past hard nothing more is taken. A proof the memory cannot take is refused as an outage
// (mcp.ErrVerifierUnavailable: the server answers 503 with Retry-After), since it could not
// be told from a replay. Proofs leave the memory at their own expiry, the soonest first
// (a heap per key), whenever their key proves again, and every key's at least once a
// minute and whenever the memory is full. Before, one memory of 65,536 proofs was shared by
// every client, and one client minting 550 proofs a second kept every other client out.
type proofMemory struct {
	perKey, soft, hard int

	mu    sync.Mutex
	keys  map[string]*keyProofs
	total int       // proofs remembered, all keys together
	swept time.Time // when every key was last rid of its expired proofs
}

const (
	proofsPerKey  = 1 << 14 // 16,384 proofs of one key: 136 requests a second for two minutes
	proofsSoft    = 1 << 17 // 131,072 proofs of all keys, past which even shares hold
	proofsHard    = 1 << 20 // 1,048,576 proofs, about 60 MB: nothing more is taken
	proofSweepGap = time.Second
)

func newProofMemory(perKey, soft, hard int) *proofMemory {
	return &proofMemory{perKey: perKey, soft: soft, hard: hard, keys: map[string]*keyProofs{}}
}

// keyProofs are the proofs of one key still good.
type keyProofs struct {
	seen    map[[16]byte]int64 // the jti's SHA-256, cut -> until when the proof is good (Unix ns)
	expires expiryHeap         // the same proofs, the soonest to expire first
}

type expiry struct {
	until int64
	jti   [16]byte
}

type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].until < h[j].until }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// expire forgets the key's proofs that are no longer good at now, and returns how many.
func (k *keyProofs) expire(now int64) int {
	n := 0
	for len(k.expires) > 0 && k.expires[0].until <= now {
		e := heap.Pop(&k.expires).(expiry)
		if k.seen[e.jti] == e.until {
			delete(k.seen, e.jti)
			n++
		}
	}
	return n
}

// remember takes a proof of the key jkt with this jti, good until until, once: the second
// time while it is good, or when the memory cannot take it, it refuses it.
func (p *proofMemory) remember(jkt, jti string, until, now time.Time) error {
	sum := sha256.Sum256([]byte(jti))
	id := [16]byte(sum[:16])
	nowNS := now.UnixNano()
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.swept) >= time.Minute || p.total >= p.soft && now.Sub(p.swept) >= proofSweepGap {
		p.sweep(nowNS)
		p.swept = now
	}
	k := p.keys[jkt]
	if k == nil {
		k = &keyProofs{seen: map[[16]byte]int64{}}
		p.keys[jkt] = k
	}
	p.total -= k.expire(nowNS)
	if _, ok := k.seen[id]; ok {
		return fmt.Errorf("the DPoP proof was used before (its jti): refused as a replay")
	}
	var err error
	switch {
	case len(k.seen) >= p.perKey:
		err = fmt.Errorf("%w: this key's client made %d DPoP proofs still good, the most a verifier keeps for one key", mcp.ErrVerifierUnavailable, len(k.seen))
	case p.total >= p.soft && len(k.seen) >= max(1, p.soft/len(p.keys)):
		err = fmt.Errorf("%w: %d DPoP proofs still good are remembered, and this key's client made %d of them, more than its share of the %d a verifier keeps", mcp.ErrVerifierUnavailable, p.total, len(k.seen), p.soft)
	case p.total >= p.hard:
		err = fmt.Errorf("%w: %d DPoP proofs still good are remembered, the most a verifier keeps", mcp.ErrVerifierUnavailable, p.total)
	}
	if err != nil {
		if len(k.seen) == 0 {
			delete(p.keys, jkt)
		}
		return err
	}
	k.seen[id] = until.UnixNano()
	heap.Push(&k.expires, expiry{until: until.UnixNano(), jti: id})
	p.total++
	return nil
}

// sweep forgets every key's proofs that are no longer good, and the keys left with none.
func (p *proofMemory) sweep(now int64) {
	for jkt, k := range p.keys {
		p.total -= k.expire(now)
		if len(k.seen) == 0 {
			delete(p.keys, jkt)
		}
	}
}
