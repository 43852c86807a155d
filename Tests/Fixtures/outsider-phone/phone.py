#!/usr/bin/env python3
"""A pairing phone written from the README, Spec/pairing.md and Conformance/scenarios/README.md
alone, with no code of the reference: the outsider that `conformance run --role phone` is tested
against. It differs from the reference where the Spec allows: its own back-off (700/1400/2800 ms),
a 5 s keepalive sent as WebSocket ping frames (as iOS does), upper-case device ids, and its own
WebSocket client (standard library only).

    phone.py --handoff-file F --qr-file Q --signaling ws://HOST:PORT [--webrtc [--fault bare-offer]]

With --webrtc it goes on after each pairing into the WebRTC exchange of Spec pairing.md 4.6
(PAIR-RTC-006) as the offerer, on the same signaling connection.
"""
import argparse
import base64
import json
import os
import queue
import re
import secrets
import signal
import socket
import struct
import sys
import threading
import time
import uuid
from urllib.parse import urlparse

BACKOFF = [700, 1400, 2800]
KEEPALIVE = 5.0
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
WEBRTC_WAIT_MS = 30000   # PAIR-RTC-006: the exchange completes within 30 s of its start
FAULTS = ("bare-offer",)


def log(*a):
    print("outsider-phone:", *a, file=sys.stderr, flush=True)


def now_ms():
    return int(time.time() * 1000)


# ---------------------------------------------------------------------------------------------
# Checking what arrives during the WebRTC exchange (Spec/core.md; pairing.md 2, 3.5, 3.7): the
# first failing check is the one reported, as (rule, path).

MAX_DOC = 65536          # CORE-JSON-004 for pairing documents
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                  "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


class Violation(Exception):
    def __init__(self, rule, path, why=""):
        super().__init__(f"{rule} at \"{path}\"" + (f": {why}" if why else ""))
        self.rule, self.path = rule, path


