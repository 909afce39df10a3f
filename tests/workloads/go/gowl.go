// gowl: Go workloads for locktrace's Go runtime model (tests/test_go_live.c).
//
//	gowl deadlock OUT  two goroutines deadlocked on muA/muB in opposite order,
//	                   an HTTP server on 127.0.0.1 whose /a handler locks muA,
//	                   two requests to it queued on muA
//	gowl leak N OUT    N goroutines blocked forever receiving on one channel
//	gowl pipeleak N OUT  the same, their one sender reading first a pipe whose
//	                   write end only a child (sleep 600) holds
//	gowl idle OUT      a healthy idle HTTP server
//	gowl many N OUT    N goroutines parked in select on their own channels
//	gowl rwstarve OUT  2 readers hold rw (blocked on a channel), a writer waits
//	                   for them, 2 later readers wait behind the writer
//	gowl holders OUT   a cycle through two mutexes and a channel: refresher
//	                   holds cacheMu and sends on updates, whose one receiver
//	                   (consumer) waits for statsMu, held by reporter, which
//	                   waits for cacheMu; and cfgReloader holds cfgMu in a
//	                   blocking read(2) of a pipe whose write end only a child
//	                   (sleep 600) holds, 3 cfgUsers waiting for cfgMu
//	gowl chancycle OUT a deadlock through channels only: chanA does <-c1 then
//	                   c2 <- 1, chanB <-c2 then c1 <- 1; main blocks in a
//	                   listener's Accept, so the runtime sees no deadlock
//	gowl chanrange OUT the same through a range loop: parser sends on
//	                   results then ranges over acks, writer ranges over
//	                   results sending on acks; main in Accept
//	gowl chanfed OUT   not a deadlock: chanWorker waits on jobs, whose one
//	                   sender (chanFeeder) is blocked reading a TCP socket
//	                   whose peer (another goroutine) has sent nothing
//	gowl chanheap OUT  the chancycle deadlock on channels made in main and
//	                   passed as arguments (heap objects, no variable)
//	gowl netholder OUT netHolder holds muNet while reading a TCP connection
//	                   whose peer end only a child (sleep 600) holds; two
//	                   netUsers wait for muNet
//	gowl signals N OUT sigWaiter receives on a channel signal.Notify
//	                   registered for SIGUSR1 and SIGTERM, the (N/3+1)th of N
//	                   registered (N > 8 grows the map past one bucket or
//	                   group); for N >= 10 also stoppedWaiter, on one whose
//	                   signal.Stop ran: nothing can send on it any more
//	gowl chanloop OUT  loopA receives from c3 at its loop's head and sends on
//	                   c4, loopB sends twice on c3 then receives from c4:
//	                   both block in a send; main in Accept
//
// Once everything is in place it writes OUT: "addr NAME 0xADDR" lines, then
// the program's own runtime.Stack(all) output, the ground truth of the tests;
// then it prints "ready" on stdout.
// Standard library only.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var (
	muA, muB sync.Mutex
	leakCh   = make(chan int)
	rw       sync.RWMutex
	rwBlock  = make(chan int)
	holding  sync.WaitGroup
	jobs     sync.WaitGroup

	cacheMu, statsMu, cfgMu sync.Mutex
	updates                 = make(chan int)

	c1, c2   = make(chan int), make(chan int)
	results  = make(chan int)
	acks     = make(chan int)
	feedJobs = make(chan int)
	c3, c4   = make(chan int), make(chan int)
	muNet    sync.Mutex
)

//go:noinline
func loopA() {
	for {
		v := <-c3
		c4 <- v // loopB sends on c3 again first
	}
}

//go:noinline
func loopB() {
	c3 <- 1
	c3 <- 2
	<-c4
}

//go:noinline
func netHolder(c net.Conn) {
	muNet.Lock()
	buf := make([]byte, 8)
	c.Read(buf) // the peer (a child asleep) never writes
	muNet.Unlock()
}

//go:noinline
func netUser() {
	muNet.Lock()
	muNet.Unlock()
}

//go:noinline
func chanA() {
	<-c1
	c2 <- 1
}

//go:noinline
func chanB() {
	<-c2
	c1 <- 1
}

//go:noinline
func parser() {
	for i := 0; i < 10; i++ {
		results <- i
	}
	for range acks {
	}
}

//go:noinline
func writer() {
	for r := range results {
		acks <- r
	}
}

//go:noinline
func chanFeeder(c net.Conn) {
	buf := make([]byte, 8)
	k, _ := c.Read(buf) // the peer never writes
	feedJobs <- k
}

//go:noinline
func chanWorker() {
	for j := range feedJobs {
		fmt.Println(j)
	}
}

