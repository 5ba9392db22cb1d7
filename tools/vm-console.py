#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: tools/vm-console.py [--help] LOG QMP_SOCKET

Read a guest console from stdin, write it to LOG and, indented, to stdout,
and carry out the guest's requests to the host.  A request is a console line

    MMFAST-QMP requested-size MIB

which sets the virtio-mem device's requested-size (QMP qom-set on /machine/
peripheral/vm0) through the QMP socket QMP_SOCKET.  The outcome is logged as
'MMFAST-HOST: ...' in LOG and on stdout.  Used by tools/run-vm; the guest
side is qmp_request_size in vm/scenarios/lib.sh, which repeats a request
until the guest sees it done, as console output can garble a line.

It also times, by the host's clock, what the guest kernel's clock cannot:
the boot memory map init of x86, which runs before the kernel has a
clock (its log says 0.000000 there).  When the kernel command line has
earlyprintk= (so that early lines reach the console as they are printed,
not in a burst when the console starts), the time from the first
"Initmem setup node" line (free_area_init(), just before memmap_init())
to the first "setup_percpu:" line (the next line the kernel prints) is
logged as 'MMFAST-METRIC early_memmap_ms N ms', which tools/bench
collects like the guest's metrics.  The interval also holds the rest of
free_area_init() and setup_arch(), the same code in any two kernels
compared; console output does not slow it down, as nothing is printed
in between without holes in memory.
"""
import json
import os
import re
import socket
import sys
import time
sys.dont_write_bytecode = True  # nothing left in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import operands, usage_error  # noqa: E402

# Not anchored: kernel messages on the serial console can run into the line.
REQ = re.compile(rb'MMFAST-QMP requested-size (\d+)(?!\d)')
# The boot memory map init interval (see above).
CMDLINE = re.compile(rb'Command line: .*earlyprintk=')
EARLY_START = re.compile(rb'Initmem setup node ')
EARLY_END = re.compile(rb'setup_percpu: ')


class EarlyTimer:
    """Host-clock time between EARLY_START and EARLY_END, once."""

    def __init__(self):
        self.armed = False      # an earlyprintk= command line was seen
        self.start = None
        self.done = False

    def line(self, line, now):
        """Feed a console line read at host time NOW; returns a metric
        line to log, or None."""
        if self.done:
            return None
        if not self.armed:
            self.armed = bool(CMDLINE.search(line))
            return None
        if self.start is None:
            if EARLY_START.search(line):
                self.start = now
            return None
        if EARLY_END.search(line):
            self.done = True
            return b'MMFAST-METRIC early_memmap_ms %.1f ms\n' % (
                (now - self.start) * 1000)
        return None


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.buf = b''
        self.recv()                       # greeting
        self.cmd('qmp_capabilities')

    def recv(self):
        while b'\n' not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise OSError('QMP socket closed')
            self.buf += data
        line, self.buf = self.buf.split(b'\n', 1)
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            reply = self.recv()
            if 'event' in reply:
                continue
            if 'error' in reply:
                raise OSError(reply['error'].get('desc', str(reply['error'])))
            return reply.get('return')


def main():
    args = operands(sys.argv, __doc__.strip())
    if isinstance(args, int):
        return args
    if len(args) != 2:
        return usage_error('need LOG and QMP_SOCKET, got %d arguments' % len(args))
    log_path, qmp_path = args
    qmp = None
    out = sys.stdout.buffer
    with open(log_path, 'wb') as log:
        def emit(line):
            log.write(line)
            log.flush()
            out.write(b'  | ' + line)
            out.flush()

        timer = EarlyTimer()
        for line in sys.stdin.buffer:
            now = time.monotonic()
            emit(line)
            metric = timer.line(line, now)
            if metric:
                emit(metric)
            m = REQ.search(line)
            if not m:
                continue
            mib = int(m.group(1))
            try:
                if qmp is None:
                    qmp = Qmp(qmp_path)
                qmp.cmd('qom-set', path='/machine/peripheral/vm0',
                        property='requested-size', value=mib << 20)
                emit(b'MMFAST-HOST: requested-size %d MiB set\n' % mib)
            except (OSError, ValueError) as e:
                emit(b'MMFAST-HOST: requested-size %d MiB failed: %s\n'
                     % (mib, str(e).encode()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
