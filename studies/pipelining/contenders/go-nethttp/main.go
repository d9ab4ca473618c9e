// Hello-world server on Go's net/http for the pipelining study: GET / answers 200
// "Hello, World!" (text/plain), anything else 404. Usage: hello PORT
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
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(hello)
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], nil))
}
