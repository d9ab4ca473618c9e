// Command fanout issues N concurrent GETs, one goroutine each (net/http's default client).
// Usage: fanout URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from the first
// goroutine started to the last done, without the process start-up), then
// "ok=<200 responses> crc32=<distinct body CRC-32s>".
package main

import (
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	url := os.Args[1]
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	type result struct {
		status int
		crc    string
	}
	results := make([]result, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := http.Get(url)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return
			}
			results[i] = result{resp.StatusCode, fmt.Sprintf("%08x", crc32.ChecksumIEEE(body))}
		}(i)
	}
	wg.Wait()
	fanoutS := time.Since(start).Seconds()
	ok := 0
	set := map[string]bool{}
	for _, r := range results {
		if r.status == 200 {
			ok++
		}
		if r.crc != "" {
			set[r.crc] = true
		}
	}
	crcs := make([]string, 0, len(set))
	for c := range set {
		crcs = append(crcs, c)
	}
	sort.Strings(crcs)
	fmt.Printf("fanout_s=%.6f\n", fanoutS)
	fmt.Printf("ok=%d crc32=%s\n", ok, strings.Join(crcs, ","))
	if ok != n {
		os.Exit(1)
	}
}
