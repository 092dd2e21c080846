package main

// question is a question in words about Go's standard library, with the chunks that answer
// it: "path:Name", the path from GOROOT/src and the name the chunker gives (Type.Method for
// a method), judged by reading the code of Go 1.26. subset marks the questions of the pinned
// subset, whose packages the test copies (subsetDirs).
type question struct {
	text     string
	relevant []string
	subset   bool
}

// judgedOn is the Go release the answers were judged on; the evaluation says when it runs on
// another.
const judgedOn = "go1.26"

var questions = []question{
	// The three questions of issue 39, which BM25 alone answered one of.
	{"where is the HTTP/2 frame size limit enforced", []string{
		"net/http/h2_bundle.go:http2Framer.ReadFrameHeader", "net/http/h2_bundle.go:http2Framer.ReadFrame",
		"net/http/h2_bundle.go:http2Framer.SetMaxReadFrameSize", "net/http/h2_bundle.go:http2Framer.endWrite"}, true},
	{"how does the TLS client verify the server certificate hostname", []string{
		"crypto/tls/handshake_client.go:Conn.verifyServerCertificate", "crypto/x509/verify.go:Certificate.VerifyHostname",
		"crypto/x509/verify.go:matchHostnames", "crypto/tls/conn.go:Conn.VerifyHostname", "crypto/x509/verify.go:Certificate.Verify"}, true},
	{"where is the gzip header magic number checked", []string{"compress/gzip/gunzip.go:Reader.readHeader"}, true},

	{"how does the HTTP client follow redirects and when does it stop", []string{
		"net/http/client.go:Client.do", "net/http/client.go:redirectBehavior", "net/http/client.go:defaultCheckRedirect",
		"net/http/client.go:Client.checkRedirect"}, true},
	{"where does the JSON decoder reject unknown fields", []string{
		"encoding/json/decode.go:decodeState.object", "encoding/json/stream.go:Decoder.DisallowUnknownFields"}, true},
	{"how is a read deadline on a network connection implemented", []string{
		"internal/poll/fd_poll_runtime.go:setDeadlineImpl", "internal/poll/fd_poll_runtime.go:FD.SetReadDeadline",
		"net/net.go:conn.SetReadDeadline"}, true},
	{"parse a duration string like 1h30m", []string{"time/format.go:ParseDuration"}, true},
	{"which sorting algorithm does sort use: pattern-defeating quicksort", []string{
		"sort/zsortinterface.go:pdqsort", "slices/zsortordered.go:pdqsortOrdered"}, true},
	{"what limits the size of HTTP request headers the server accepts", []string{
		"net/http/server.go:DefaultMaxHeaderBytes", "net/http/server.go:Server.maxHeaderBytes", "net/http/server.go:conn.readRequest"}, true},
	{"how are cookies parsed from a request", []string{
		"net/http/cookie.go:readCookies", "net/http/request.go:Request.Cookies", "net/http/cookie.go:ParseCookie"}, true},
	{"how does a mutex keep waiting goroutines from starving", []string{
		"internal/sync/mutex.go:Mutex.lockSlow", "internal/sync/mutex.go:Mutex.unlockSlow"}, true},
	{"decode a URL query string into key value pairs", []string{
		"net/url/url.go:ParseQuery", "net/url/url.go:parseQuery", "net/url/url.go:URL.Query"}, true},
	{"how does base64 decoding report corrupt input and bad padding", []string{
		"encoding/base64/base64.go:Encoding.decodeQuantum", "encoding/base64/base64.go:CorruptInputError",
		"encoding/base64/base64.go:Encoding.Decode"}, true},
	{"compute a SHA-256 checksum of some bytes", []string{
		"crypto/sha256/sha256.go:Sum256", "crypto/sha256/sha256.go:New", "crypto/internal/fips140/sha256/sha256.go:Digest.Write"}, false},
	{"how does the garbage collector decide when to start the next cycle", []string{
		"runtime/mgcpacer.go:gcControllerState.trigger", "runtime/mgcpacer.go:gcControllerState.heapGoal",
		"runtime/mgc.go:gcTrigger.test"}, false},
	{"expand environment variables in a string", []string{"os/env.go:Expand", "os/env.go:ExpandEnv"}, true},
	{"when does the regexp engine use backtracking instead of the NFA", []string{
		"regexp/backtrack.go:shouldBacktrack", "regexp/exec.go:Regexp.doExecute", "regexp/backtrack.go:Regexp.backtrack"}, true},
	{"how is a running goroutine preempted asynchronously with a signal", []string{
		"runtime/signal_unix.go:doSigPreempt", "runtime/preempt.go:wantAsyncPreempt", "runtime/signal_unix.go:preemptM",
		"runtime/preempt.go:isAsyncSafePoint"}, false},
	{"guess the content type of a response from its first bytes", []string{
		"net/http/sniff.go:DetectContentType", "net/http/server.go:chunkWriter.writeHeader"}, true},
	{"copy from a reader to a writer using ReaderFrom or WriterTo when available", []string{
		"io/io.go:copyBuffer", "io/io.go:Copy"}, true},
	{"clean a file path of dot and dot-dot elements", []string{"path/filepath/path.go:Clean", "path/path.go:Clean"}, true},
	{"check whether a string is valid UTF-8", []string{"unicode/utf8/utf8.go:Valid", "unicode/utf8/utf8.go:ValidString"}, true},
	{"shut down the HTTP server gracefully, waiting for active connections", []string{
		"net/http/server.go:Server.Shutdown", "net/http/server.go:Server.closeIdleConns"}, true},
	{"where does the TLS server pick the protocol version from the client hello", []string{
		"crypto/tls/common.go:Config.mutualVersion", "crypto/tls/handshake_server.go:Conn.readClientHello",
		"crypto/tls/common.go:Config.supportedVersions"}, true},
	{"how does cancelling a context cancel its children", []string{
		"context/context.go:cancelCtx.propagateCancel", "context/context.go:cancelCtx.cancel"}, true},
	{"where is the central directory of a zip archive read", []string{
		"archive/zip/reader.go:Reader.init", "archive/zip/reader.go:readDirectoryEnd", "archive/zip/reader.go:readDirectoryHeader"}, true},
	{"look up a key in a struct field tag", []string{"reflect/type.go:StructTag.Lookup", "reflect/type.go:StructTag.Get"}, true},
	{"keep idle HTTP connections to reuse them for later requests", []string{
		"net/http/transport.go:Transport.tryPutIdleConn", "net/http/transport.go:Transport.queueForIdleConn",
		"net/http/transport.go:Transport.getConn"}, true},
}

// subsetDirs are the package directories (their files, not their subdirectories) the test
// copies from GOROOT/src: those the subset's questions are about.
var subsetDirs = []string{
	"archive/zip", "compress/gzip", "context", "crypto/tls", "crypto/x509", "encoding/base64", "encoding/json",
	"internal/poll", "internal/sync", "io", "net", "net/http", "net/url", "os", "path", "path/filepath",
	"reflect", "regexp", "slices", "sort", "time", "unicode/utf8",
}
