#!/usr/bin/env python3
"""peak.py OUT -- COMMAND...: runs COMMAND and writes its peak resident memory in KiB to OUT.

Why not the test process's own wait4: the tests spawn with posix_spawn, whose vfork-like child
execs from the test process's memory, and Linux carries that memory's high-water mark into the
new program's ru_maxrss (exec keeps signal->maxrss). A plain fork from this small process carries
only its few MiB. SIGTERM is passed on, so a victim ended by the test still reports its peak.
"""
import os
import signal
import sys

out, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
child = os.fork()
if child == 0:
    try:
        os.execvp(command[0], command)
    finally:
        os._exit(127)


def pass_on(*_):
    # A TERM sent to the whole group has often ended (and wait4 reaped) the child already.
    try:
        os.kill(child, signal.SIGTERM)
    except ProcessLookupError:
        pass


signal.signal(signal.SIGTERM, pass_on)
while True:
    try:
        _, status, usage = os.wait4(child, 0)
        break
    except InterruptedError:
        continue
with open(out + ".tmp", "w") as f:
    f.write(f"{usage.ru_maxrss}\n")
os.replace(out + ".tmp", out)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