def _no_dupes(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise Violation("CORE-JSON-003", "/" + k, "repeated member")
        seen[k] = v
    return seen


def _bad_constant(name):
    raise Violation("CORE-JSON-001", "", f"{name} is not JSON")


def _walk(value, path, depth):
    if depth > 64:
        raise Violation("CORE-JSON-005", path, "nested deeper than 64")
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise Violation("CORE-JSON-002", path, "lone surrogate")
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Violation("CORE-JSON-006", path)
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk(v, path + "/" + k.replace("~", "~0").replace("/", "~1"), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk(v, f"{path}/{i}", depth + 1)


def parse(data):
    """bytes or str -> a JSON value under the wire profile (core.md), or Violation."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_DOC:
        raise Violation("CORE-JSON-004", "", f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Violation("CORE-JSON-002", "")
    if text.startswith("\ufeff"):
        raise Violation("CORE-JSON-001", "", "byte order mark")
    try:
        value = json.loads(text, object_pairs_hook=_no_dupes, parse_constant=_bad_constant)
    except ValueError as e:
        raise Violation("CORE-JSON-001", "", str(e))
    except RecursionError:
        raise Violation("CORE-JSON-005", "")
    _walk(value, "", 1)
    return value


def _member(doc, name, kind, path, required=True):
    """present (CORE-TYPE-001), not null (-002), JSON type (-003/-004). None when optional and not given."""
    p = f"{path}/{name}"
    if name not in doc or doc[name] is None:
        if required:
            raise Violation("CORE-TYPE-001" if name not in doc else "CORE-TYPE-002", p)
        return None
    v = doc[name]
    if kind == "string" and not isinstance(v, str):
        raise Violation("CORE-TYPE-003", p, "not a string")
    if kind == "object" and not isinstance(v, dict):
        raise Violation("CORE-TYPE-003", p, "not an object")
    if kind == "integer":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Violation("CORE-TYPE-003", p, "not a number")
        if isinstance(v, float) or abs(v) > 2 ** 53 - 1:
            raise Violation("CORE-TYPE-004", p, "not an integer literal")
    return v


def check_peer(v, p):
    """PAIR-PEER-001, PAIR-PEER-002."""
    if all(c in WHITE_SPACE for c in v) or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in v) \
            or len(v.encode("utf-8", "surrogatepass")) > 256:
        raise Violation("PAIR-PEER-001", p)
    if v.startswith("pairing-code:"):
        rest = v[len("pairing-code:"):]
        if not (len(rest) == 6 and all("0" <= c <= "9" for c in rest)):
            raise Violation("PAIR-PEER-002", p)


# ---------------------------------------------------------------------------------------------
# WebRTC signals after pairing (Spec/pairing.md 3.7 and 4.6, PAIR-RTC-006), with --webrtc.

SIGNALS = ("offer", "answer", "ice-candidate")


def check_description(payload, kind, path):
    """3.7 `offer` / `answer`: {type, KIND: {type: KIND, sdp}} (PAIR-RTC-001 / -002)."""
    rule = "PAIR-RTC-001" if kind == "offer" else "PAIR-RTC-002"
    desc = _member(payload, kind, "object", path)       # a flat `sdp` beside `type`: CORE-TYPE-001 here
    p = f"{path}/{kind}"
    if _member(desc, "type", "string", p) != kind:
        raise Violation(rule, p + "/type", f"the description's type is not {kind!r}")
    sdp = _member(desc, "sdp", "string", p)
    if not (sdp.startswith("v=0\r\n") or sdp.startswith("v=0\n")):
        raise Violation(rule, p + "/sdp", "the first line is not v=0")
    return desc


def check_candidate(payload, path):
    """3.7 `ice-candidate`: {type, candidate: {candidate, sdpMid, sdpMLineIndex}} (PAIR-RTC-003)."""
    cand = _member(payload, "candidate", "object", path)   # a flat string: CORE-TYPE-003 here
    p = path + "/candidate"
    text = _member(cand, "candidate", "string", p)
    if not text.startswith("candidate:") or len(text) == len("candidate:"):
        raise Violation("PAIR-RTC-003", p + "/candidate", "not a candidate attribute")
    if _member(cand, "sdpMid", "string", p) == "":
        raise Violation("PAIR-RTC-003", p + "/sdpMid", "empty")
    if not 0 <= _member(cand, "sdpMLineIndex", "integer", p) <= 65535:
        raise Violation("PAIR-RTC-003", p + "/sdpMLineIndex", "not 0 to 65535")
    return cand


def check_signal_message(doc, local):
    """A delivered `message` carrying a 3.7 signal, checked as 3.5 says, rows in order, with the
    context's localPeerId = `local`: type, to (required when there is no `from`), from, payload
    (as its kind), PAIR-SIG-002, PAIR-RTC-004. Returns (to, from, payload) or raises Violation."""
    if not isinstance(doc, dict):
        raise Violation("CORE-TYPE-003", "", "not an object")
    if _member(doc, "type", "string", "") != "message":
        raise Violation("PAIR-TYPE-001", "/type")
    has_from = doc.get("from") is not None
    to = _member(doc, "to", "string", "", required=not has_from)
    if to is not None:
        check_peer(to, "/to")
    frm = _member(doc, "from", "string", "", required=False)
    if frm is not None:
        check_peer(frm, "/from")
    payload = _member(doc, "payload", "object", "")
    kind = _member(payload, "type", "string", "/payload")
    if kind in ("offer", "answer"):
        check_description(payload, kind, "/payload")
    elif kind == "ice-candidate":
        check_candidate(payload, "/payload")
    else:
        raise Violation("PAIR-TYPE-001", "/payload/type", f"{kind!r} is not a WebRTC signal")
    if to is not None and to.startswith("pairing-code:"):
        raise Violation("PAIR-SIG-002", "/payload/type", "a WebRTC signal to a pairing-code alias")
    if frm is None and to == local:
        raise Violation("PAIR-RTC-004", "/to", "a signal addressed to this side's own id")
    if frm == local:
        raise Violation("PAIR-RTC-004", "/from", "this side's own signal echoed back")
    return to, frm, payload


class Negotiation:
    """One side of the machine of pairing.md 4.6, sans I/O: `idle` is skipped (made at its
    `start`), then `negotiating` until `negotiated` or `failed`. Times are time.monotonic()
    seconds. `frame` takes one frame as the relay sent it (text or bytes) and returns what the
    driver must do: "described" (the other side's description was just taken; the answerer then
    answers) or None. Every drop and every ignored frame is noted in `notes` for the log."""

    def __init__(self, role, local, peer, started, wait_ms=None):
        assert role in ("offerer", "answerer")
        self.role, self.local, self.peer = role, local, peer
        self.started = started
        self.wait_ms = WEBRTC_WAIT_MS if wait_ms is None else wait_ms
        self.deadline = started + self.wait_ms / 1000
        self.state = "negotiating"
        self.reason = None             # (rule, path, why) once failed
        self.description = None        # the other side's {type, sdp}
        self.described_from = None     # the `from` of the description (the answer goes there)
        self.remote_candidates = []
        self.notes = []

    def _note(self, what):
        self.notes.append(what)

    def _drop(self, rule, path, why):
        self._note(f"dropped: {rule} at \"{path}\": {why}")

    def _fail(self, rule, path, why):
        self.state, self.reason = "failed", (rule, path, why)

    def _own(self):
        return "offer" if self.role == "offerer" else "answer"

    def _other(self):
        return "answer" if self.role == "offerer" else "offer"

    def tick(self, now):
        if self.state == "negotiating" and now > self.deadline:
            had = f"no {self._other()}" if self.description is None else f"the {self._other()} but no candidate"
            self._fail("PAIR-RTC-006", "", f"{had} from {self.peer!r} within {self.wait_ms} ms")
        return self.state

    def peer_offline(self, now):
        if self.tick(now) == "negotiating":
            self._fail("PAIR-RTC-006", "", f"the relay says {self.peer!r} is offline")

    def frame(self, now, data):
        if self.state != "negotiating":
            return None
        try:
            loose = json.loads(data)
        except (ValueError, RecursionError):
            self._note("ignored a frame that is not JSON")
            self.tick(now)
            return None
        t = loose.get("type") if isinstance(loose, dict) else None
        if t == "peer-offline":
            if loose.get("peerId") == self.peer:
                self.peer_offline(now)
            else:
                self._note(f"ignored a peer-offline for {loose.get('peerId')!r}, not the paired peer")
                self.tick(now)
            return None
        if t in ("offer", "answer", "ice-candidate", "ice-candidates"):
            # PAIR-RTC-005: a bare signal from a relay that does not follow the Spec is ignored
            self._note(f"ignored a bare {t!r} frame (PAIR-RTC-005: signals travel only inside a message)")
            self.tick(now)
            return None
        if t == "error":
            self._note(f"the relay answered an error: {json.dumps(loose)[:200]}")
        if t != "message":
            self.tick(now)
            return None
        # a `signal` event: past the deadline first
        if self.tick(now) != "negotiating":
            self._drop("PAIR-RTC-006", "", "past the 30 s of the exchange")
            return None
        payload = loose.get("payload")
        kind = payload.get("type") if isinstance(payload, dict) else None
        if kind not in SIGNALS:
            self._note(f"ignored a message whose payload is {kind!r} (not a WebRTC signal)")
            return None
        try:
            doc = parse(data)
            _, frm, payload = check_signal_message(doc, self.local)
        except Violation as v:
            self._note(f"dropped: {v} (a malformed {kind!r})")
            return None
        if frm != self.peer:
            self._drop("PAIR-RTC-006", "/from", f"{kind!r} from {frm!r}, not from the paired peer {self.peer!r}")
            return None
        if kind == self._own():
            self._drop("PAIR-RTC-006", "/payload/type", f"{kind!r} at the {self.role} (its own kind; no glare handling)")
            return None
        event = None
        if kind == self._other():
            if self.description is not None:
                self._drop("PAIR-RTC-006", "/payload/type", f"a second {kind!r}")
                return None
            self.description, self.described_from, event = payload[kind], frm, "described"
            self._note(f"took the {kind} from {frm!r}")
        else:
            self.remote_candidates.append(payload["candidate"])
            self._note(f"took candidate {len(self.remote_candidates)} from {frm!r}")
        if self.description is not None and self.remote_candidates:
            self.state = "negotiated"
        return event

    def outcome(self):
        if self.state == "negotiated":
            return (f"negotiated with {self.peer} in {int((time.monotonic() - self.started) * 1000)} ms "
                    f"({len(self.remote_candidates)} remote candidate(s))")
        if self.state == "failed":
            rule, path, why = self.reason
            return f"failed: {rule} at \"{path}\": {why}"
        return "negotiating"


def make_sdp(setup, mid):
    """A data-channel session description of this side's own (RFC 8866; CRLF line ends)."""
    fingerprint = ":".join(f"{b:02X}" for b in os.urandom(32))
    lines = ["v=0", f"o=- {secrets.randbelow(10 ** 18) + 1} 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
             f"a=group:BUNDLE {mid}", "a=msid-semantic: WMS",
             "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0",
             f"a=ice-ufrag:{secrets.token_hex(4)}", f"a=ice-pwd:{secrets.token_hex(12)}",
             "a=ice-options:trickle", f"a=fingerprint:sha-256 {fingerprint}", f"a=setup:{setup}",
             f"a=mid:{mid}", "a=sctp-port:5000", "a=max-message-size:262144"]
    return "\r\n".join(lines) + "\r\n"


def sdp_mid(sdp, default="0"):
    """The first `a=mid:` of a description (the answer's candidates name the offer's media)."""
    m = re.search(r"^a=mid:([^\r\n]+)", sdp, re.M)
    return m.group(1) if m else default


def signal_message(to, payload):
    return {"type": "message", "to": to, "payload": payload}


class Socket:
    """One WebSocket connection (RFC 6455, client side): text frames in and out, pings out."""

    def __init__(self, url, on_text):
        u = urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port or 80), timeout=5)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {u.path or '/'} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.split(b"\r\n")[0].decode())
        self.sock.settimeout(None)
        self.lock = threading.Lock()
        self.open = True
        self.heard = time.monotonic()   # the last frame read (a pong counts)
        self.pinged_at = None
        self.on_text = on_text
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self.lock:
            self.sock.sendall(header + mask + body)

    def send_text(self, text):
        self._send(1, text.encode())

    def ping(self):
        self._send(9, b"keepalive")
        self.pinged_at = time.monotonic()

    def unanswered(self):
        """A keepalive went out and nothing has been read since (PAIR-CONN-003)."""
        return self.pinged_at is not None and self.heard < self.pinged_at

    def abort(self):
        """Cut a dead connection: no closing handshake, which would wait on it."""
        self.open = False
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def close(self):
        if self.open:
            self.open = False
            try:
                self._send(8, struct.pack(">H", 1000))
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def _read(self):
        try:
            while True:
                b0, b1 = self._exactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", self._exactly(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self._exactly(8))[0]
                payload = self._exactly(n)
                self.heard = time.monotonic()
                opcode = b0 & 0x0F
                if opcode == 1:
                    self.on_text(payload.decode())
                elif opcode == 9:
                    self._send(10, payload)
                elif opcode == 8:
                    break
        except (ConnectionError, OSError):
            pass
        self.open = False
        try:
            self.sock.close()
        except OSError:
            pass


