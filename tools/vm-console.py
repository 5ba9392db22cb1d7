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
"""
import json
import os
import re
import socket
import sys
sys.dont_write_bytecode = True  # nothing left in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import operands, usage_error  # noqa: E402

# Not anchored: kernel messages on the serial console can run into the line.
REQ = re.compile(rb'MMFAST-QMP requested-size (\d+)(?!\d)')


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

        for line in sys.stdin.buffer:
            emit(line)
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
