#!/usr/bin/env python3
"""Frame-level hostile migration peers (Spec/migration.md 5) for the reference peers' tests.

    hostile.py sender   --attack NAME --listen 127.0.0.1:0 --ready-file F --pin-file PIN --result R
    hostile.py receiver --attack NAME --connect ws://HOST:PORT --pin-file PIN --result R

`sender` listens and is the old phone that `reference-peer receive` connects to; `receiver`
connects to `reference-peer send` and is the new phone. Each attack breaks one rule on the wire,
below the level any honest peer could (frame headers that lie, frames that never end, PINs by the
hundred). The peer writes what it saw to R as JSON ({"attack", "seen": [...], ...}); the tests
judge the victim by its exit, its log, its store and its peak memory.

Python's standard library only: its RFC 6455 framing is written here so that every byte of a
frame header can lie.
"""
import argparse
import base64
import hashlib
import json
import os
import secrets
import socket
import struct
import sys
import time
import uuid

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SEEN = []


def note(what, **members):
    SEEN.append(dict(what=what, **members))
    print("hostile:", what, members if members else "", file=sys.stderr, flush=True)


class Closed(Exception):
    def __init__(self, code=None):
        super().__init__(f"closed ({code})")
        self.code = code


class WS:
    """One upgraded connection. A client masks what it sends (RFC 6455 5.3); a server does not."""

    def __init__(self, sock, client):
        self.sock = sock
        self.client = client
        self.buffer = b""

    def read(self, n, timeout):
        end = time.monotonic() + timeout
        while len(self.buffer) < n:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError()
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                raise TimeoutError()
            except OSError:
                raise Closed()
            if not data:
                raise Closed()
            self.buffer += data
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def header(self, opcode, length, fin=True):
        first = (0x80 if fin else 0) | opcode
        mask = 0x80 if self.client else 0
        if length < 126:
            head = struct.pack("!BB", first, mask | length)
        elif length < 1 << 16:
            head = struct.pack("!BBH", first, mask | 126, length)
        else:
            head = struct.pack("!BBQ", first, mask | 127, length)
        return head + (b"\0\0\0\0" if self.client else b"")  # a zero mask key leaves the payload as is

    def send(self, opcode, payload, fin=True):
        self.sock.sendall(self.header(opcode, len(payload), fin) + payload)

    def oversize(self, opcode):
        """A frame whose header claims 2 GiB, then 4 MiB of it: MIG-WS-001 refuses it before its
        payload is read, so the victim closes (1009) long before."""
        self.sock.sendall(self.header(opcode, 1 << 31))
        try:
            for _ in range(64):
                self.sock.sendall(b" " * (1 << 16))
        except OSError:
            note("write refused")
        self.until_closed()

    def text(self, document):
        self.send(1, json.dumps(document, separators=(",", ":")).encode())

    def message(self, type_, **payload):
        self.text({"type": type_, "payload": payload})

    def receive(self, timeout=10.0):
        """The next data message: ("text", document or raw) or ("binary", bytes). Pings are
        answered; a close frame raises Closed with its code."""
        parts, kind = [], None
        while True:
            b0, b1 = self.read(2, timeout)
            opcode, length = b0 & 0x0F, b1 & 0x7F
            if length == 126:
                length = struct.unpack("!H", self.read(2, timeout))[0]
            elif length == 127:
                length = struct.unpack("!Q", self.read(8, timeout))[0]
            key = self.read(4, timeout) if b1 & 0x80 else None
            data = self.read(length, timeout)
            if key:
                data = bytes(c ^ key[i % 4] for i, c in enumerate(data))
            if opcode == 8:
                code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
                raise Closed(code)
            if opcode == 9:
                self.send(10, data)
                continue
            if opcode == 10:
                continue
            if opcode in (1, 2):
                kind = opcode
            parts.append(data)
            if b0 & 0x80:
                body = b"".join(parts)
                if kind == 2:
                    return "binary", body
                try:
                    return "text", json.loads(body)
                except ValueError:
                    return "text", body.decode("utf-8", "replace")

    def expect(self, type_, timeout=10.0):
        """Reads until a control message of this type, noting the others."""
        while True:
            kind, body = self.receive(timeout)
            if kind == "text" and isinstance(body, dict):
                if body.get("type") == type_:
                    return body["payload"]
                note("message", type=body.get("type"), payload=body.get("payload"))
            else:
                note(kind, length=len(body))

    def until_closed(self, timeout=20.0):
        """Reads (noting every message) until the victim closes; returns the close code, or
        "eof" when the connection ended without a close frame."""
        end = time.monotonic() + timeout
        try:
            while True:
                kind, body = self.receive(max(0.01, end - time.monotonic()))
                if kind == "text" and isinstance(body, dict):
                    note("message", type=body.get("type"), payload=body.get("payload"))
                else:
                    note(kind, length=len(body))
        except Closed as closed:
            note("closed", code=closed.code if closed.code is not None else "eof")
            return closed.code
        except TimeoutError:
            note("still open", seconds=timeout)
            return None


