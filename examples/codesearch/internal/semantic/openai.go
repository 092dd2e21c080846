package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Embedder turns texts into vectors.
type Embedder interface {
	// Name says which model, where, for results and for the key of stored vectors.
	Name() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// OpenAI is an embedding model behind an OpenAI-compatible /v1/embeddings endpoint:
// OpenAI's, Ollama's, vLLM's, llama.cpp's server, LM Studio, text-embeddings-inference.
type OpenAI struct {
	// URL is the API's base URL, such as http://localhost:11434/v1, or the full URL of
	// its embeddings endpoint.
	URL   string
	Model string
	// APIKey is sent as a bearer token when set.
	APIKey string
	Client *http.Client
}

// Name identifies the model and the endpoint.
func (o *OpenAI) Name() string { return o.Model + " at " + o.endpoint() }

func (o *OpenAI) endpoint() string {
	u := strings.TrimRight(o.URL, "/")
	if strings.HasSuffix(u, "/embeddings") {
		return u
	}
	return u + "/embeddings"
}

// maxErrorBody bounds what an error answer's body contributes to the error.
const maxErrorBody = 512

// Embed asks the endpoint for the vectors of texts, in one request.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{o.Model, texts})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embedding endpoint %s: %v", o.endpoint(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embedding endpoint %s cannot be reached: %v", o.endpoint(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, fmt.Errorf("embedding endpoint %s answered %s: %s", o.endpoint(), resp.Status, strings.TrimSpace(string(msg)))
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 256<<20)).Decode(&out); err != nil {
		return nil, fmt.Errorf("embedding endpoint %s answered with JSON that is not an embeddings response: %v", o.endpoint(), err)
	}
	if len(out.Data) != len(texts) {
		return nil, fmt.Errorf("embedding endpoint %s answered %d embeddings for %d inputs", o.endpoint(), len(out.Data), len(texts))
	}
	vecs := make([][]float32, len(texts))
	dim := -1
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("embedding endpoint %s answered an embedding with index %d, for %d inputs", o.endpoint(), d.Index, len(texts))
		}
		if dim >= 0 && len(d.Embedding) != dim || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding endpoint %s answered embeddings of different lengths", o.endpoint())
		}
		dim = len(d.Embedding)
		vecs[d.Index] = normalize(d.Embedding)
	}
	return vecs, nil
}

// normalize scales v to length 1, so that a dot product is the cosine similarity.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}
