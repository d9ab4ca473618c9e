// Ping-pong server on Go's net/http: POST / with body "ping" answers "pong", anything else 400.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
)

func main() {
	port := flag.String("port", "8080", "port to listen on (127.0.0.1)")
	flag.Parse()
	pong := []byte("pong")
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// A ping is 4 bytes: read at most one more to tell "ping" from a longer body.
		body, err := io.ReadAll(io.LimitReader(r.Body, 5))
		if r.Method != http.MethodPost || r.URL.Path != "/" || err != nil || string(body) != "ping" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(pong)
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+*port, nil))
}