//go:noinline
func heapA(a, b chan int) {
	<-a
	b <- 1
}

//go:noinline
func heapB(a, b chan int) {
	<-b
	a <- 1
}

// startHeap starts heapA and heapB on two channels made here: once it
// returns, no variable and no other goroutine refers to them
//
//go:noinline
func startHeap() string {
	a, b := make(chan int), make(chan int)
	go heapA(a, b)
	go heapB(a, b)
	return fmt.Sprintf("addr a %p\naddr b %p\n", a, b)
}

// listen: a listener main's goroutine blocks in Accept on (the runtime's
// deadlock check then sees a goroutine that may yet run)
func listen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gowl:", err)
		os.Exit(1)
	}
	return ln
}

func acceptForever(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
	}
}

//go:noinline
func refresher() {
	cacheMu.Lock()
	time.Sleep(100 * time.Millisecond)
	updates <- 1 // its one receiver waits for statsMu
	cacheMu.Unlock()
}

//go:noinline
func consumer() {
	statsMu.Lock() // reporter holds it
	<-updates
	statsMu.Unlock()
}

//go:noinline
func reporter() {
	statsMu.Lock()
	time.Sleep(200 * time.Millisecond)
	cacheMu.Lock() // refresher holds it
	cacheMu.Unlock()
	statsMu.Unlock()
}

//go:noinline
func cfgReloader(fd int) {
	cfgMu.Lock()
	buf := make([]byte, 8)
	syscall.Read(fd, buf) // a blocking read(2): the goroutine keeps its thread
	cfgMu.Unlock()
}

//go:noinline
func cfgUser() {
	cfgMu.Lock()
	cfgMu.Unlock()
}

//go:noinline
func awaitJobs() {
	jobs.Wait() // one Done() of two: never returns
}

//go:noinline
func lockAB() {
	muA.Lock()
	holding.Done()
	holding.Wait()
	muB.Lock() // never returns
	muB.Unlock()
	muA.Unlock()
}

//go:noinline
func lockBA() {
	muB.Lock()
	holding.Done()
	holding.Wait()
	muA.Lock() // never returns
	muA.Unlock()
	muB.Unlock()
}

//go:noinline
func rwReader() {
	rw.RLock()
	<-rwBlock // holds the read lock forever
	rw.RUnlock()
}

//go:noinline
func rwWriter() {
	rw.Lock()
	rw.Unlock()
}

//go:noinline
func rwLateReader() {
	rw.RLock()
	rw.RUnlock()
}

func handleA(w http.ResponseWriter, r *http.Request) {
	muA.Lock()
	fmt.Fprintln(w, "a")
	muA.Unlock()
}

//go:noinline
func leaker(i int) {
	v := <-leakCh
	fmt.Println(v, i)
}

//go:noinline
func pipeSender(r *os.File) {
	buf := make([]byte, 8)
	k, _ := r.Read(buf)
	leakCh <- k
}

//go:noinline
func sigWaiter(c chan os.Signal) {
	s := <-c
	fmt.Println("signal", s)
}

//go:noinline
func stoppedWaiter(c chan os.Signal) {
	s := <-c
	fmt.Println("signal", s)
}

// the channel made here: once this returns, only stoppedWaiter refers to it
//
//go:noinline
func startStopped() string {
	stopped := make(chan os.Signal, 1)
	signal.Notify(stopped, syscall.SIGHUP)
	signal.Stop(stopped)
	go stoppedWaiter(stopped)
	return fmt.Sprintf("addr stoppedCh %p\n", stopped)
}

//go:noinline
func parked(c chan int) {
	select {
	case <-c:
	case <-leakCh:
	}
}

func serve() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gowl:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/a", handleA)
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	go http.Serve(ln, mux)
	return ln.Addr().String()
}

