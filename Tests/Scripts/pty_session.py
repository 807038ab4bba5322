#!/usr/bin/env python3
"""Runs a program on a pseudo-terminal and types into it, as a person at a terminal would.

Usage: pty_session.py EXPECT SEND [EXPECT SEND ...] -- PROGRAM [ARGS...]

For each pair, waits (at most 10 s) until the program has printed EXPECT, then types SEND
(Python escapes allowed, such as \\r for Enter or \\x03 for Ctrl-C). Then waits for the program
to end and prints one JSON object: everything the terminal showed ("output"), the exit status
("status", negative for a signal, as subprocess reports it), and whether the terminal echoes
again afterwards ("echo_restored"). The pty is the program's controlling terminal, so Ctrl-C
becomes SIGINT from the line discipline, not from us.
"""
import fcntl
import json
import os
import select
import subprocess
import sys
import termios
import time


def main() -> int:
    separator = sys.argv.index("--")
    script, command = sys.argv[1:separator], sys.argv[separator + 1:]
    pairs = [(script[i], script[i + 1].encode().decode("unicode_escape")) for i in range(0, len(script), 2)]
    master, slave = os.openpty()

    def become_terminal_owner() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave,
                             preexec_fn=become_terminal_owner, close_fds=True)
    output = b""

    def read_for(seconds: float) -> None:
        nonlocal output
        ready, _, _ = select.select([master], [], [], seconds)
        if ready:
            try:
                output += os.read(master, 65536)
            except OSError:
                pass

    for expect, send in pairs:
        deadline = time.monotonic() + 10
        while expect.encode() not in output:
            if time.monotonic() > deadline or child.poll() is not None:
                print(json.dumps({"error": f"never saw {expect!r}", "output": output.decode(errors="replace")}))
                child.kill()
                return 1
            read_for(0.05)
        # The prompt is printed after echo goes off, so typing now is what a person would do.
        os.write(master, send.encode())
    deadline = time.monotonic() + 20
    while child.poll() is None and time.monotonic() < deadline:
        read_for(0.05)
    if child.poll() is None:
        child.kill()
    read_for(0.1)
    echo = bool(termios.tcgetattr(slave)[3] & termios.ECHO)
    print(json.dumps({"output": output.decode(errors="replace"), "status": child.wait(), "echo_restored": echo}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
