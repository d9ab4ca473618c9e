// Hello-world server on Go's net/http for the multiplexing study: GET / answers 200
// "Hello, World!" (text/plain), anything else 404. One port serves HTTP/1.1 (keep-alive,
// pipelining) and HTTP/2 over cleartext with prior knowledge (h2c): Server.Protocols with
// HTTP1 and UnencryptedHTTP2 (Go 1.24+). Up to 250 concurrent streams per connection (the
// default, set explicitly). Run with GOMAXPROCS=1. Usage: hello PORT
package main

import (
	"log"
	"net/http"
	"os"
)

var hello = []byte("Hello, World!")

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: hello PORT")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(hello)
	})
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{
		Addr:      "127.0.0.1:" + os.Args[1],
		Handler:   mux,
		Protocols: &protocols,
		HTTP2:     &http.HTTP2Config{MaxConcurrentStreams: 250},
	}
	log.Fatal(srv.ListenAndServe())
}
