// A Go program hashing in one goroutine: the bottleneck is SHA-256 in that goroutine; the Go
// runtime's other threads (the system monitor, idle Ms, the network poller) wait for work.
//
//	go_hash [seconds]   (default 10)
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"time"
)

func hashChain(block []byte, rounds int) []byte {
	var sum [sha256.Size]byte
	for i := 0; i < rounds; i++ {
		sum = sha256.Sum256(block)
		copy(block, sum[:])
	}
	return sum[:]
}

func main() {
	seconds := 10.0
	if len(os.Args) > 1 {
		if s, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			seconds = s
		}
	}
	end := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	block := make([]byte, 64*1024)
	done := make(chan []byte)
	go func() {
		var last []byte
		for time.Now().Before(end) {
			last = hashChain(block, 16)
		}
		done <- last
	}()
	fmt.Printf("go_hash: %x\n", (<-done)[:8])
}