def read_head(sock, timeout=10.0):
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(4096)
        if not more:
            raise Closed()
        data += more
        if len(data) > 16384:
            raise ValueError("request head over 16 KiB")
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, rest


def accept_value(key):
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


# --- the sender side: reference-peer receive connects here --------------------------------------

def listen(spec, ready_file):
    host, port = spec.rsplit(":", 1)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, int(port)))
    server.listen(8)
    url = f"ws://{host}:{server.getsockname()[1]}"
    with open(ready_file + ".tmp", "w") as f:
        f.write(url)
    os.replace(ready_file + ".tmp", ready_file)
    return server


def upgrade(server, timeout=90.0, status=None, strict=False):
    """Accepts one connection and answers its upgrade: refused with `status`, or, `strict`, with
    400 when the request declares a body, as Python's websockets 12 does. The victim is started
    by the test once this peer is ready, and a loaded CI machine has let that take over 20 s: the
    wait only bounds a victim that never comes."""
    server.settimeout(timeout)
    sock, _ = server.accept()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request, headers, rest = read_head(sock)
    note("upgrade request", line=request, contentLength=headers.get("content-length"))
    if strict and ("content-length" in headers or "transfer-encoding" in headers):
        note("request body refused")
        status = "400 Bad Request"
    if status:
        sock.sendall(f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: 14\r\n\r\nnot a sender.\n".encode())
        sock.close()
        return None
    sock.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept_value(headers['sec-websocket-key'])}\r\n\r\n").encode())
    ws = WS(sock, client=False)
    ws.buffer = rest
    return ws


def sender_handshake(session_id):
    return dict(protocolVersion=1, role="sender", sessionId=session_id, appVersion="6.6.6",
                schemaVersion=1, device={"name": "hostile sender"}, maxWindow=64, maxChunkSize=16 << 20)


def read_pin(path, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path) as f:
                pin = f.read().strip()
            if len(pin) == 6:
                os.remove(path)
                return pin
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    raise TimeoutError("no PIN shown")


def greet_and_pin(ws, args, session_id=None):
    """Handshakes and the right PIN: the victim waits for BackupMeta."""
    ws.expect("Handshake")
    ws.message("Handshake", **sender_handshake(session_id or str(uuid.uuid4())))
    ws.message("AuthPIN", pin=read_pin(args.pin_file))
    accepted = ws.expect("AuthPIN")
    note("pin accepted", result=accepted.get("result"))
    ws.message("StartBackup")
    return accepted


