// Package loopbacktest finds loopback addresses for tests.
package loopbacktest

import (
	"net"
	"testing"
)

// FreeAddr is a loopback host:port nothing listens on: the port the system
// just gave a listener that is closed again. It serves as an address that
// refuses connections, or one to start a server on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
