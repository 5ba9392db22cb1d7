# SPDX-License-Identifier: GPL-2.0
"""The sender's identity in mail headers, for tools/export-series: a From:
with a name that is not ASCII encoded as git encodes a patch's (RFC 2047,
Q), and the MIME headers an 8-bit body needs."""


def encoded_from(ident):
    """'Name <addr>' as a From: header value: unchanged if ASCII, else the
    name RFC 2047 Q-encoded."""
    if ident.isascii():
        return ident
    name, addr = ident.rsplit(' <', 1)
    q = ''.join(chr(b) if chr(b).isalnum() and b < 128 or chr(b) in '!*+-/' else '=%02X' % b
                for b in name.encode('utf-8'))
    return '=?UTF-8?q?%s?= <%s' % (q, addr)


def add_mime(header_lines, ident):
    """Insert the MIME headers after the Subject: (and its continuation
    lines) if IDENT is not ASCII and the header has no Content-Type:."""
    hl = header_lines
    if ident.isascii() or any(l.lower().startswith('content-type:') for l in hl):
        return hl
    i = next(n for n, l in enumerate(hl) if l.startswith('Subject:')) + 1
    while i < len(hl) and hl[i][:1] in (' ', '\t'):
        i += 1
    return hl[:i] + ['MIME-Version: 1.0', 'Content-Type: text/plain; charset=UTF-8',
                     'Content-Transfer-Encoding: 8bit'] + hl[i:]


def signed_off(log, ph, ident):
    """LOG (the changelog text) with the placeholder's Signed-off-by: the
    sender's."""
    return '\n'.join('Signed-off-by: ' + ident if l == 'Signed-off-by: ' + ph else l
                     for l in log.split('\n'))


def cover_prose(body):
    """The author's text of a cover letter BODY: up to the shortlog git
    adds ('Name (N):')."""
    import re
    return re.split(r'\n\S[^\n]* \(\d+\):\n', body)[0]