class Connection:
    """The signaling connection of Spec pairing.md 4.4: reconnects by BACKOFF, registers the DID
    again first after every reconnection, and pings every KEEPALIVE seconds; a ping that nothing
    answered by the next one drops the connection (PAIR-CONN-003)."""

    def __init__(self, url, did, on_message):
        self.url, self.did, self.on_message = url, did, on_message
        self.registered = threading.Event()
        self.stopped = False
        self.ws = None
        self.on_raw = None       # --webrtc: every text frame, as received, for the 4.6 exchange
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _text(self, text):
        if self.on_raw:
            self.on_raw(text)
        try:
            doc = json.loads(text)
        except ValueError:
            return
        if doc.get("type") == "registered" and doc.get("peerId") == self.did:
            self.registered.set()
        self.on_message(doc)

    def _run(self):
        failures = 0
        while not self.stopped:
            try:
                self.ws = Socket(self.url, self._text)
            except (OSError, ConnectionError) as e:
                failures += 1
                log(f"{self.url}: {e}; next attempt in {BACKOFF[min(failures, len(BACKOFF)) - 1]} ms")
                time.sleep(BACKOFF[min(failures, len(BACKOFF)) - 1] / 1000)
                continue
            failures = 0
            self.ws.send_text(json.dumps({"type": "register", "peerId": self.did}))
            last_ping = time.monotonic()
            while self.ws.open and not self.stopped:
                time.sleep(0.02)
                if time.monotonic() - last_ping >= KEEPALIVE:
                    if self.ws.unanswered():
                        # Dead though never closed (a half-open connection): drop it, reconnect.
                        log(f"{self.url}: no answer to the keepalive in {KEEPALIVE} s; reconnecting")
                        self.ws.abort()
                        break
                    try:
                        self.ws.ping()
                    except OSError:
                        break
                    last_ping = time.monotonic()
            if self.stopped:
                break
            # dropped: the first delay, then the schedule on further failures
            failures = 1
            time.sleep(BACKOFF[0] / 1000)

    def send(self, doc, wait=5.0):
        if not self.registered.wait(wait) or not self.ws:
            return False
        try:
            self.ws.send_text(json.dumps(doc))
            return True
        except OSError:
            return False

    def stop(self):
        self.stopped = True
        if self.ws:
            self.ws.close()


