#!/usr/bin/env python3
"""A pairing desktop written from the README, Spec/pairing.md, Spec/core.md, Spec/schemas/pairing
and Conformance/scenarios/ alone, with no code of the reference: the outsider that
`conformance run --role desktop` is tested against. Standard library only, including its own
RFC 6455 client. Where the Spec lets a desktop choose, it chooses differently from the reference:
back-off 2000/4000/6000 ms, a keepalive every 8 s sent as WebSocket ping frames, a peer id with
spaces and a non-ASCII character, a QR with `iceServers`/`iceExpiry: 0` written as non-canonical
JSON, codes drawn with `secrets.randbelow`. See README.md beside it.

    desktop.py --relay ws://HOST:PORT --qr-file QR --scan-file SCAN [--sessions N] [--webrtc [--fault flat-answer]]

One pairing per session: register the own id and the alias `pairing-code:<code>` on one
connection, write the QR, then pair by a `pair-ack` (Flow B or typed code) or by scanning the
phone's `device-pairing` QR from SCAN (Flow A); with --webrtc, answer the paired phone's WebRTC
offer on the same connection (pairing.md 4.6, PAIR-RTC-006); a new code for the next session.
"""
import argparse
import base64
import hashlib
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
from urllib.parse import urlparse

BACKOFF_MS = [2000, 4000, 6000]      # PAIR-CONN-002: 500..60000, never decreasing
KEEPALIVE_MS = 8000                  # PAIR-CONN-003: 5000..30000, ping frames
CODE_LIFE_MS = 300000                # PAIR-DESK-001
MAX_DOC = 65536                      # CORE-JSON-004 for pairing documents
WEBRTC_WAIT_MS = 30000               # PAIR-RTC-006: the exchange completes within 30 s of pairing
FAULTS = ("flat-answer",)
MAX_FRAME = 1 << 20                  # what this client reads at most; a bigger frame ends the connection
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
B58 = set("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                  "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def log(*a):
    print("outsider-desktop:", *a, file=sys.stderr, flush=True)


def now_ms():
    return int(time.time() * 1000)


def dumps(doc):
    # every frame with \u escapes for non-ASCII (legal JSON; the QR file carries raw UTF-8 instead)
    return json.dumps(doc, ensure_ascii=True, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------
# Checking what arrives (Spec/core.md, Spec/pairing.md 2, 3.2, 3.3, 3.5). The first failing
# check is the one reported, as (rule, path).

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


def _blank(s):
    return all(c in WHITE_SPACE for c in s)


def check_code(v, p):
    if not (len(v) == 6 and all("0" <= c <= "9" for c in v)):
        raise Violation("PAIR-CODE-001", p, "not six ASCII digits")


def check_peer(v, p):
    if _blank(v) or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in v) or len(v.encode("utf-8", "surrogatepass")) > 256:
        raise Violation("PAIR-PEER-001", p)
    if v.startswith("pairing-code:"):
        rest = v[len("pairing-code:"):]
        if not (len(rest) == 6 and all("0" <= c <= "9" for c in rest)):
            raise Violation("PAIR-PEER-002", p)


_SEG = r"(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+"
_DID = re.compile(r"did:[a-z0-9]+:" + _SEG + r"(?::" + _SEG + r")*\Z")


def check_did(v, p):
    if len(v) > 256 or not _DID.match(v):
        raise Violation("PAIR-DID-001", p)
    if v.startswith("did:key:"):
        msid = v[len("did:key:"):]
        if not (len(msid) >= 2 and msid[0] == "z" and all(c in B58 for c in msid[1:])):
            raise Violation("PAIR-DID-001", p, "did:key without a base58btc multibase value")


def check_time(v, p):
    if not (10 ** 12 <= v < 10 ** 13):
        raise Violation("PAIR-TIME-001", p, "not epoch milliseconds")


def check_type(doc, kind):
    t = _member(doc, "type", "string", "")
    if t != kind:
        raise Violation("PAIR-TYPE-001", "/type", f"{t!r} is not {kind!r}")


def check_phone_info(doc, path):
    info = _member(doc, "deviceInfo", "object", path)
    p = path + "/deviceInfo"
    if _blank(_member(info, "deviceId", "string", p)):
        raise Violation("PAIR-INFO-003", p + "/deviceId")
    if _blank(_member(info, "name", "string", p)):
        raise Violation("PAIR-INFO-001", p + "/name")
    if _member(info, "platform", "string", p) not in ("ios", "android"):
        raise Violation("PAIR-INFO-002", p + "/platform")
    return info


def check_pair_ack(doc, path=""):
    """3.2, members in the table's order."""
    if not isinstance(doc, dict):
        raise Violation("CORE-TYPE-003", path)
    t = _member(doc, "type", "string", path)
    if t != "pair-ack":
        raise Violation("PAIR-TYPE-001", path + "/type")
    check_code(_member(doc, "pairingCode", "string", path), path + "/pairingCode")
    check_did(_member(doc, "mobileDid", "string", path), path + "/mobileDid")
    check_phone_info(doc, path)
    check_time(_member(doc, "timestamp", "integer", path), path + "/timestamp")
    return doc


def check_device_pairing(doc):
    """3.3: what the desktop scans in Flow A."""
    if not isinstance(doc, dict):
        raise Violation("CORE-TYPE-003", "")
    check_type(doc, "device-pairing")
    check_code(_member(doc, "code", "string", ""), "/code")
    check_did(_member(doc, "did", "string", ""), "/did")
    check_phone_info(doc, "")
    check_time(_member(doc, "timestamp", "integer", ""), "/timestamp")
    return doc


def check_delivery(doc):
    """3.5 `message` as a relay delivers it: `to` optional when `from` is there, payload an object;
    a pair-ack payload is checked as one (paths under /payload); PAIR-SIG-002 for an alias."""
    to = _member(doc, "to", "string", "", required=False)
    if to is not None:
        check_peer(to, "/to")
    frm = _member(doc, "from", "string", "", required=to is None)
    if frm is not None:
        check_peer(frm, "/from")
    payload = _member(doc, "payload", "object", "")
    if payload.get("type") == "pair-ack":
        check_pair_ack(payload, "/payload")
    if to is not None and to.startswith("pairing-code:"):
        if payload.get("type") != "pair-ack":
            raise Violation("PAIR-SIG-002", "/payload/type")
        if payload.get("pairingCode") != to[len("pairing-code:"):]:
            raise Violation("PAIR-SIG-002", "/payload/pairingCode")
    return to, frm, payload


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


# ---------------------------------------------------------------------------------------------
# RFC 6455, client side.

class Refused(Exception):
    pass


class WebSocket:
    """One connection: text frames out (masked), text frames in (fragments joined), ping frames
    out, pongs for the server's pings, a closing handshake on close."""

    def __init__(self, url, on_text, on_close):
        u = urlparse(url)
        if u.scheme.lower() != "ws":
            raise Refused(f"{url}: this desktop speaks ws:// only (no TLS in the standard-library client)")
        host, port = u.hostname, u.port or 80
        target = (u.path or "/") + (f"?{u.query}" if u.query else "")
        self.sock = socket.create_connection((host, port), timeout=5)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            hosthdr = f"[{host}]" if ":" in host else host
            request = (f"GET {target} HTTP/1.1\r\nHost: {hosthdr}:{port}\r\nUpgrade: websocket\r\n"
                       f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                       f"User-Agent: outsider-desktop/1\r\n\r\n")
            self.sock.sendall(request.encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = self.sock.recv(1)
                if not chunk:
                    raise Refused("closed during the handshake")
                head += chunk
                if len(head) > 16384:
                    raise Refused("handshake response too long")
            lines = head.decode("latin-1").split("\r\n")
            status = lines[0].split(" ")
            if len(status) < 2 or status[1] != "101":
                raise Refused(f"upgrade refused: {lines[0]}")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
            if headers.get("sec-websocket-accept") != accept:
                raise Refused("bad Sec-WebSocket-Accept")
            if headers.get("upgrade", "").lower() != "websocket":
                raise Refused("no Upgrade: websocket")
        except BaseException:
            self.sock.close()
            raise
        self.sock.settimeout(None)
        self.lock = threading.Lock()
        self.open = True
        self.heard = time.monotonic()   # the last frame read (a pong counts)
        self.pinged_at = None
        self.on_text, self.on_close = on_text, on_close
        threading.Thread(target=self._read, daemon=True).start()

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
        m = (mask * (n // 4 + 1))[:n]
        body = (int.from_bytes(payload, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big") if n else b""
        with self.lock:
            self.sock.sendall(header + mask + body)

    def send_text(self, text):
        if not self.open:
            raise OSError("not open")
        self._send(1, text.encode("utf-8"))

    def ping(self):
        self._send(9, b"outsider-desktop")
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
                self.sock.settimeout(1)
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _exactly(self, n):
        data = bytearray()
        while len(data) < n:
            chunk = self.sock.recv(min(n - len(data), 65536))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return bytes(data)

    def _read(self):
        why = "closed by the relay"
        parts, first = [], None
        try:
            while True:
                b0, b1 = self._exactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", self._exactly(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self._exactly(8))[0]
                if b1 & 0x80 or b0 & 0x70:
                    why = "protocol error (masked or reserved bits from the server)"
                    self._send(8, struct.pack(">H", 1002))
                    break
                if n > MAX_FRAME:
                    why = f"frame of {n} bytes"
                    self._send(8, struct.pack(">H", 1009))
                    break
                payload = self._exactly(n)
                self.heard = time.monotonic()
                opcode, fin = b0 & 0x0F, b0 & 0x80
                if opcode in (1, 2):
                    parts, first = [payload], opcode
                elif opcode == 0 and first is not None:
                    parts.append(payload)
                    if sum(map(len, parts)) > MAX_FRAME:
                        why = "message too long"
                        self._send(8, struct.pack(">H", 1009))
                        break
                elif opcode == 9:
                    self._send(10, payload)
                    continue
                elif opcode == 10:
                    continue
                elif opcode == 8:
                    if self.open:
                        try:
                            self._send(8, payload[:2])
                        except OSError:
                            pass
                    why = "closing handshake"
                    break
                else:
                    continue
                if fin and first is not None:
                    data, kind = b"".join(parts), first
                    parts, first = [], None
                    if kind == 1:
                        self.on_text(data)
        except (ConnectionError, OSError, ValueError) as e:
            if self.open:
                why = f"dropped ({e})"
        self.open = False
        try:
            self.sock.close()
        except OSError:
            pass
        self.on_close(why)


class Connection:
    """The signaling connection of pairing.md 4.4: one connection to one URL that holds ids.
    Registers every held id, in order, first thing after each open (PAIR-CONN-001), waits by
    BACKOFF_MS before each new attempt (PAIR-CONN-002; d1 after a drop or a first failure, the
    next delay after each further failure, the schedule again after an open), and sends a ping
    frame every KEEPALIVE_MS while open, dropping the connection when one went unanswered by the
    next (PAIR-CONN-003)."""

    def __init__(self, url, held, events):
        self.url, self.held, self.events = url, list(held), events
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stopped = False
        self.ws = None
        self.registered = set()        # ids the relay acknowledged on the current connection
        self.ready = threading.Event()  # open and every held id sent
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _text(self, data):
        if os.environ.get("OUTSIDER_DESKTOP_TRACE"):
            log(f"<- {data[:300]!r}")
        self.events.put(("frame", data))

    def _closed(self, why):
        self.ready.clear()
        self.events.put(("closed", why))
        self.wake.set()

    def release(self, peer_id):
        with self.lock:
            if peer_id in self.held:
                self.held.remove(peer_id)     # nothing sent: the relay releases ids on disconnect

    def _sleep(self, seconds):
        end = time.monotonic() + seconds
        while not self.stopped:
            left = end - time.monotonic()
            if left <= 0:
                return
            self.wake.wait(left)
            self.wake.clear()

    def _run(self):
        failures = 0
        while not self.stopped:
            try:
                ws = WebSocket(self.url, self._text, self._closed)
            except (OSError, Refused) as e:
                failures += 1
                delay = BACKOFF_MS[min(failures, len(BACKOFF_MS)) - 1]
                log(f"{self.url}: {e}; {failures} failure(s) in a row, next attempt in {delay} ms")
                self._sleep(delay / 1000)
                continue
            failures = 0
            self._serve(ws, lambda: True)
            if self.stopped:
                break
            ws.close()
            failures = 1
            log(f"{self.url}: connection lost; 1 failure, next attempt in {BACKOFF_MS[0]} ms")
            self._sleep(BACKOFF_MS[0] / 1000)

    def _serve(self, ws, keep_open, poll=None):
        """An open connection: every held id registered first, then a ping every KEEPALIVE_MS
        while it stays open and `keep_open()` holds."""
        with self.lock:
            self.ws = ws
            held = list(self.held)
        try:
            for peer_id in held:
                ws.send_text(dumps({"type": "register", "peerId": peer_id}))
            self.ready.set()
            log(f"{self.url}: open, registering {held}")
            next_ping = time.monotonic() + KEEPALIVE_MS / 1000
            while ws.open and not self.stopped and keep_open():
                wait = max(0.0, next_ping - time.monotonic())
                self.wake.wait(wait if poll is None else min(poll, wait))
                self.wake.clear()
                if ws.open and not self.stopped and time.monotonic() >= next_ping:
                    if ws.unanswered():
                        # Dead though never closed (a half-open connection): drop it, reconnect.
                        log(f"{self.url}: no answer to the keepalive in {KEEPALIVE_MS} ms; reconnecting")
                        ws.abort()
                        break
                    ws.ping()
                    next_ping = time.monotonic() + KEEPALIVE_MS / 1000
        except OSError:
            pass
        self.ready.clear()

    def send(self, doc, wait=10.0):
        """Send a frame on the open connection (after its registrations); False when it stays
        closed for `wait` seconds or the send fails."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and not self.stopped:
            if self.ready.wait(0.1):
                with self.lock:
                    ws = self.ws
                try:
                    ws.send_text(dumps(doc))
                    return True
                except OSError:
                    time.sleep(0.05)
        return False

    def stop(self):
        self.stopped = True
        self.wake.set()
        with self.lock:
            ws = self.ws
        if ws:
            ws.close()
        self.thread.join(2)


class AliasConnection(Connection):
    """--alias-socket: the alias on a connection of its own that follows the main one, as the
    real desktop's relay client does: closed when the main connection drops, opened again (and
    the alias registered first thing, PAIR-CONN-001) once the main one is back. Its attempts
    follow the main connection's, whose back-off they wait out."""

    def __init__(self, url, alias, events, main):
        self.main = main
        super().__init__(url, [alias], events)

    def _run(self):
        while not self.stopped:
            if not self.main.ready.wait(0.1):
                continue
            try:
                ws = WebSocket(self.url, self._text, self._closed)
            except (OSError, Refused) as e:
                log(f"{self.url} (alias): {e}; again once the main connection is open")
                self._sleep(0.5)
                continue
            self._serve(ws, self.main.ready.is_set, poll=0.1)
            ws.close()
            log(f"{self.url} (alias): closed with the main connection")


# ---------------------------------------------------------------------------------------------
# The desktop (pairing.md 4.5), one session per code.

class Desktop:
    def __init__(self, args):
        self.args = args
        self.peer_id = args.peer_id or f"outsider desktop \u00b7 {secrets.token_hex(6)}"
        check_peer(self.peer_id, "/pcPeerId")
        self.device = {"name": args.name, "platform": args.platform, "version": "0.1.0-outsider"}
        self.stop_requested = False
        self.faults = set(getattr(args, "fault", None) or [])
        self.paired_did = None   # the phone's DID once a session paired (the 4.6 exchange's peer)
        self.alias_conn = None   # --alias-socket: the alias connection of the session under way

    def release_alias(self, conn, alias):
        """The code is used up or abandoned: the alias is held no longer (PAIR-CONN-001)."""
        if self.alias_conn:
            self.alias_conn.stop()
        else:
            conn.release(alias)

    def confirmation(self, to, code):
        return {"type": "message", "to": to,
                "payload": {"type": "pairing:confirmation", "pairingCode": code, "pcPeerId": self.peer_id,
                            "deviceInfo": self.device, "timestamp": now_ms()}}

    def write_qr(self, qr):
        path = self.args.qr_file
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(qr, ensure_ascii=False, indent=None))   # ", " and ": ", raw UTF-8
        os.replace(tmp, path)

    def remove_qr(self, text):
        try:
            with open(self.args.qr_file, encoding="utf-8") as f:
                if f.read() == text:
                    os.remove(self.args.qr_file)
        except OSError:
            pass

    def take_scan(self):
        path = self.args.scan_file
        if not path:
            return None
        try:
            if os.path.getsize(path) == 0:
                return None
            with open(path, "rb") as f:
                data = f.read(MAX_DOC + 1)
            os.remove(path)
            return data
        except OSError:
            return None

    def session(self):
        """One code from showing to its end: prints its line, then closes its connection."""
        code = f"{secrets.randbelow(1000000):06d}"
        alias = "pairing-code:" + code
        events = queue.Queue()
        if self.args.alias_socket:
            conn = Connection(self.args.relay, [self.peer_id], events)
            self.alias_conn = AliasConnection(self.args.relay, alias, events, conn)
        else:
            conn = Connection(self.args.relay, [self.peer_id, alias], events)
            self.alias_conn = None
        self.qr_text = None
        self.paired_did = None
        line = None
        try:
            line = self.show(code, alias, conn, events)
            if line:
                print("outsider-desktop:", line, flush=True)
            if line and self.args.webrtc and self.paired_did:
                if self.qr_text:
                    self.remove_qr(self.qr_text)   # the code is used up: no QR on show while answering
                    self.qr_text = None
                print("outsider-desktop: webrtc", self.negotiate(conn, events, self.paired_did), flush=True)
            return line
        finally:
            if self.qr_text:
                self.remove_qr(self.qr_text)
            try:
                if line:
                    time.sleep(0.3)    # let a confirmation reach the relay before the closing handshake
            finally:
                if self.alias_conn:
                    self.alias_conn.stop()
                conn.stop()

    def show(self, code, alias, conn, events):
        """Register, show the code, and wait for its outcome; returns the line to print."""
        # Show the code only once the relay holds both ids (a typed code would otherwise get peer-offline).
        acked, open_since = set(), None
        while acked != {self.peer_id, alias}:
            if open_since is None and conn.ready.is_set():
                open_since = time.monotonic()
            if open_since is not None and time.monotonic() - open_since > 15:
                return f"failed: the relay did not acknowledge the registrations within 15 s; code {code} not shown"
            try:
                kind, data = events.get(timeout=0.2)
            except queue.Empty:
                continue
            if kind != "frame":
                continue
            try:
                doc = parse(data)
            except Violation as v:
                log(f"ignored a frame: {v}")
                continue
            if not isinstance(doc, dict):
                continue
            if doc.get("type") == "registered" and doc.get("peerId") in (self.peer_id, alias):
                acked.add(doc["peerId"])
            elif doc.get("type") == "error":
                return f"failed: the relay refused a registration ({doc.get('code')!r}); code {code} not shown"
        shown_at = now_ms()
        expires_at = shown_at + CODE_LIFE_MS
        qr = {"type": "desktop-pairing", "code": code, "pcPeerId": self.peer_id, "deviceInfo": self.device,
              "timestamp": shown_at, "relayUrl": self.args.relay,
              "iceServers": [{"urls": ["stun:stun.l.google.com:19302"]}], "iceExpiry": 0}
        if self.args.lan:
            qr["signalingUrl"] = self.args.lan
        self.qr_text = json.dumps(qr, ensure_ascii=False)
        self.write_qr(qr)
        log(f"code {code}  (type it on the phone, or scan the QR); QR {self.qr_text}")

        while True:
            if self.stop_requested:
                return None
            if now_ms() > expires_at:
                self.release_alias(conn, alias)
                return f"failed: expired: code {code} was not used within {CODE_LIFE_MS} ms (PAIR-DESK-001)"
            scanned = self.take_scan()
            if scanned is not None:
                return self.flow_a(conn, alias, scanned)
            try:
                kind, data = events.get(timeout=0.05)
            except queue.Empty:
                continue
            if kind == "closed":
                log(f"connection: {data}")
                continue
            line = self.on_frame(conn, code, alias, data, expires_at)
            if line:
                return line

    def on_frame(self, conn, code, alias, data, expires_at):
        try:
            doc = parse(data)
        except Violation as v:
            log(f"dropped a frame: {v}")
            return None
        if not isinstance(doc, dict):
            log("dropped a frame that is not an object")
            return None
        t = doc.get("type")
        if t in ("registered", "pong"):
            return None
        if t in ("peer-offline", "error"):
            log(f"relay: {dumps(doc)}")
            return None
        if t != "message":
            log(f"ignored a frame of type {t!r} (an extension)")
            return None
        try:
            to, frm, payload = check_delivery(doc)
        except Violation as v:
            log(f"dropped a message: {v}")
            return None
        if payload.get("type") != "pair-ack":
            log(f"ignored a message payload of type {payload.get('type')!r}")
            return None
        if to is not None and to not in (self.peer_id, alias):
            log(f"dropped a pair-ack addressed to {to!r}, not to this desktop")
            return None
        if now_ms() > expires_at:
            log("dropped: PAIR-DESK-003 at \"\": the code expired")
            return None
        if payload["pairingCode"] != code:
            log(f"dropped: PAIR-DESK-003 at \"/payload/pairingCode\": a pair-ack for {payload['pairingCode']}, showing {code}")
            return None
        self.release_alias(conn, alias)   # the code is used up (PAIR-DESK-002)
        did, name = payload["mobileDid"], payload["deviceInfo"]["name"]
        if to == self.peer_id:
            flow = "flow-b"   # the phone has already succeeded: no confirmation is due
        else:
            # to the alias, or a delivery without `to` (which cannot tell): confirm, the phone may wait for it
            flow = "manual" if to == alias else "manual-or-flow-b"
            if not conn.send(self.confirmation(did, code)):
                return f"failed: paired with {name!r} but the confirmation to {did} could not be sent"
        self.paired_did = did
        return f"success {flow} code={code} phone={json.dumps(name, ensure_ascii=False)} did={did} from={frm}"

    def flow_a(self, conn, alias, data):
        self.release_alias(conn, alias)   # the shown code is abandoned
        try:
            doc = check_device_pairing(parse(data))
        except Violation as v:
            return f"failed: scanned QR refused: {v}"
        age = now_ms() - doc["timestamp"]
        if age > CODE_LIFE_MS or age < -60000:
            return f"failed: scanned QR refused: its timestamp is {age} ms old (the phone's code lives {CODE_LIFE_MS} ms)"
        if not conn.send(self.confirmation(doc["did"], doc["code"])):
            return f"failed: the confirmation to {doc['did']} could not be sent"
        name = doc["deviceInfo"]["name"]
        self.paired_did = doc["did"]
        return f"success flow-a code={doc['code']} phone={json.dumps(name, ensure_ascii=False)} did={doc['did']}"

    def negotiate(self, conn, events, did):
        """pairing.md 4.6 as the answerer (PAIR-RTC-006): send nothing until the paired phone's
        offer arrives (its `from` is the phone's DID, byte for byte), then one answer to that
        `from` and each candidate in a message of its own; negotiated once a candidate of the
        phone's came too (before or after the offer). WEBRTC_WAIT_MS from pairing, keepalives
        going on meanwhile (the connection's own thread). Returns the outcome line."""
        nego = Negotiation("answerer", self.peer_id, did, time.monotonic())
        log(f"webrtc: waiting {WEBRTC_WAIT_MS} ms for the offer of {did}")
        while nego.state == "negotiating":
            if self.stop_requested:
                return "failed: stopped"
            now = time.monotonic()
            if nego.tick(now) != "negotiating":
                break
            try:
                kind, data = events.get(timeout=min(0.25, max(0.0, nego.deadline - now) + 0.01))
            except queue.Empty:
                continue
            if kind == "closed":
                log(f"connection: {data}")
                continue
            event = nego.frame(time.monotonic(), data)
            for note in nego.notes:
                log("webrtc:", note)
            nego.notes.clear()
            if event == "described":
                failure = self.answer(conn, nego)
                if failure:
                    return failure
        return nego.outcome()

    def answer(self, conn, nego):
        """One answer to the offer's `from`, then the candidates; None when all were sent."""
        to = nego.described_from
        mid = sdp_mid(nego.description["sdp"])
        sdp = make_sdp("active", mid)
        if "flat-answer" in self.faults:
            # fault: the SDP flat beside `type`, which 3.7 says is not an answer (CORE-TYPE-001 at /payload/answer)
            payload = {"type": "answer", "sdp": sdp}
        else:
            payload = {"type": "answer", "answer": {"type": "answer", "sdp": sdp}}
        candidates = [f"candidate:{secrets.randbelow(2 ** 32)} 1 udp 2113937151 203.0.113.{secrets.randbelow(200) + 10} "
                      f"{50000 + secrets.randbelow(10000)} typ host generation 0 network-cost 999",
                      f"candidate:{secrets.randbelow(2 ** 32)} 1 tcp 1518280447 203.0.113.{secrets.randbelow(200) + 10} "
                      f"9 typ host tcptype active generation 0"]
        frames = [signal_message(to, payload)] + [
            signal_message(to, {"type": "ice-candidate", "candidate": {"candidate": c, "sdpMid": mid, "sdpMLineIndex": 0}})
            for c in candidates]
        for frame in frames:
            wait = nego.deadline - time.monotonic()
            if wait <= 0 or not conn.send(frame, wait=min(5.0, wait)):
                return f"failed: PAIR-RTC-006 at \"\": could not send the {frame['payload']['type']} to {to}"
        log(f"webrtc: answered{' (flat, fault)' if 'flat-answer' in self.faults else ''} {to} "
            f"and sent {len(candidates)} candidates (mid {mid!r})")
        return None

    def run(self):
        n = 0
        while not self.stop_requested and (self.args.sessions == 0 or n < self.args.sessions):
            line = self.session()
            if line is None:
                break
            n += 1
            if line.startswith("failed: the relay refused"):
                time.sleep(BACKOFF_MS[-1] / 1000)   # do not hammer a relay that refuses


def main():
    parser = argparse.ArgumentParser(description="A pairing desktop written from the docs alone.")
    parser.add_argument("--relay", required=True, help="the signaling relay, ws://HOST:PORT (the QR's relayUrl)")
    parser.add_argument("--qr-file", required=True, help="write each QR text here")
    parser.add_argument("--scan-file", help="Flow A: read the phone's device-pairing QR text from here (removed once read)")
    parser.add_argument("--lan", help="a LAN signaling URL to put in the QR (signalingUrl); none by default")
    parser.add_argument("--peer-id", help="the desktop's own id (pcPeerId); default a random one with spaces and U+00B7")
    parser.add_argument("--name", default="Outsider Desktop")
    parser.add_argument("--platform", default="darwin", choices=["win32", "darwin", "linux"])
    parser.add_argument("--sessions", type=int, default=0, help="pair this many times (0: until stopped)")
    parser.add_argument("--webrtc", action="store_true",
                        help="after each pairing, wait for the phone's WebRTC offer and answer it (pairing.md 4.6)")
    parser.add_argument("--alias-socket", action="store_true",
                        help="hold the alias on a connection of its own that closes and reopens with the main one (the real desktop's form)")
    parser.add_argument("--fault", action="append", choices=FAULTS,
                        help="misbehave on purpose, with --webrtc (repeatable): flat-answer")
    args = parser.parse_args()
    if args.fault and not args.webrtc:
        parser.error("--fault needs --webrtc")
    desktop = Desktop(args)

    def stop(*_):
        desktop.stop_requested = True
        raise SystemExit(0)

    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    parent = os.getppid()

    def watch():   # a harness that dies without stopping us takes us with it
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    try:
        desktop.run()
    except SystemExit:
        pass
    log("stopped")


if __name__ == "__main__":
    main()
