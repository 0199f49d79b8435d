// Command relay is bench/serve/run's floor: the least any gateway on this
// machine can add to a transfer, one more loopback hop with nothing done
// to the bytes. It forwards every connection made to a loopback port to
// the address it is given, socket to socket in the kernel (io.Copy
// between two *net.TCPConn is splice(2) on Linux), and prints the port's
// address on its first line.
//
//	relay TARGET
package main

import (
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: relay TARGET")
		os.Exit(2)
	}
	target := os.Args[1]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "relay:", err)
			os.Exit(1)
		}
		go forward(c.(*net.TCPConn), target)
	}
}

// forward copies c to a new connection to target and back, each way
// until its end, then closes both.
func forward(c *net.TCPConn, target string) {
	defer c.Close()
	nc, err := net.Dial("tcp", target)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return
	}
	t := nc.(*net.TCPConn)
	defer t.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(t, c)
		t.CloseWrite()
		close(done)
	}()
	io.Copy(c, t)
	c.CloseWrite()
	<-done
}
