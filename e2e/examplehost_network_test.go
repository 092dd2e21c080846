package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// examples/host's API calls the user's tools and has no authentication; its Host check keeps
// web pages out, not the network, where a client may send "Host: localhost". So it refuses
// to listen where other machines reach it (issue 35, item 6). Before, -http 0.0.0.0:0 served
// anyone on the network who named localhost.
func TestExampleHostRefusesTheNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"weather": {"command": "`+weatherBin+`"}}}`), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // before, it served on
	defer cancel()
	cmd := exec.CommandContext(ctx, hostBin, "-http", "0.0.0.0:0", "-trust")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "listens on this machine's loopback only") || strings.Contains(string(out), "status on ") {
		t.Errorf("-http 0.0.0.0:0: %v\n%s", err, out)
	}
}
