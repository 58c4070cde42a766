"""Closes the TCP sockets a server inherited from the test process that started it.

swift-corelibs-foundation's Process closes in a child the descriptors it listed open just before the spawn; a socket
the test process opened in between is inherited, as none of Foundation's is close-on-exec. A server that holds a
test's client socket keeps that connection open after the test closes it, and a test waiting for the close waits
for ever. Unix sockets and pipes stay open: one of them is how Process sees this server exit. (The tests start
their children one at a time, so that no child inherits another's pipes: Tests/SpawnSupport/Spawn.swift.)
"""

import os
import socket


def close_inherited_sockets():
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return  # no /proc: nothing to list, and nothing this works around
    for name in names:
        fd = int(name)
        if fd <= 2:
            continue
        try:
            inherited = socket.socket(fileno=fd)
        except OSError:
            continue  # not a socket, or the descriptor listdir itself used
        family = inherited.family
        inherited.detach()
        if family in (socket.AF_INET, socket.AF_INET6):
            os.close(fd)
