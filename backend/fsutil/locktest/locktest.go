// Package locktest runs a lock holder as a real second process: the test
// binary itself, re-run on one helper test that takes a lock, prints "held"
// and keeps it until its stdin closes.
package locktest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Hold starts this test binary running only the helper test helperTest,
// with env added, and returns once the helper says "held". Closing the
// returned stdin makes it release the lock and exit; the helper is stopped
// by its pid when the test ends.
func Hold(t *testing.T, helperTest string, env ...string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helperTest+"$")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill() // this test's own child, by pid; a no-op once it has exited
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("helper did not take the lock: %q %v", line, err)
	}
	return cmd, stdin
}
