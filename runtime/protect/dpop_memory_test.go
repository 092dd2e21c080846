package protect

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// One client minting proofs cannot make another's valid proof fail (issue 35, item 1): the
// memory is kept per key, and a key that filled its share is refused alone. Before, one
// memory of 65,536 proofs served every key: a client that minted that many in a minute
// (about 550 a second) had every other client's proof refused with ErrVerifierUnavailable.
func TestDPoPOneClientCannotLockOthersOut(t *testing.T) {
	is := newIssuer(t)
	v := &JWT{Issuer: "https://as.example", JWKSURL: is.srv.URL, Audience: "https://mcp.example/mcp"}
	const target = "https://mcp.example/mcp"
	mallory, alice := newHolder(t), newHolder(t)
	malloryToken := is.token(t, claims(map[string]any{"cnf": map[string]any{"jkt": mallory.jkt}}))
	aliceToken := is.token(t, claims(map[string]any{"cnf": map[string]any{"jkt": alice.jkt}}))
	verify := func(token, proof string) error {
		_, err := v.VerifyDPoP(context.Background(), token, mcp.DPoPProof{Proof: proof, Method: http.MethodPost, URL: target})
		return err
	}
	saved := seenProofs.memory
	seenProofs.memory = newProofMemory(proofsPerKey, proofsSoft, proofsHard)
	defer func() { seenProofs.memory = saved }()

	// Mallory's client mints proofs as fast as it can, twice what the whole memory of the
	// process kept before; each is remembered until it would be too old (two minutes).
	now := time.Now()
	refused := 0
	for i := range 2 << 16 {
		err := seenProofs.memory.remember(mallory.jkt, "mallory-"+strconv.Itoa(i), now.Add(2*time.Minute), now)
		if err != nil {
			if !errors.Is(err, mcp.ErrVerifierUnavailable) {
				t.Fatalf("proof %d: %v", i, err)
			}
			refused++
		}
	}
	if refused != 2<<16-proofsPerKey {
		t.Errorf("%d of Mallory's proofs refused, want all past %d", refused, proofsPerKey)
	}
	if err := verify(malloryToken, mallory.proof(t, "POST", target, malloryToken, nil)); !errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Errorf("Mallory's next real proof: %v, want ErrVerifierUnavailable", err)
	}
	// Alice's proofs are taken, and still once only.
	for range 3 {
		proof := alice.proof(t, "POST", target, aliceToken, nil)
		if err := verify(aliceToken, proof); err != nil {
			t.Fatalf("Alice's valid proof, while Mallory floods: %v", err)
		}
		if err := verify(aliceToken, proof); err == nil || errors.Is(err, mcp.ErrVerifierUnavailable) {
			t.Errorf("Alice's proof replayed: %v, want it refused as a replay", err)
		}
	}
}

// A proof is forgotten at its own expiry, not only when the memory is full: a key that
// filled its share makes proofs again once its oldest are too old to be taken anyway.
func TestDPoPProofsExpireByTheirLifetime(t *testing.T) {
	m := newProofMemory(4, 100, 1000)
	now := time.Now()
	for i := range 4 {
		if err := m.remember("k", strconv.Itoa(i), now.Add(time.Duration(i+1)*time.Second), now); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.remember("k", "full", now.Add(time.Minute), now); !errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Fatalf("a fifth proof of a key that keeps 4: %v", err)
	}
	later := now.Add(2 * time.Second) // proofs 0 and 1 expired
	for _, jti := range []string{"a", "b"} {
		if err := m.remember("k", jti, later.Add(time.Minute), later); err != nil {
			t.Errorf("a proof once two expired: %v", err)
		}
	}
	if err := m.remember("k", "c", later.Add(time.Minute), later); !errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Errorf("a third: %v, want it refused (proofs 2 and 3 are still good)", err)
	}
	if err := m.remember("k", "0", later.Add(time.Minute), later); !errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Errorf("an expired proof's jti again, with the key full: %v", err)
	}
	if err := m.remember("k", "2", later.Add(time.Minute), later); err == nil || errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Errorf("a proof still good, again: %v, want a replay", err)
	}
	if m.total != 4 {
		t.Errorf("%d proofs counted, want 4", m.total)
	}
	// A minute on, a sweep forgets every key's expired proofs, and the keys left empty.
	m.remember("other", "x", now.Add(time.Hour), now.Add(2*time.Minute))
	if m.total != 1 || len(m.keys) != 1 {
		t.Errorf("after the sweep: %d proofs of %d keys, want 1 of 1", m.total, len(m.keys))
	}
}

// Full (soft proofs still good), the memory refuses the keys holding more than an even share
// and takes the others: many clients that each fill their share still leave room for a new
// one, and the memory holds at most hard proofs whatever the number of keys.
func TestDPoPMemoryFullKeepsEvenShares(t *testing.T) {
	m := newProofMemory(100, 400, 1000)
	now := time.Now()
	until := now.Add(time.Minute)
	fill := func(key string) int {
		n := 0
		for ; ; n++ {
			if err := m.remember(key, strconv.Itoa(n), until, now); err != nil {
				if !errors.Is(err, mcp.ErrVerifierUnavailable) {
					t.Fatal(err)
				}
				return n
			}
		}
	}
	for i := range 4 {
		if n := fill("heavy" + strconv.Itoa(i)); n != 100 {
			t.Fatalf("heavy%d: %d proofs taken, want its 100", i, n)
		}
	}
	// 400 remembered: a fifth key gets an even share, 400/5 = 80; the heavy ones none.
	if n := fill("fifth"); n != 80 {
		t.Errorf("a fifth key into a full memory: %d proofs taken, want 80", n)
	}
	if err := m.remember("heavy0", "more", until, now); !errors.Is(err, mcp.ErrVerifierUnavailable) {
		t.Errorf("a heavy key, over its share of a full memory: %v", err)
	}
	// However many keys come, each is taken at first, up to the hard bound.
	for i := 0; m.total < 1000; i++ {
		if err := m.remember("many"+strconv.Itoa(i), "1", until, now); err != nil {
			t.Fatalf("key %d, with %d proofs remembered: %v", i, m.total, err)
		}
	}
	if err := m.remember("one-too-many", "1", until, now); !errors.Is(err, mcp.ErrVerifierUnavailable) || m.total != 1000 {
		t.Errorf("past the hard bound: %v, %d remembered", err, m.total)
	}
	if _, ok := m.keys["one-too-many"]; ok {
		t.Error("a key refused its first proof is kept")
	}
}
