#!/usr/bin/env python3
"""A pairing phone written from the README, Spec/pairing.md and Conformance/scenarios/README.md
alone, with no code of the reference: the outsider that `conformance run --role phone` is tested
against. It differs from the reference where the Spec allows: its own back-off (700/1400/2800 ms),
a 5 s keepalive sent as WebSocket ping frames (as iOS does), upper-case device ids, and its own
WebSocket client (standard library only).

    phone.py --handoff-file F --qr-file Q --signaling ws://HOST:PORT
"""
import argparse
import base64
import json
import os
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


def log(*a):
    print("outsider-phone:", *a, file=sys.stderr, flush=True)


def now_ms():
    return int(time.time() * 1000)


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
    again first after every reconnection, and pings every KEEPALIVE seconds."""

    def __init__(self, url, did, on_message):
        self.url, self.did, self.on_message = url, did, on_message
        self.registered = threading.Event()
        self.stopped = False
        self.ws = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _text(self, text):
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


class Phone:
    def __init__(self, args):
        self.args = args
        self.did = "did:key:z6Mk" + "".join(secrets.choice(B58) for _ in range(44))
        self.device = {"deviceId": str(uuid.uuid4()).upper(), "name": "Outsider Phone", "platform": "ios"}

    def ack(self, code, to):
        return {"type": "message", "to": to, "payload": {"type": "pair-ack", "pairingCode": code, "mobileDid": self.did,
                                                          "deviceInfo": self.device, "timestamp": now_ms()}}

    def wait_confirmation(self, url, code, ack_to=None, show=None, seconds=60):
        done = threading.Event()
        outcome = {"state": "timeout"}

        def on_message(doc):
            if doc.get("type") == "peer-offline" and ack_to:
                outcome["state"] = "failed: peer-offline"
                done.set()
            payload = doc.get("payload") if doc.get("type") == "message" else None
            if isinstance(payload, dict) and payload.get("type") == "pairing:confirmation" and payload.get("pairingCode") == code:
                outcome["state"] = "success"
                done.set()

        conn = Connection(url, self.did, on_message).start()
        if not conn.registered.wait(10):
            conn.stop()
            return "failed: not registered"
        if show:
            show()
        if ack_to and not conn.send(self.ack(code, ack_to)):
            conn.stop()
            return "failed: ack not sent"
        done.wait(seconds)
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
            try:
                Socket(url, lambda t: None).close()  # is it reachable at all?
            except (OSError, ConnectionError) as e:
                log(f"{url}: {e}")
                continue
            conn.start()
            sent = conn.send(self.ack(qr["code"], qr["pcPeerId"]))
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
    Phone(parser.parse_args()).run()
