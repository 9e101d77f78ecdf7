#!/usr/bin/python3
"""tests/peers/smtp-peer.py - scriptable SMTP server (aiosmtpd) for tests.

usage: smtp-peer.py [--port 0] --dir DIR [--tls-cert C --tls-key K]
                    [--implicit-tls] [--auth USER:PASS] [--require-auth]
                    [--data-delay SECONDS] [--no-8bitmime]

Run it with /usr/bin/python3 (Debian's, which sees python3-aiosmtpd; the
pyenv python3 on PATH does not).  Binds 127.0.0.1 only; --port 0 picks a free
port.  Prints "listening PORT" (flushed) once it accepts connections and
serves until SIGTERM/SIGINT (exit status 0).

Behaviour:
  RCPT address containing "reject"   -> 550 5.1.1 (that recipient only)
  RCPT address containing "tempfail" -> 451 4.3.0 (that recipient only)
  message with a header "X-Fail: 554" -> 554 5.6.0 after DATA
              a header "X-Fail: 451" -> 451 4.3.0 after DATA
  otherwise                           -> 250 2.0.0 queued as N
Each accepted message N (1, 2, ...; continues after existing DIR/msg-*.eml) is
written to DIR/msg-N.eml (raw bytes as received after dot-unstuffing, CRLF
kept), then one line is appended to DIR/log:
  DELIVERED N from=<MAIL FROM> to=<rcpt,rcpt> auth=<user|-> tls=<0|1> size=<bytes> msgid=<Message-ID|-> mail=<MAIL FROM parameters, comma-separated|->
Refused messages leave no file and no log line.
--data-delay: the 250 to DATA comes that many seconds after the message was
written and logged (a client killed meanwhile had it accepted unknowingly:
"DATA in flight").
--no-8bitmime: 8BITMIME is not offered in the EHLO reply (RFC 6152 clients
must then downgrade 8-bit bodies, and must not send BODY=8BITMIME).

TLS: --tls-cert/--tls-key offer STARTTLS (not required).  With --implicit-tls
the listening socket speaks TLS from the first byte (SMTPS, like port 465)
and STARTTLS is not offered.
AUTH PLAIN/LOGIN is advertised only with --auth USER:PASS, also without TLS.
--require-auth: MAIL (and RCPT/DATA) before a successful AUTH -> 530 5.7.0.
"""
import argparse
import asyncio
import email.parser
import email.policy
import logging
import os
import re
import signal
import ssl
import sys
import warnings

try:
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
except ImportError:
    sys.exit("smtp-peer.py: aiosmtpd not importable by %s; run it with "
             "/usr/bin/python3 (apt-get install python3-aiosmtpd)" % sys.executable)


def header_fields(raw):
    """Headers of a raw message as an email.message.Message (headers only)."""
    return email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)


def header_value(msg, name):
    v = msg.get(name)
    if v is None:
        return None
    return re.sub(r'\s+', ' ', str(v)).strip()


