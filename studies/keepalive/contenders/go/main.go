// Command keepalive performs 50 GETs per iteration, repeated for a fixed time, sequentially or
// from goroutines, with or without keep-alive (net/http).
//
// Usage: keepalive URL SECONDS MODE CONCURRENCY
// URL is .../bytes/{size}: every odd request of an iteration adds ?chunked=1, and every body is
// checked against the server's pattern (byte i = i % 251); or .../sleep/{ms} (the latency-bound
// variant): every body must be "slept {ms} ms\n". MODE: seq-close, seq-keepalive,
// goroutines-close, goroutines-keepalive. Prints "iterations=N requests=M bad=B seconds=S
// iterations_per_s=X requests_per_s=Y".
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const perIteration = 50

// expectation gives the body every response must have, and whether odd requests ask for chunked
// framing: the /bytes pattern, or the text of /sleep.
func expectation(url string) ([]byte, bool, error) {
	i := strings.LastIndex(url, "/")
	n, err := strconv.Atoi(url[i+1:])
	switch {
	case err == nil && strings.HasSuffix(url[:i], "/bytes"):
		body := make([]byte, n)
		for j := range body {
			body[j] = byte(j % 251)
		}
		return body, true, nil
	case err == nil && strings.HasSuffix(url[:i], "/sleep"):
		return []byte(fmt.Sprintf("slept %d ms\n", n)), false, nil
	}
	return nil, false, fmt.Errorf("unsupported URL %s: .../bytes/{size} or .../sleep/{ms}", url)
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: keepalive URL SECONDS MODE CONCURRENCY")
		os.Exit(2)
	}
	url, mode := os.Args[1], os.Args[3]
	seconds, err1 := strconv.ParseFloat(os.Args[2], 64)
	conc, err2 := strconv.Atoi(os.Args[4])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "bad arguments")
		os.Exit(2)
	}
	expected, chunkOdd, err := expectation(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	keepalive := strings.HasSuffix(mode, "-keepalive")
	concurrent := strings.HasPrefix(mode, "goroutines-")
	if !keepalive && !strings.HasSuffix(mode, "-close") || !concurrent && !strings.HasPrefix(mode, "seq-") {
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
	client := &http.Client{Transport: &http.Transport{
		DisableKeepAlives:   !keepalive,
		MaxIdleConnsPerHost: conc, // the default (2) would close most connections of a burst
	}}
	var bad atomic.Int64
	get := func(u string) {
		resp, err := client.Get(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			bad.Add(1)
			return
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || !bytes.Equal(body, expected) {
			bad.Add(1)
		}
	}
	urls := make([]string, perIteration)
	for i := range urls {
		urls[i] = url
		if chunkOdd && i%2 == 1 {
			urls[i] += "?chunked=1"
		}
	}
	iterations := 0
	start := time.Now()
	for time.Since(start).Seconds() < seconds {
		if concurrent {
			// conc workers share the iteration's 50 requests.
			var next atomic.Int64
			var wg sync.WaitGroup
			for w := 0; w < conc; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1) - 1; i < perIteration; i = next.Add(1) - 1 {
						get(urls[i])
					}
				}()
			}
			wg.Wait()
		} else {
			for _, u := range urls {
				get(u)
			}
		}
		iterations++
	}
	elapsed := time.Since(start).Seconds()
	n := iterations * perIteration
	fmt.Printf("iterations=%d requests=%d bad=%d seconds=%.3f iterations_per_s=%.2f requests_per_s=%.1f\n",
		iterations, n, bad.Load(), elapsed, float64(iterations)/elapsed, float64(n)/elapsed)
	if bad.Load() != 0 {
		os.Exit(1)
	}
}
