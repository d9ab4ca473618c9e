// Hello-world server on quic-go for the multiplexing study's HTTP/3 comparison (study-h3.toml):
// GET / answers 200 "Hello, World!" (text/plain), anything else 404. One port number serves
// HTTP/1.1 and HTTP/2 over TLS on TCP (net/http, h2 by ALPN) and HTTP/3 on UDP (quic-go's
// http3.Server), with one certificate: the files given, or a self-signed one for localhost,
// 127.0.0.1, ::1 and the emulated network's 10.77.0.1 made at start (the study's load accepts
// any certificate). HTTP/2 allows 250 concurrent streams per connection (net/http's default, set
// explicitly); HTTP/3 allows 100 bidirectional streams (quic-go's default) and the load opens at
// most 100. Run with GOMAXPROCS=1. Usage: hello ADDR [CERT KEY]
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/quic-go/quic-go/http3"
)

var hello = []byte("Hello, World!")

func main() {
	if len(os.Args) != 2 && len(os.Args) != 4 {
		log.Fatal("usage: hello ADDR [CERT KEY]")
	}
	addr := os.Args[1]
	var cert tls.Certificate
	var err error
	if len(os.Args) == 4 {
		cert, err = tls.LoadX509KeyPair(os.Args[2], os.Args[3])
	} else {
		cert, err = selfSigned()
	}
	if err != nil {
		log.Fatal(err)
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
	tlsConf := &tls.Config{Certificates: []tls.Certificate{cert}}
	h3 := &http3.Server{Addr: addr, Handler: mux, TLSConfig: http3.ConfigureTLSConfig(tlsConf)}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	tcp := &http.Server{
		Addr:      addr,
		Handler:   mux,
		TLSConfig: tlsConf.Clone(),
		Protocols: &protocols,
		HTTP2:     &http.HTTP2Config{MaxConcurrentStreams: 250},
	}
	// UDP first, so that the study's TCP readiness probe passing means both are up.
	udp, err := net.ListenPacket("udp", addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(h3.Serve(udp)) }()
	log.Printf("https and h3 on %s", addr)
	log.Fatal(tcp.ListenAndServeTLS("", ""))
}

// selfSigned makes a P-256 key and a certificate for it, signed by itself, valid for a day.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 77, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
