// Command memhost-embedder-bm25 is memhost's default embedder plugin: a
// deterministic, corpus-free BM25-style hashing embedder (see bm25 and
// README.md). The host starts it; it is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/memhost/memhost/plugins/embed-bm25/bm25"
	"github.com/memhost/memhost/sdk/embedder"
)

func main() {
	if err := embedder.Serve(bm25.New()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