func get(url string) {
	resp, err := http.Get(url)
	if err == nil {
		resp.Body.Close()
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: gowl deadlock|idle|rwstarve|wgwait|holders OUT | gowl leak|many|pipeleak N OUT")
		os.Exit(2)
	}
	out := os.Args[len(os.Args)-1]
	var extra string
	switch os.Args[1] {
	case "deadlock":
		addr := serve()
		holding.Add(2)
		go lockAB()
		go lockBA()
		time.Sleep(200 * time.Millisecond)
		go get("http://" + addr + "/a")
		go get("http://" + addr + "/a")
		extra = fmt.Sprintf("addr muA %p\naddr muB %p\nlisten %s\n", &muA, &muB, addr)
	case "rwstarve":
		go rwReader()
		go rwReader()
		time.Sleep(100 * time.Millisecond)
		go rwWriter()
		time.Sleep(100 * time.Millisecond)
		go rwLateReader()
		go rwLateReader()
		extra = fmt.Sprintf("addr rw %p\n", &rw)
	case "holders":
		go reporter()
		go refresher()
		time.Sleep(50 * time.Millisecond)
		go consumer()
		var p [2]int
		if err := syscall.Pipe(p[:]); err != nil { // blocking fds, not the netpoller's
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		cmd := exec.Command("sleep", "600")
		wr := os.NewFile(uintptr(p[1]), "pipe-w")
		cmd.Stdout = wr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		wr.Close() // only the child holds the write end
		go cfgReloader(p[0])
		time.Sleep(50 * time.Millisecond)
		for i := 0; i < 3; i++ {
			go cfgUser()
		}
		extra = fmt.Sprintf("child %d\nreadfd %d\n", cmd.Process.Pid, p[0])
	case "chancycle":
		ln := listen()
		go acceptForever(ln)
		go chanA()
		go chanB()
		extra = fmt.Sprintf("addr c1 %p\naddr c2 %p\n", c1, c2)
	case "chanloop":
		ln := listen()
		go acceptForever(ln)
		go loopA()
		go loopB()
		extra = fmt.Sprintf("addr c3 %p\naddr c4 %p\n", c3, c4)
	case "chanrange":
		ln := listen()
		go acceptForever(ln)
		go parser()
		go writer()
		extra = fmt.Sprintf("addr results %p\naddr acks %p\n", results, acks)
	case "chanfed":
		ln := listen()
		go func() {
			c, err := ln.Accept()
			if err == nil {
				time.Sleep(time.Hour) // holds the connection, writes nothing
				c.Close()
			}
		}()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		go chanFeeder(conn)
		go chanWorker()
		extra = fmt.Sprintf("addr feedJobs %p\nlocal %s\n", feedJobs, conn.LocalAddr())
	case "chanheap":
		ln := listen()
		go acceptForever(ln)
		extra = startHeap()
	case "netholder":
		ln := listen()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		peer, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		pf, err := peer.(*net.TCPConn).File() // a blocking dup for the child
		if err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		cmd := exec.Command("sleep", "600")
		cmd.Stdin = pf
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		pf.Close()
		peer.Close() // only the child holds the peer end
		go netHolder(conn)
		time.Sleep(100 * time.Millisecond)
		go netUser()
		go netUser()
		extra = fmt.Sprintf("child %d\nlocal %s\npeer %s\n", cmd.Process.Pid, conn.LocalAddr(),
			conn.RemoteAddr())
	case "wgwait":
		jobs.Add(2)
		go jobs.Done()
		go awaitJobs()
		extra = fmt.Sprintf("addr jobs %p\n", &jobs)
	case "idle":
		addr := serve()
		get("http://" + addr + "/ok")
		extra = fmt.Sprintf("listen %s\n", addr)
	case "leak", "many":
		n, _ := strconv.Atoi(os.Args[2])
		for i := 0; i < n; i++ {
			if os.Args[1] == "leak" {
				go leaker(i)
			} else {
				go parked(make(chan int))
			}
		}
		extra = fmt.Sprintf("addr leakCh %p\n", leakCh)
	case "signals":
		n, _ := strconv.Atoi(os.Args[2])
		var sigCh chan os.Signal
		for i := 0; i < n; i++ {
			c := make(chan os.Signal, 1)
			if i == n/3 {
				sigCh = c
				signal.Notify(c, syscall.SIGUSR1, syscall.SIGTERM)
			} else {
				signal.Notify(c, syscall.SIGUSR2)
			}
		}
		go sigWaiter(sigCh)
		extra = fmt.Sprintf("addr sigCh %p\n", sigCh)
		if n >= 10 {
			extra += startStopped()
		}
	case "pipeleak":
		// N leakers on leakCh, whose only sender first reads a pipe
		// that a child (sleep) holds the write end of and never writes
		n, _ := strconv.Atoi(os.Args[2])
		r, w, err := os.Pipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		cmd := exec.Command("sleep", "600")
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "gowl:", err)
			os.Exit(1)
		}
		w.Close()
		for i := 0; i < n; i++ {
			go leaker(i)
		}
		go pipeSender(r)
		extra = fmt.Sprintf("addr leakCh %p\nchild %d\n", leakCh, cmd.Process.Pid)
	default:
		fmt.Fprintln(os.Stderr, "gowl: unknown mode", os.Args[1])
		os.Exit(2)
	}
	time.Sleep(500 * time.Millisecond) // let every goroutine block
	buf := make([]byte, 64<<20)
	n := runtime.Stack(buf, true)
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, append([]byte(extra), buf[:n]...), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gowl:", err)
		os.Exit(1)
	}
	os.Rename(tmp, out)
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
	}
}
