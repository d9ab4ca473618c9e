// The independent echo server of bench/ws.sh: gorilla/websocket, every message echoed back
// with the opcode it came with (text or binary), streamed through NextReader/NextWriter so no
// message is buffered whole or allocated for. Any path upgrades. Usage: echo -addr 127.0.0.1:PORT
package main

import (
	"flag"
	"io"
	"log"
	"net/http"

	"github.com/gorilla/websocket"
)

var upgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
	CheckOrigin:     func(*http.Request) bool { return true },
}

func echo(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	for {
		kind, rd, err := c.NextReader()
		if err != nil {
			return
		}
		wr, err := c.NextWriter(kind)
		if err != nil {
			return
		}
		if _, err := io.Copy(wr, rd); err != nil {
			return
		}
		if err := wr.Close(); err != nil {
			return
		}
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9001", "address to listen on")
	flag.Parse()
	http.HandleFunc("/", echo)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
