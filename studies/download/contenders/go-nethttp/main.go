// Command download GETs a URL with net/http and streams the body with io.Copy into the output
// file (or /dev/null) and a CRC-32 at once (io.MultiWriter), then prints bytes and checksum.
package main

import (
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
)

func main() {
	url, out, sink := os.Args[1], os.Args[2], os.Args[3]
	dest := "/dev/null"
	if sink == "file" {
		dest = out
	}
	resp, err := http.Get(url)
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fail(fmt.Errorf("status %s", resp.Status))
	}
	f, err := os.Create(dest)
	if err != nil {
		fail(err)
	}
	h := crc32.NewIEEE()
	n, err := io.Copy(io.MultiWriter(f, h), resp.Body)
	if err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
	fmt.Printf("bytes=%d crc32=%08x\n", n, h.Sum32())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "download:", err)
	os.Exit(1)
}
