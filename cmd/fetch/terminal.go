package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// The command asks the user (a password, a search's words, a form's
// questions) on its controlling terminal, /dev/tty, not on standard input
// and error: those may carry a document, the URLs of -i - or a mailto:
// message. Each question opens the terminal anew, so nothing holds it
// between questions.

// ttyPath is the name of the process's controlling terminal.
const ttyPath = "/dev/tty"

// maxAnswer is the longest line askLine takes, in bytes.
const maxAnswer = 4096

// errLongAnswer is askLine's error for a line longer than maxAnswer.
var errLongAnswer = errors.New("answer longer than 4096 bytes")

// haveTerminal reports whether the process has a terminal to ask on.
// Without one the command sets no hook that asks, and the drivers' errors
// say what to give instead (--search, a password in netrc, ...).
func haveTerminal() bool {
	tty, err := os.OpenFile(ttyPath, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// noTerminalError is the error of a question asked when the terminal
// cannot be opened (the process lost it after haveTerminal); its text is
// the open's.
type noTerminalError struct{ err error }

func (e *noTerminalError) Error() string { return e.err.Error() }
func (e *noTerminalError) Unwrap() error { return e.err }

// onTerminal opens the terminal and lets ask put one question on it. A
// cancelled ctx ends a read of the terminal that ask waits on, and then
// onTerminal returns ctx.Err().
func onTerminal(ctx context.Context, ask func(tty *os.File) (string, error)) (string, error) {
	tty, err := os.OpenFile(ttyPath, os.O_RDWR, 0)
	if err != nil {
		return "", &noTerminalError{err}
	}
	defer tty.Close()
	stop := context.AfterFunc(ctx, func() { tty.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	answer, err := ask(tty)
	if err != nil && ctx.Err() != nil {
		return "", ctx.Err()
	}
	return answer, err
}

// askLine writes prompt to the terminal and returns the line typed, with
// echo, without its newline; the end of the input (Ctrl-D) ends the line
// too. A line longer than maxAnswer is errLongAnswer.
func askLine(ctx context.Context, prompt string) (string, error) {
	return onTerminal(ctx, func(tty *os.File) (string, error) {
		fmt.Fprint(tty, prompt)
		// One byte at a time, so as not to take what is typed for the
		// next question.
		var line []byte
		b := make([]byte, 1)
		for {
			n, err := tty.Read(b)
			if n == 1 {
				if b[0] == '\n' {
					return string(line), nil
				}
				line = append(line, b[0])
				if len(line) > maxAnswer {
					return "", errLongAnswer
				}
			}
			if err == io.EOF {
				return string(line), nil
			}
			if err != nil {
				return "", err
			}
		}
	})
}

// askSecret writes prompt to the terminal and returns the line typed
// without echo: a password. It has the signature of fetch.Client.Prompt.
// A cancelled ctx does not end the wait, as term.ReadPassword reads the
// terminal's descriptor itself, out of the reach of a deadline.
func askSecret(ctx context.Context, prompt string) (string, error) {
	return onTerminal(ctx, func(tty *os.File) (string, error) {
		fmt.Fprint(tty, prompt)
		pw, err := term.ReadPassword(int(tty.Fd()))
		fmt.Fprintln(tty)
		return string(pw), err
	})
}
