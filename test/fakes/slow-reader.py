"""A client that reads an HTTP response at a steady pace, as a slow reader on a real network does:
its receive buffer is small (SO_RCVBUF 8 KiB), so its window opens a little at a time as it
reads. (On loopback, a client with the kernel's own buffer takes a window of close to a megabyte
at once and then acknowledges nothing until it has read it: no server can tell it from a stalled
one.) In Python because Node cannot set a TCP socket's receive buffer. Prints how many bytes it has read after every read, until it is killed; says "cut" and
exits 1 when the server ends the connection.

    python3 slow-reader.py PORT BYTES_PER_SECOND
"""
import socket
import sys
import time

TICK_S = 0.1

port, rate = int(sys.argv[1]), int(sys.argv[2])
client = socket.socket()
client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
client.connect(("127.0.0.1", port))
client.sendall(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
read = 0
while True:
    wanted = int(rate * TICK_S)
    while wanted > 0:
        try:
            chunk = client.recv(wanted)
        except ConnectionError:
            chunk = b""
        if not chunk:
            print("cut", flush=True)
            sys.exit(1)
        read += len(chunk)
        wanted -= len(chunk)
    print(read, flush=True)
    time.sleep(TICK_S)
