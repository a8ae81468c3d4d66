package sockettest

import (
	"net"
	"path/filepath"
	"testing"
)

func TestPending(t *testing.T) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if Pending(t, ln, false) {
		t.Fatal("a connection was seen before any was made")
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !Pending(t, ln, false) {
		t.Fatal("a connection made was not seen")
	}

	sock := filepath.Join(t.TempDir(), "dgram.sock")
	dg, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Close()
	if Pending(t, dg, true) {
		t.Fatal("a datagram was seen before any was sent")
	}
	w, err := net.Dial("unixgram", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if !Pending(t, dg, true) {
		t.Fatal("a datagram sent was not seen")
	}
}
