// An independent HTTP/3 server for bench/h3.sh: quic-go's http3 package serving the same
// answer as barrage serve's "/" (200, "Hello, World!", text/plain) over QUIC on one UDP port.
// GOMAXPROCS comes from the environment (the bench sets 1, as the server is pinned to one CPU).
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/quic-go/quic-go/http3"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4433", "UDP address to serve HTTP/3 on")
	cert := flag.String("cert", "", "certificate chain, PEM")
	key := flag.String("key", "", "private key, PEM")
	flag.Parse()
	hello := []byte("Hello, World!")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(hello)
	})
	log.Printf("h3 server on %s", *addr)
	log.Fatal(http3.ListenAndServeQUIC(*addr, *cert, *key, mux))
}
