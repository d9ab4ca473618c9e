// Command download is the naive variant: io.ReadAll the whole body into memory, then write it
// to the output file (or /dev/null) and print bytes and CRC-32.
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
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(dest, body, 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("bytes=%d crc32=%08x\n", len(body), crc32.ChecksumIEEE(body))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "download:", err)
	os.Exit(1)
}
