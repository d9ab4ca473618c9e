// An independent HTTP/3 server for bench/h3.sh and the interop test
// (crates/engine/tests/it/h3_quicgo.rs): quic-go's http3 package serving the same answer as
// barrage serve's "/" (200, "Hello, World!", text/plain) over QUIC on one UDP port.
//
// Its own log, for exact counts: the first line of stdout is "listening on ADDR" (port 0
// picks one), and on SIGTERM or SIGINT it prints "served N requests" (every request whose
// handler ran) and exits 0.
// Without -cert/-key it makes a self-signed certificate for 127.0.0.1 and localhost.
// GOMAXPROCS comes from the environment (the bench sets 1, as the server is pinned to one CPU).
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go/http3"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4433", "UDP address to serve HTTP/3 on (port 0 picks one)")
	cert := flag.String("cert", "", "certificate chain, PEM (none: a self-signed one)")
	key := flag.String("key", "", "private key, PEM")
	flag.Parse()

	var tlsCert tls.Certificate
	var err error
	if *cert != "" {
		tlsCert, err = tls.LoadX509KeyPair(*cert, *key)
	} else {
		tlsCert, err = selfSigned()
	}
	if err != nil {
		log.Fatalf("certificate: %v", err)
	}

	var served atomic.Uint64
	hello := []byte("Hello, World!")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write(hello)
	})

	conn, err := net.ListenPacket("udp", *addr)
	if err != nil {
		log.Fatalf("listen %s: %v", *addr, err)
	}
	srv := &http3.Server{
		Handler:   mux,
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{tlsCert}}),
	}
	fmt.Printf("listening on %s\n", conn.LocalAddr())
	os.Stdout.Sync()

	done := make(chan os.Signal, 1)
	signal.Notify(done, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		if err := srv.Serve(conn); err != nil && err != http.ErrServerClosed {
			log.Printf("serve: %v", err)
		}
	}()
	<-done
	srv.Close()
	fmt.Printf("served %d requests\n", served.Load())
}

// selfSigned makes an ECDSA P-256 certificate for 127.0.0.1, ::1 and localhost, valid a day.
func selfSigned() (tls.Certificate, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &k.PublicKey, k)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k}, nil
}
