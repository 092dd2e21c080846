// Command floor is the lower bound of the whole-process load benchmark: a server that does
// as little as a server answering the benchmark's calls can do. It parses no JSON. It finds
// a request's id by scanning bytes, and answers initialize with a canned copy of
// examples/weather's answer and every other request with a canned copy of examples/weather's
// answer to get_weather {"city":"Oslo"}, with the id spliced in. Messages without an id
// (notifications) get no answer.
//
// Its command line is examples/weather's: no arguments serve newline-delimited JSON-RPC on
// stdin and stdout; --http host:port serves POST /mcp at http://host:port/mcp and prints
// that URL to stderr.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/mcpgen/mcpgen/bench/servers/internal/serve"
)

// The canned answers, split around the id. They are examples/weather's, byte for byte.
const (
	answerPrefix = `{"jsonrpc":"2.0","id":`
	initSuffix   = `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"weather","title":"Weather","version":"1.0.0"},"instructions":"Use get_weather for the current weather and a three-day forecast of a city. The data is sample data."}}`
	callSuffix   = `,"result":{"content":[{"type":"text","text":"{\"city\":\"Oslo\",\"units\":\"metric\",\"temperature\":19,\"conditions\":\"fog\",\"humidity\":33,\"windSpeed\":10,\"forecast\":[{\"day\":\"Wednesday\",\"high\":19,\"low\":12,\"conditions\":\"heavy rain\"},{\"day\":\"Thursday\",\"high\":18,\"low\":13,\"conditions\":\"clear sky\"},{\"day\":\"Friday\",\"high\":18,\"low\":16,\"conditions\":\"partly cloudy\"}]}"}],"structuredContent":{"city":"Oslo","units":"metric","temperature":19,"conditions":"fog","humidity":33,"windSpeed":10,"forecast":[{"day":"Wednesday","high":19,"low":12,"conditions":"heavy rain"},{"day":"Thursday","high":18,"low":13,"conditions":"clear sky"},{"day":"Friday","high":18,"low":16,"conditions":"partly cloudy"}]}}}`
)

var (
	idKey         = []byte(`"id":`)
	initializeKey = []byte(`"method":"initialize"`)
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`host:port`/mcp instead of stdio (port 0 picks a free one)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "floor: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}

	if *httpAddr == "" {
		// The loop below blocks in read(2), which a signal does not interrupt: the signal
		// ends the process. Whatever is unflushed then is for requests read after it came.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			os.Exit(0)
		}()
		if err := serveStdio(os.Stdin, os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve.HTTP(ctx, *httpAddr, http.HandlerFunc(serveMCP), nil); err != nil {
		log.Fatal(err)
	}
}

// serveStdio answers the requests on r until EOF, on one goroutine. Answers are buffered
// and written when no more input is buffered, so that under load one write(2) carries many.
func serveStdio(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	var long []byte // a line longer than br's buffer, gathered
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if len(long) > 0 {
			long = append(long, line...)
			line = long
		}
		if id := requestID(line); id != nil {
			bw.WriteString(answerPrefix)
			bw.Write(id)
			if bytes.Contains(line, initializeKey) {
				bw.WriteString(initSuffix)
			} else {
				bw.WriteString(callSuffix)
			}
			bw.WriteByte('\n')
		}
		long = long[:0]
		if err != nil {
			if ferr := bw.Flush(); ferr != nil {
				return ferr
			}
			if err == io.EOF {
				return nil
			}
			return err
		}
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
}

// requestID returns the value of the message's "id" member as it is written, or nil if the
// message has none (a notification). It scans for the first `"id":` and takes the token up
// to the next ',' or '}', which is right for the messages clients send, not for all JSON.
func requestID(msg []byte) []byte {
	i := bytes.Index(msg, idKey)
	if i < 0 {
		return nil
	}
	rest := msg[i+len(idKey):]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return nil
	}
	id := bytes.TrimSpace(rest[:end])
	if len(id) == 0 || bytes.Equal(id, []byte("null")) {
		return nil
	}
	return id
}

// maxBody bounds the request bodies the HTTP handler reads.
const maxBody = 4 << 20

var (
	sessions    atomic.Uint64
	contentJSON = []string{"application/json"}
)

// serveMCP answers POST /mcp as examples/weather does for the messages the benchmark sends:
// initialize with a session id, a notification with 202 Accepted, any other request with
// the canned tools/call answer. DELETE ends a session (there is nothing to end).
func serveMCP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	id := requestID(body)
	if id == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	suffix := callSuffix
	h := w.Header()
	if bytes.Contains(body, initializeKey) {
		suffix = initSuffix
		h["Mcp-Session-Id"] = []string{"floor-" + strconv.FormatUint(sessions.Add(1), 10)}
	}
	answer := make([]byte, 0, len(answerPrefix)+len(id)+len(suffix))
	answer = append(answer, answerPrefix...)
	answer = append(answer, id...)
	answer = append(answer, suffix...)
	h["Content-Type"] = contentJSON
	h["Content-Length"] = []string{strconv.Itoa(len(answer))}
	w.WriteHeader(http.StatusOK)
	w.Write(answer)
}
