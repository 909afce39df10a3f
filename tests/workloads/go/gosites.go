// gosites: two Go functions block in a read on a socket at known lines,
// for known times: the call sites `record --stacks` must name with their
// Go functions, files and lines (tests/live/test_go_stacks_live.c).
//
//	gosites [-r ROUNDS=4] [-a HOLD_A_MS=60] [-b HOLD_B_MS=30] [--no-wait]
//
// In each round a goroutine calls siteAlpha, which reads one byte from a
// blocking socket (syscall.Read: the goroutine's thread sleeps in read()
// on its own stack); main writes the byte HOLD_A_MS later.  The same for
// siteBeta with HOLD_B_MS.  Both are never inlined (syscall.Read is, into
// them).  Prints (tests/workloads/README.md):
//
//	pid=PID
//	socket role=reader fd=F
//	ready            (then reads one line from stdin unless --no-wait)
//	site name=alpha func=main.siteAlpha line=N file=gosites.go  (the read's line)
//	site name=beta func=main.siteBeta line=N file=gosites.go
//	done rounds=R alpha_wait_us=U beta_wait_us=U
//
// (U: each function's own measure of its total time in the read).
// Standard library only.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

var lineA, lineB int

//go:noinline
func siteAlpha(fd int, b []byte) time.Duration {
	t0 := time.Now()
	_, _, lineA, _ = runtime.Caller(0); syscall.Read(fd, b)
	return time.Since(t0)
}

//go:noinline
func siteBeta(fd int, b []byte) time.Duration {
	t0 := time.Now()
	_, _, lineB, _ = runtime.Caller(0); syscall.Read(fd, b)
	return time.Since(t0)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gosites [-r ROUNDS=4] [-a HOLD_A_MS=60] [-b HOLD_B_MS=30] [--no-wait]")
	os.Exit(2)
}

func main() {
	rounds, holdA, holdB, wait := 4, 60, 30, true
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		num := func(lo, hi int) int {
			if i+1 >= len(args) {
				usage()
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < lo || n > hi {
				usage()
			}
			return n
		}
		switch args[i] {
		case "-r":
			rounds = num(1, 1000)
		case "-a":
			holdA = num(1, 10000)
		case "-b":
			holdB = num(1, 10000)
		case "--no-wait":
			wait = false
		default:
			usage()
		}
	}
	p, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosites: socketpair:", err)
		os.Exit(1)
	}
	fmt.Printf("pid=%d\nsocket role=reader fd=%d\nready\n", os.Getpid(), p[0])
	if wait {
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	var wa, wb time.Duration
	done := make(chan time.Duration)
	for r := 0; r < rounds; r++ {
		go func() { done <- siteAlpha(p[0], make([]byte, 1)) }()
		time.Sleep(time.Duration(holdA) * time.Millisecond)
		syscall.Write(p[1], []byte{1})
		wa += <-done
		go func() { done <- siteBeta(p[0], make([]byte, 1)) }()
		time.Sleep(time.Duration(holdB) * time.Millisecond)
		syscall.Write(p[1], []byte{1})
		wb += <-done
	}
	fmt.Printf("site name=alpha func=main.siteAlpha line=%d file=gosites.go\n", lineA)
	fmt.Printf("site name=beta func=main.siteBeta line=%d file=gosites.go\n", lineB)
	fmt.Printf("done rounds=%d alpha_wait_us=%d beta_wait_us=%d\n", rounds, wa.Microseconds(), wb.Microseconds())
}