class Handler:
    def __init__(self, directory, auth, eightbit=True, data_delay=0.0):
        self.dir = directory
        self.auth = auth
        self.eightbit = eightbit
        self.data_delay = data_delay
        existing = [int(m.group(1)) for f in os.listdir(directory)
                    for m in [re.fullmatch(r'msg-(\d+)\.eml', f)] if m]
        self.n = max(existing, default=0)

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname          # required with this hook form
        if self.auth is None:
            responses = [r for r in responses if not r[4:].startswith('AUTH')]
        if not self.eightbit:
            responses = [r for r in responses if r[4:] != '8BITMIME']
        return responses

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        a = address.lower()
        if 'reject' in a:
            return '550 5.1.1 <%s>: Recipient address rejected: user unknown' % address
        if 'tempfail' in a:
            return '451 4.3.0 <%s>: Recipient address temporarily rejected: try again later' % address
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return '250 2.1.5 OK'

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content
        hdrs = header_fields(raw)
        fails = [re.sub(r'\s+', '', str(v)) for v in hdrs.get_all('X-Fail', [])]
        if '554' in fails:
            return '554 5.6.0 Message content rejected (X-Fail: 554)'
        if '451' in fails:
            return '451 4.3.0 Message temporarily rejected (X-Fail: 451)'
        self.n += 1
        n = self.n
        with open(os.path.join(self.dir, 'msg-%d.eml' % n), 'wb') as f:
            f.write(raw)
        tls = server.transport is not None and \
            server.transport.get_extra_info('ssl_object') is not None
        user = '-'
        if session.authenticated and session.login_data is not None:
            user = session.login_data.decode('utf-8', 'replace')
        line = 'DELIVERED %d from=%s to=%s auth=%s tls=%d size=%d msgid=%s mail=%s\n' % (
            n, envelope.mail_from, ','.join(envelope.rcpt_tos), user, int(tls),
            len(raw), header_value(hdrs, 'Message-ID') or '-',
            ','.join(envelope.mail_options) or '-')
        with open(os.path.join(self.dir, 'log'), 'a', encoding='utf-8') as f:
            f.write(line)
            f.flush()
        if self.data_delay > 0:
            await asyncio.sleep(self.data_delay)
        return '250 2.0.0 queued as %d' % n


def short_tls_errors(record):
    """A client refusing our certificate is expected in tests: one line, no traceback."""
    exc = record.exc_info[1] if record.exc_info else None
    if exc is not None and type(exc).__name__ == 'TLSSetupException':
        record.msg = '%s (STARTTLS handshake failed: %s)' % (record.getMessage(), exc.__cause__)
        record.args = ()
        record.exc_info = None
    return True


def main():
    ap = argparse.ArgumentParser(description='SMTP test peer (aiosmtpd)')
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--dir', required=True)
    ap.add_argument('--tls-cert')
    ap.add_argument('--tls-key')
    ap.add_argument('--implicit-tls', action='store_true')
    ap.add_argument('--auth', metavar='USER:PASS')
    ap.add_argument('--require-auth', action='store_true')
    ap.add_argument('--data-delay', type=float, default=0.0)
    ap.add_argument('--no-8bitmime', action='store_true')
    args = ap.parse_args()

    if bool(args.tls_cert) != bool(args.tls_key):
        ap.error('--tls-cert and --tls-key go together')
    if args.implicit_tls and not args.tls_cert:
        ap.error('--implicit-tls needs --tls-cert and --tls-key')
    if args.require_auth and not args.auth:
        ap.error('--require-auth needs --auth')
    auth = None
    if args.auth:
        if ':' not in args.auth:
            ap.error('--auth takes USER:PASS')
        u, p = args.auth.split(':', 1)
        auth = (u.encode(), p.encode())
    os.makedirs(args.dir, exist_ok=True)

    # aiosmtpd warns (per connection) that AUTH without TLS is insecure: intended here
    warnings.filterwarnings('ignore', message='Requiring AUTH while not requiring TLS')
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format='smtp-peer: %(levelname)s %(message)s')
    mail_log = logging.getLogger('mail.log')
    mail_log.setLevel(logging.ERROR)
    mail_log.addFilter(short_tls_errors)

    ctx = None
    if args.tls_cert:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (auth is not None and isinstance(auth_data, LoginPassword)
              and (auth_data.login, auth_data.password) == auth)
        # handled=False is required: with handled=True a failed AUTH gets no reply
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    handler = Handler(args.dir, auth, eightbit=not args.no_8bitmime, data_delay=args.data_delay)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    def factory():
        return SMTP(handler, loop=loop, hostname='localhost', enable_SMTPUTF8=True,
                    tls_context=None if args.implicit_tls else ctx,
                    require_starttls=False, authenticator=authenticator,
                    auth_required=args.require_auth, auth_require_tls=False)

    server = loop.run_until_complete(loop.create_server(
        factory, host='127.0.0.1', port=args.port,
        ssl=ctx if args.implicit_tls else None))
    port = server.sockets[0].getsockname()[1]

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, loop.stop)
    print('listening %d' % port, flush=True)
    try:
        loop.run_forever()
    finally:
        server.close()
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
