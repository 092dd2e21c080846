package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Test media, from the conformance suite's reference servers: a 1×1 PNG and a tiny WAV.
var (
	pngPixel = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	wavSound = mustBase64("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// SimpleText returns a fixed text.
//
//mcp:tool test_simple_text readonly
func SimpleText() string {
	return "This is a simple text response for testing."
}

// ImageContent returns a 1×1 PNG image.
//
//mcp:tool test_image_content readonly
func ImageContent() mcp.Image {
	return mcp.Image{Data: pngPixel, MIMEType: "image/png"}
}

// AudioContent returns a short WAV sound.
//
//mcp:tool test_audio_content readonly
func AudioContent() mcp.Audio {
	return mcp.Audio{Data: wavSound, MIMEType: "audio/wav"}
}

// EmbeddedResource returns a text resource embedded in the result.
//
//mcp:tool test_embedded_resource readonly
func EmbeddedResource() mcp.EmbeddedResource {
	return mcp.EmbeddedResource{Resource: mcp.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
	}}
}

// MultipleContentTypes returns text, an image and an embedded resource together.
//
//mcp:tool test_multiple_content_types readonly
func MultipleContentTypes() []mcp.Content {
	return []mcp.Content{
		mcp.Text{Text: "Multiple content types test:"},
		mcp.Image{Data: pngPixel, MIMEType: "image/png"},
		mcp.EmbeddedResource{Resource: mcp.ResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
		}},
	}
}

// ErrorHandling always fails: its result is an error result.
//
//mcp:tool test_error_handling
func ErrorHandling() error {
	//lint:ignore ST1005 the text is the conformance suite's fixture, a sentence shown as is
	return errors.New("This tool intentionally returns an error for testing")
}

// ToolWithLogging sends three log messages while it runs.
//
//mcp:tool test_tool_with_logging
func ToolWithLogging(ctx context.Context) (string, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
		}
		mcp.Log(ctx, mcp.LevelInfo, "everything", msg)
	}
	return "Tool with logging executed successfully", nil
}

// ToolWithProgress reports progress at 0, 50 and 100 of 100 while it runs.
//
//mcp:tool test_tool_with_progress
func ToolWithProgress(ctx context.Context) (string, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
		}
		mcp.Progress(ctx, p, 100, fmt.Sprintf("step %d of 3", i+1))
	}
	return "Progress reported: 0, 50 and 100 of 100", nil
}

// SlowInput says how long test_slow works.
type SlowInput struct {
	// Milliseconds to work for.
	Milliseconds int `json:"milliseconds" jsonschema:"minimum=0,maximum=600000"`
}

// Slow works for a while, reporting progress every 100 ms; it stops early when cancelled.
//
//mcp:tool test_slow readonly
func Slow(ctx context.Context, in SlowInput) (string, error) {
	total := time.Duration(in.Milliseconds) * time.Millisecond
	for done := time.Duration(0); done < total; done += 100 * time.Millisecond {
		mcp.Progress(ctx, float64(done.Milliseconds()), float64(total.Milliseconds()), "")
		if err := sleep(ctx, min(100*time.Millisecond, total-done)); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("worked for %v", total), nil
}

// Reconnection closes the connection of its SSE stream, then finishes: a client resumes the
// stream (GET with Last-Event-ID) to get the result. Over stdio it just finishes.
//
//mcp:tool test_reconnection
func Reconnection(ctx context.Context) (string, error) {
	mcp.CloseSSEStream(ctx)
	if err := sleep(ctx, 100*time.Millisecond); err != nil {
		return "", err
	}
	return "Reconnection test completed", nil
}

// sleep waits for d, or for ctx to end.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
