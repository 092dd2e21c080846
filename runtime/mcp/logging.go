package mcp

import (
	"context"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// LogLevel is the severity of a log message, as syslog (RFC 5424) names them.
type LogLevel string

// The levels, least severe first.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

var levels = []LogLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}

func (l LogLevel) rank() int { return slices.Index(levels, l) }

// setLevel answers logging/setLevel: from now on, log messages below the level are not sent.
func setLevel(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	level, ok := readSetLevelParams(params)
	if !ok || level.rank() < 0 {
		return nil, invalidParams("logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	ss := req.client.(*session) // a stateful method: its client is a session
	ss.mu.Lock()
	ss.level = level
	ss.mu.Unlock()
	return []byte("{}"), nil
}

// Log sends a log message about the request ctx belongs to, if its level is at or above the
// level the client set (all messages are sent until it sets one). data is anything that
// encodes as JSON, usually a string; logger names the source and may be empty.
func Log(ctx context.Context, level LogLevel, logger string, data any) {
	r := RequestFrom(ctx)
	if r == nil {
		return
	}
	if threshold := r.client.logLevel(); threshold == "" || level.rank() < threshold.rank() {
		return
	}
	var e jsonwire.Encoder
	(&LogMessage{Level: level, Logger: logger}).encode(&e, data)
	r.notify(ctx, notificationMessage, e.Bytes())
}

// The codec of logging/setLevel's params, {"level": ...}: the client writes them, the
// server reads them (ok false for params that are not such an object).

func appendSetLevelParams(level LogLevel) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("level")
	e.String(string(level))
	e.ObjectEnd()
	return e.Bytes()
}

func readSetLevelParams(params []byte) (level LogLevel, ok bool) {
	d := jsonwire.NewDecoder(params)
	for key := range d.Members {
		if string(key) == "level" {
			level = LogLevel(readString(d))
		} else {
			d.Skip()
		}
	}
	d.Finish()
	return level, !d.Failed()
}