class Inbox:
    """--webrtc: the frames of one connection, as received, from the moment the pairing succeeded."""

    def __init__(self):
        self.q = queue.Queue()
        self.collecting = False

    def put(self, text):
        if self.collecting:
            self.q.put(text)


class Phone:
    def __init__(self, args):
        self.args = args
        self.did = "did:key:z6Mk" + "".join(secrets.choice(B58) for _ in range(44))
        self.device = {"deviceId": str(uuid.uuid4()).upper(), "name": "Outsider Phone", "platform": "ios"}
        self.faults = set(getattr(args, "fault", None) or [])
        self.pending = None      # --webrtc: (connection, inbox, desktop id) kept open after a pairing

    def ack(self, code, to):
        return {"type": "message", "to": to, "payload": {"type": "pair-ack", "pairingCode": code, "mobileDid": self.did,
                                                          "deviceInfo": self.device, "timestamp": now_ms()}}

    def wait_confirmation(self, url, code, ack_to=None, show=None, seconds=60):
        done = threading.Event()
        outcome = {"state": "timeout"}
        inbox = Inbox()

        def on_message(doc):
            if self.args.webrtc and done.is_set():
                return           # paired: what follows is the WebRTC exchange's (the inbox has it)
            if doc.get("type") == "peer-offline" and ack_to:
                outcome["state"] = "failed: peer-offline"
                done.set()
            payload = doc.get("payload") if doc.get("type") == "message" else None
            if isinstance(payload, dict) and payload.get("type") == "pairing:confirmation" and payload.get("pairingCode") == code:
                outcome["state"] = "success"
                outcome["desktop"] = payload.get("pcPeerId")
                inbox.collecting = True     # the exchange starts now: keep every later frame
                done.set()

        conn = Connection(url, self.did, on_message)
        if self.args.webrtc:
            conn.on_raw = inbox.put
        conn.start()
        if not conn.registered.wait(10):
            conn.stop()
            return "failed: not registered"
        if show:
            show()
        if ack_to and not conn.send(self.ack(code, ack_to)):
            conn.stop()
            return "failed: ack not sent"
        done.wait(seconds)
        if self.args.webrtc and outcome["state"] == "success":
            # the offer goes to the confirmation's pcPeerId (scenarios README, `webrtc: true`)
            self.pending = (conn, inbox, outcome.get("desktop"))
        else:
            conn.stop()
        return outcome["state"]

    def scan(self, text):
        try:
            qr = json.loads(text)
        except ValueError:
            return "failed: not JSON"
        if qr.get("type") != "desktop-pairing":
            return "failed: not a desktop-pairing QR"
        age = now_ms() - qr.get("timestamp", 0)
        if age > 300000 or age < -60000:
            return "failed: QR expired"
        for url in [u for u in (qr.get("signalingUrl"), qr.get("relayUrl")) if u]:
            conn = Connection(url, self.did, lambda doc: None)
            inbox = Inbox()
            if self.args.webrtc:
                conn.on_raw = inbox.put
            try:
                Socket(url, lambda t: None).close()  # is it reachable at all?
            except (OSError, ConnectionError) as e:
                log(f"{url}: {e}")
                continue
            conn.start()
            inbox.collecting = True        # nothing of the exchange can come before the ack
            sent = conn.send(self.ack(qr["code"], qr["pcPeerId"]))
            if sent and self.args.webrtc:
                self.pending = (conn, inbox, qr["pcPeerId"])   # the offer goes to the QR's pcPeerId
                return "success"
            time.sleep(0.2)
            conn.stop()
            if sent:
                return "success"
        return "failed: no URL worked"

    def show_qr(self):
        code = f"{secrets.randbelow(1000000):06d}"
        qr = {"type": "device-pairing", "code": code, "did": self.did, "deviceInfo": self.device, "timestamp": now_ms()}

        def show():
            path = self.args.qr_file
            with open(path + ".tmp", "w") as f:
                f.write(json.dumps(qr, separators=(",", ":")))
            os.replace(path + ".tmp", path)
        return self.wait_confirmation(self.args.signaling, code, show=show)

    def negotiate(self, conn, inbox, desktop):
        """Spec pairing.md 4.6 as the offerer (PAIR-RTC-006): one offer to the desktop's id, then
        each candidate in a message of its own; then wait WEBRTC_WAIT_MS for the desktop's answer
        and at least one of its candidates, taking signals only from the desktop's id. The
        connection keeps its keepalives meanwhile (its own thread). Returns the outcome line."""
        started = time.monotonic()
        if not isinstance(desktop, str):
            return f"failed: no desktop id to offer to (the confirmation's pcPeerId is {desktop!r})"
        nego = Negotiation("offerer", self.did, desktop, started)
        mid = "data"
        sdp = make_sdp("actpass", mid)
        offer = {"type": "offer", "offer": {"type": "offer", "sdp": sdp}}
        if "bare-offer" in self.faults:
            # fault: the offer as a top-level frame of its own (PAIR-RTC-005 forbids it)
            first = {"type": "offer", "to": desktop, "offer": offer["offer"]}
        else:
            first = signal_message(desktop, offer)
        candidates = [f"candidate:{secrets.randbelow(2 ** 31)} 1 udp 2122260223 192.0.2.{secrets.randbelow(200) + 10} "
                      f"{49152 + secrets.randbelow(16000)} typ host generation 0",
                      f"candidate:{secrets.randbelow(2 ** 31)} 1 udp 1686052607 198.51.100.{secrets.randbelow(200) + 10} "
                      f"{49152 + secrets.randbelow(16000)} typ srflx raddr 0.0.0.0 rport 0 generation 0"]
        frames = [first] + [signal_message(desktop, {"type": "ice-candidate",
                                                     "candidate": {"candidate": c, "sdpMid": mid, "sdpMLineIndex": 0}})
                            for c in candidates]
        for frame in frames:
            wait = nego.deadline - time.monotonic()
            if wait <= 0 or not conn.send(frame, wait=min(5.0, wait)):
                return f"failed: PAIR-RTC-006 at \"\": could not send the {(frame.get('payload') or frame)['type']} to {desktop!r}"
        log(f"webrtc: sent the offer{' (bare, fault)' if 'bare-offer' in self.faults else ''} and "
            f"{len(candidates)} candidates to {desktop!r}; waiting {WEBRTC_WAIT_MS} ms for the answer")
        while nego.state == "negotiating":
            now = time.monotonic()
            if nego.tick(now) != "negotiating":
                break
            try:
                data = inbox.q.get(timeout=min(0.25, max(0.0, nego.deadline - now) + 0.01))
            except queue.Empty:
                continue
            nego.frame(time.monotonic(), data)
            for note in nego.notes:
                log("webrtc:", note)
            nego.notes.clear()
        return nego.outcome()

    def run(self):
        while True:
            while not (os.path.exists(self.args.handoff_file) and os.path.getsize(self.args.handoff_file) > 0):
                time.sleep(0.05)
            with open(self.args.handoff_file) as f:
                text = f.read().strip()
            os.remove(self.args.handoff_file)
            if text == "show-qr":
                state = self.show_qr()
            elif len(text) == 6 and text.isascii() and text.isdigit():
                state = self.wait_confirmation(self.args.signaling, text, ack_to="pairing-code:" + text)
            else:
                state = self.scan(text)
            print("outsider-phone:", state, flush=True)
            if self.pending:
                conn, inbox, desktop = self.pending
                self.pending = None
                try:
                    print("outsider-phone: webrtc", self.negotiate(conn, inbox, desktop), flush=True)
                    time.sleep(0.2)   # let the last frames reach the relay before the closing handshake
                finally:
                    conn.stop()


def exit_with_parent():
    """A test harness stops this phone with SIGTERM, which a parent may have left blocked or
    ignored (both are inherited across exec); and if the harness dies first, so does the phone."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


if __name__ == "__main__":
    exit_with_parent()
    parser = argparse.ArgumentParser()
    parser.add_argument("--handoff-file", required=True)
    parser.add_argument("--qr-file", required=True)
    parser.add_argument("--signaling", required=True)
    parser.add_argument("--webrtc", action="store_true",
                        help="after each pairing, offer WebRTC on the same connection (Spec pairing.md 4.6)")
    parser.add_argument("--fault", action="append", choices=FAULTS,
                        help="misbehave on purpose, with --webrtc (repeatable): bare-offer")
    args = parser.parse_args()
    if args.fault and not args.webrtc:
        parser.error("--fault needs --webrtc")
    Phone(args).run()