def backup_meta(envelope, chunk_size, **override):
    meta = dict(backupId=str(uuid.uuid4()), fileSize=len(envelope), chunkSize=chunk_size,
                chunkCount=-(-len(envelope) // chunk_size), envelopeSHA256=hashlib.sha256(envelope).hexdigest(),
                zipSize=max(0, len(envelope) - 97), schemaVersion=1, appVersion="6.6.6")
    meta.update(override)
    return meta


def chunk(meta, index, data, length=None, digest=None):
    head = b"MSBC" + bytes([1, 0, 0, 0]) + uuid.UUID(meta["backupId"]).bytes
    head += struct.pack("!IQI", index, index * meta["chunkSize"], len(data) if length is None else length)
    return head + (digest or hashlib.sha256(data).digest()) + data


def pieces(envelope, meta):
    size = meta["chunkSize"]
    return [envelope[i:i + size] for i in range(0, len(envelope), size)]


def garbage(size):
    """An envelope's size of bytes that are no envelope (the digest announced is theirs)."""
    return b"MSBK" + secrets.token_bytes(size - 4)


def sender_attack(args):
    server = listen(args.listen, args.ready_file)
    attack = args.attack
    if attack == "refuse-upgrade":
        # The victim must stop at once and say what the sender answered: retrying a 4xx changes nothing.
        upgrade(server, status="400 Bad Request")
        server.settimeout(3)
        try:
            server.accept()
            note("connected again")
        except socket.timeout:
            note("no second attempt")
        return
    if attack == "strict-upgrade":
        ws = upgrade(server, strict=True)
        if ws:
            ws.expect("Handshake")
            note("upgraded and greeted")
        return
    if attack == "pin-storm":
        # Five wrong PINs per session, session after session (MIG-PIN-002, MIG-PIN-003).
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            try:
                ws = upgrade(server, timeout=max(0.1, end - time.monotonic()))
            except socket.timeout:
                break
            note("session", at=round(time.monotonic() * 1000))
            try:
                ws.expect("Handshake")
                ws.message("Handshake", **sender_handshake(str(uuid.uuid4())))
                shown = int(read_pin(args.pin_file))
                for guess in range(1, 6):
                    ws.message("AuthPIN", pin=f"{(shown + guess) % 1_000_000:06d}")
                    answer = ws.expect("AuthPIN")
                    note("answer", result=answer.get("result"), attemptsLeft=answer.get("attemptsLeft"))
                    if answer.get("result") != "rejected":
                        break
                ws.until_closed(1)
            except (Closed, TimeoutError) as error:
                note("session ended", why=str(error))
        return

    ws = upgrade(server)
    if attack == "silent":
        # Upgraded, then never a Handshake: the victim must not wait forever.
        ws.expect("Handshake")
        ws.until_closed(args.seconds)
        return
    if attack == "oversize-frame":
        ws.expect("Handshake")
        ws.oversize(2)
        return
    if attack == "fragment-storm":
        # A text message in endless empty fragments, then one fragment as large as the frame limit.
        ws.expect("Handshake")
        try:
            ws.send(1, b"{", fin=False)
            for _ in range(70_000):
                ws.send(0, b"", fin=False)
        except OSError:
            note("write refused")
        ws.until_closed()
        return
    if attack == "long-text":
        # A control message over 64 KiB, inside the receiver's frame limit (MIG-WS-001, CORE-JSON-004).
        ws.expect("Handshake")
        ws.send(1, json.dumps({"type": "Handshake", "payload": {"pad": "x" * 70_000}}).encode())
        ws.until_closed()
        return

    greet_and_pin(ws, args)
    envelope = garbage(args.size)
    meta = backup_meta(envelope, 4096)
    if attack == "meta-count-lie":
        meta["chunkCount"] += 1000  # MIG-MSG-004: not ceil(fileSize / chunkSize)
        ws.message("BackupMeta", **meta)
        ws.until_closed()
        return
    if attack == "meta-huge":
        # A petabyte announced: the receiver has no room and says so; nothing is created.
        meta = backup_meta(envelope, 16 << 20, fileSize=1 << 50, chunkCount=(1 << 50) // (16 << 20))
        ws.message("BackupMeta", **meta)
        ws.until_closed()
        return
    if attack == "chunk-before-start":
        # MIG-XFER-006: a chunk before BackupMeta. (After it, the victim's consent, given at once
        # with --yes, races the chunk to the machine.)
        ws.send(2, chunk(meta, 0, pieces(envelope, meta)[0]))
        ws.until_closed()
        return
    ws.message("BackupMeta", **meta)
    start = ws.expect("StartTransfer")
    window = start["window"]
    note("start", window=window)
    data = pieces(envelope, meta)
    if attack == "length-lie":
        ws.send(2, chunk(meta, 0, data[0][:100], length=4096))  # MIG-CHUNK-002: 72 + 4096 claimed, 172 sent
        ws.until_closed()
        return
    if attack == "past-window":
        # MIG-XFER-001: chunk `window` first, the `window` chunks below it never sent, so never
        # acknowledged: the sender had window + 1 outstanding. (Chunks 0...window in order cannot
        # show it over TCP: each is acknowledged before the next arrives.)
        ws.send(2, chunk(meta, window, data[window]))
        ws.until_closed(1)
        return
    if attack == "bad-digest-storm":
        # Chunk 0 with a wrong digest, every time it is asked again (MIG-CHUNK-004, MIG-XFER-002).
        bad = hashlib.sha256(b"not this").digest()
        ws.send(2, chunk(meta, 0, data[0], digest=bad))
        try:
            while True:
                kind, body = ws.receive(10)
                if kind == "text" and body.get("type") == "ChunkAck":
                    note("ack", status=body["payload"]["status"], index=body["payload"]["index"])
                    ws.send(2, chunk(meta, 0, data[0], digest=bad))
                elif kind == "text":
                    note("message", type=body.get("type"), payload=body.get("payload"))
        except Closed as closed:
            note("closed", code=closed.code)
        except (TimeoutError, OSError):
            note("closed", code="eof")
        return
    if attack == "resume-silent":
        # A few chunks, a dropped connection, and silence when the victim comes back (MIG-XFER-007).
        for index in range(3):
            ws.send(2, chunk(meta, index, data[index]))
            ws.expect("ChunkAck")
        ws.sock.close()
        again = upgrade(server)
        again.expect("Handshake")
        again.until_closed(args.seconds)
        return
    if attack == "resume-impostor":
        # A few chunks, a dropped connection, and a Handshake from another session when the victim
        # comes back (MIG-XFER-003): the resume token must not be given away.
        for index in range(min(window, 3)):
            ws.send(2, chunk(meta, index, data[index]))
            ws.expect("ChunkAck")
        ws.sock.close()
        again = upgrade(server)
        again.expect("Handshake")
        again.message("Handshake", **sender_handshake(str(uuid.uuid4())))
        again.until_closed()
        return
    # Every chunk, honestly, in windows.
    acked, next_index = set(), 0
    while len(acked) < len(data):
        while next_index < len(data) and next_index - len(acked) < window:
            ws.send(2, chunk(meta, next_index, data[next_index]))
            next_index += 1
        ack = ws.expect("ChunkAck")
        if ack["status"] == "ok":
            acked.add(ack["index"])
    note("all acknowledged", chunks=len(data))
    if attack == "complete-lie":
        ws.message("Complete", backupId=meta["backupId"], chunkCount=meta["chunkCount"], envelopeSHA256="0" * 64)
    elif attack == "garbage-package":
        ws.message("Complete", backupId=meta["backupId"], chunkCount=meta["chunkCount"], envelopeSHA256=meta["envelopeSHA256"])
    else:
        raise SystemExit(f"no attack {attack}")
    ws.until_closed()


# --- the receiver side: connects to reference-peer send -----------------------------------------

def connect(url, request_head=None, timeout=10.0):
    host, port = url.split("://", 1)[1].rstrip("/").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    key = base64.b64encode(secrets.token_bytes(16)).decode()
    head = (f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    if request_head is not None:
        return sock, head
    sock.sendall(head)
    status, headers, rest = read_head(sock, timeout)
    if " 101 " not in status + " " or headers.get("sec-websocket-accept") != accept_value(key):
        raise Closed(status)
    ws = WS(sock, client=True)
    ws.buffer = rest
    return ws


def receiver_handshake(session_id, window=64, chunk=16 << 20):
    return dict(protocolVersion=1, role="receiver", sessionId=session_id, appVersion="6.6.6",
                schemaVersion=1, device={"name": "hostile receiver"}, maxWindow=window, maxChunkSize=chunk)


def show_pin(path):
    pin = f"{secrets.randbelow(1_000_000):06d}"
    with open(path + ".tmp", "w") as f:
        f.write(pin + "\n")
    os.replace(path + ".tmp", path)
    return pin


def greeted_and_paid(ws, args, session_id):
    """Handshakes, the PIN shown and accepted, the package announced; returns (meta, token)."""
    ws.message("Handshake", **receiver_handshake(session_id))
    ws.expect("Handshake")
    pin = show_pin(args.pin_file)
    asked = ws.expect("AuthPIN", timeout=30)
    token = secrets.token_hex(16)
    ws.message("AuthPIN", result="accepted" if asked.get("pin") == pin else "rejected", resumeToken=token)
    meta = ws.expect("BackupMeta", timeout=60)
    note("meta", chunkCount=meta["chunkCount"], chunkSize=meta["chunkSize"])
    return meta, token


def come_back(url, session_id, attempts=20):
    """Reconnects and greets as a receiver does (§5.4): a sender that has not yet seen the old
    connection drop closes the new one with 1008, so it tries again after 250 ms."""
    for attempt in range(attempts):
        try:
            ws = connect(url)
            ws.message("Handshake", **receiver_handshake(session_id))
            ws.expect("Handshake")
            return ws
        except Closed as closed:
            note("refused", code=closed.code if closed.code is not None else "eof")
            if attempt == attempts - 1:
                raise
            time.sleep(0.25)


def receiver_attack(args):
    attack = args.attack
    if attack == "slow-upgrade":
        # Half an upgrade request, a byte at a time, then nothing: the listener must close it.
        sock, head = connect(args.connect, request_head=True)
        start = time.monotonic()
        try:
            for byte in head[:40]:
                sock.sendall(bytes([byte]))
                time.sleep(0.05)
            sock.settimeout(args.seconds)
            closed = sock.recv(1) == b""
            note("closed" if closed else "answered", after=round(time.monotonic() - start, 1))
        except socket.timeout:
            note("still open", seconds=args.seconds)
        except OSError:
            note("closed", after=round(time.monotonic() - start, 1))
        return
    ws = connect(args.connect)
    session = str(uuid.uuid4())
    if attack == "silent":
        # Connected, then never a Handshake (MIG-XFER-007).
        ws.until_closed(args.seconds)
        return
    if attack == "oversize-frame":
        ws.oversize(1)
        return
    if attack == "binary":
        ws.message("Handshake", **receiver_handshake(session))
        ws.expect("Handshake")
        ws.send(2, b"MSBC" + bytes(68))  # MIG-WS-001: the sender takes no binary frame
        ws.until_closed()
        return
    meta, token = greeted_and_paid(ws, args, session)
    ws.message("StartTransfer", backupId=meta["backupId"], window=64)
    if attack == "ack-unsent":
        ws.message("ChunkAck", backupId=meta["backupId"], index=1_000_000_000, status="ok")
        ws.until_closed()
        return
    if attack == "retransmit-storm":
        # Asks for chunk 0 again and again (MIG-XFER-002: the sender gives up, too-many-retransmits).
        try:
            while True:
                kind, body = ws.receive(10)
                if kind == "binary" and struct.unpack("!I", body[24:28])[0] == 0:
                    note("chunk 0")
                    ws.message("ChunkAck", backupId=meta["backupId"], index=0, status="retransmit")
                elif kind == "text":
                    note("message", type=body.get("type"), payload=body.get("payload"))
        except Closed as closed:
            note("closed", code=closed.code if closed.code is not None else "eof")
        return
    if attack == "stalled-reader":
        # Takes the first chunk, then stops reading the socket altogether while the window fills.
        ws.receive(30)
        note("stopped reading")
        time.sleep(args.seconds)
        try:
            ws.sock.settimeout(0.5)
            ws.sock.send(b"")
        except OSError:
            pass
        ws.until_closed(args.seconds)
        return
    # The resume tricks: acknowledge one chunk, drop, come back with a lie.
    kind, body = ws.receive(30)
    ws.message("ChunkAck", backupId=meta["backupId"], index=struct.unpack("!I", body[24:28])[0], status="ok")
    time.sleep(0.2)
    ws.sock.close()
    again = come_back(args.connect, session)
    if attack == "resume-wrong-token":
        again.message("ResumeTransfer", backupId=meta["backupId"], resumeToken=secrets.token_hex(16), have=[])
    elif attack == "resume-have-past-end":
        again.message("ResumeTransfer", backupId=meta["backupId"], resumeToken=token,
                      have=[[0, 1], [meta["chunkCount"] + 5, meta["chunkCount"] + 1_000_000]])
    else:
        raise SystemExit(f"no attack {attack}")
    again.until_closed()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["sender", "receiver"])
    parser.add_argument("--attack", required=True)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--ready-file")
    parser.add_argument("--connect")
    parser.add_argument("--pin-file", required=True)
    parser.add_argument("--result", required=True)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--size", type=int, default=100_000, help="the garbage envelope's size")
    args = parser.parse_args()
    try:
        (sender_attack if args.role == "sender" else receiver_attack)(args)
    except (Closed, TimeoutError, OSError) as error:
        note("ended", why=f"{type(error).__name__}: {error}")
    finally:
        with open(args.result, "w") as f:
            json.dump({"attack": args.attack, "seen": SEEN}, f)


if __name__ == "__main__":
    main()
