"""The transfer's two sans-I/O machines (Spec/migration.md 5.3), written from the Spec; no code shared
with the Swift reference. Events in, (state, actions) out, time and random bytes injected.

The Spec names the machines' rules but not their state, event and action shapes; those are taken
from the vector files (Vectors/migration/sender.json, receiver.json, pin-lockout.json). The machine
defaults of 5.3 (app version, device names, windows, chunk sizes, free space, timeouts, send and
retransmit bounds) are in DEFAULTS and can be overridden through the context's `configuration`."""
import base64
import math
import uuid as uuidlib

import msbk_transfer_messages as msg
from msbk_package import Violation

PIN_ATTEMPTS = 5            # MIG-PIN-002
PIN_WORD_LIMIT = 4_294_000_000  # MIG-PIN-001: the largest multiple of 10^6 not above 2^32
LOCKOUT_FIRST_MS = 30_000   # MIG-PIN-003: the wait after one locked session
LOCKOUT_MAX_MS = 3_600_000  # MIG-PIN-003: doubling stops at one hour
SCHEMA_VERSION = 1

# 5.3's machine defaults. Timeouts are in ms of the injected clock (MIG-XFER-005, MIG-XFER-007).
DEFAULTS = {
    "sender": {"appVersion": "1.0.0", "deviceName": "Old iPhone", "schemaVersion": SCHEMA_VERSION,
               "maxWindow": 16, "chunkSize": 1 << 20, "ackTimeout": 15_000, "maxSendsPerChunk": 5,
               "handshakeTimeout": 10_000, "reconnectTimeout": 120_000},
    "receiver": {"appVersion": "1.0.0", "deviceName": "New iPhone", "schemaVersion": SCHEMA_VERSION,
                 "maxWindow": 16, "maxChunkSize": 1 << 20, "freeSpace": math.inf, "streaming": False, "stallTimeout": 30_000,
                 "maxRetransmitsPerChunk": 4, "handshakeTimeout": 10_000},
}


class OutOfRandom(Exception):
    pass


class RandomSource:
    """The injected random bytes (hex in the vectors); running out is a failure, never a fallback."""

    def __init__(self, hex_bytes):
        self.b = bytes.fromhex(hex_bytes or "")
        self.i = 0

    def take(self, n):
        if self.i + n > len(self.b):
            self.i = len(self.b)
            raise OutOfRandom()
        out = self.b[self.i:self.i + n]
        self.i += n
        return out

    def session_id(self):
        """A version 4 UUID (RFC 9562 section 5.4) from 16 random bytes."""
        return str(uuidlib.UUID(bytes=self.take(16), version=4))

    def token(self):
        return self.take(16).hex()

    def pin(self):
        """MIG-PIN-001: four bytes big-endian, words >= 4,294,000,000 discarded, mod 10^6, six digits."""
        while True:
            word = int.from_bytes(self.take(4), "big")
            if word < PIN_WORD_LIMIT:
                return f"{word % 1_000_000:06d}"


def to_ranges(indexes):
    """A set of chunk indexes as sorted, non-touching half-open ranges [from, to)."""
    out = []
    for i in sorted(indexes):
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return out


def from_ranges(ranges):
    return {i for start, end in ranges for i in range(start, end)}


class Ended(Exception):
    """Raised inside a handler once the machine reached a final state; the step ends there."""


class Machine:
    ROLE = ""
    FINAL = ("failed", "locked", "done")

    def __init__(self, context):
        context = context or {}
        self.cfg = dict(DEFAULTS[self.ROLE], **(context.get("configuration") or {}))
        self.random = RandomSource(context.get("random"))
        self.name = "idle"
        self.reason = None
        self.meta = None
        self.actions = []

    # -- plumbing --

    def emit(self, action, **members):
        self.actions.append(dict(action=action, **members))

    def send(self, kind, payload):
        self.emit("send", message={"type": kind, "payload": payload})

    def handshake_payload(self, **limits):
        return {"protocolVersion": 1, "role": self.ROLE, "sessionId": self.session_id,
                "appVersion": self.cfg["appVersion"], "schemaVersion": self.cfg["schemaVersion"],
                "device": {"name": self.cfg["deviceName"]}, **limits}

    def end(self, name, reason=None, cancel=None, close=True, rule=None, path=""):
        """Final state; `cancel` sends CancelTransfer with that reason; `rule` reports a violation."""
        self.name, self.reason = name, reason
        if cancel is not None:
            payload = {"reason": cancel}
            if self.meta is not None:
                payload = {"backupId": self.meta["backupId"], "reason": cancel}
            self.send("CancelTransfer", payload)
        if close:
            self.emit("close")
        if rule is not None:
            self.emit("reject", rule=rule, path=path)
        raise Ended()

    def protocol_error(self, rule, path=""):
        """MIG-XFER-006 and every other check whose failure ends the session with protocol-error."""
        self.end("failed", reason="protocol-error", cancel="protocol-error", rule=rule, path=path)

    def out_of_order(self):
        self.protocol_error("MIG-XFER-006")

    def same_backup(self, payload):
        if self.meta is None or payload.get("backupId", "").lower() != self.meta["backupId"].lower():
            self.protocol_error("MIG-XFER-006")

    def step(self, event):
        self.actions = []
        if self.name not in self.FINAL:   # MIG-XFER-006: after a side closed, nothing more is read
            try:
                self.handle(event)
            except Ended:
                pass
        return {"state": self.state(), "actions": self.actions, "deadline": self.next_deadline()}

    def handle(self, event):
        kind, at = event.get("event"), event.get("at", 0)
        if kind == "binary":
            # 5.4 (MIG-WS-001): a binary frame is a BackupChunk, and only the receiver reads them.
            if self.ROLE != "receiver":
                self.protocol_error("MIG-WS-001")
            return self.on_chunk({"frame": event.get("data", event.get("frame", ""))}, at)
        if kind in ("message", "text"):
            try:
                if kind == "text":   # 5.4: the frame's text, read under core.md before anything else
                    message = msg.control_message_document(str(event.get("text", "")).encode("utf-8", "surrogatepass"))
                else:
                    message = msg.control_message(event.get("document"))
            except Violation as v:
                self.protocol_error(v.rule, v.path)
            if message["type"] == "CancelTransfer":
                # The peer ended the session; nothing is sent back.
                self.end("failed", reason=message["payload"]["reason"])
            self.on_message(message["type"], message["payload"], at)
        else:
            handler = getattr(self, "on_" + str(kind).replace("-", "_"), None)
            if handler is not None:
                handler(event, at)


class Sender(Machine):
    """The old phone: listens, asks its user for the PIN, packs, sends chunks in a window."""
    ROLE = "sender"
    STATES_WITH_META = ("metaSent", "transferring", "paused", "completing", "waitingReconnect", "done", "failed")

    def __init__(self, context):
        super().__init__(context)
        self.session_id = None
        self.peer_window = None
        self.transfer_window = None
        self.token = None
        self.acked = set()
        self.in_flight = {}   # index -> time of its last send
        self.sends = {}       # index -> number of sends so far (MIG-XFER-002)
        self.handshaken = False
        self.peer_max_chunk = None # the receiver's Handshake maxChunkSize (MIG-META-001)
        self.wrong_pins = 0        # MIG-PIN-002: the receiver owes attemptsLeft 4, 3, 2, 1, then locked
        self.connected_at = None   # when the open connection that has not sent its Handshake came (MIG-XFER-007)
        self.wait_from = None      # waitingReconnect: when the last connection ended; None while one is open (MIG-XFER-005)

    @property
    def window(self):
        """MIG-XFER-001: the smallest of the two maxWindows and the StartTransfer (or resume) window."""
        if self.peer_window is None:
            return 1
        limits = [self.cfg["maxWindow"], self.peer_window]
        if self.transfer_window is not None:
            limits.append(self.transfer_window)
        return min(limits)

    def next_deadline(self):
        """When a tick next matters (Spec pairing.md 4 "Time", migration.md 5.3): every timeout is
        "more than", so one ms past it. A silent connection's handshake limit (MIG-XFER-007), a
        greeted one's resume limit (MIG-XFER-003), the reconnect wait and the oldest chunk's ack
        timeout (MIG-XFER-005); the earliest of those that run."""
        if self.name in self.FINAL:
            return None
        due = []
        if self.connected_at is not None:
            due.append(self.connected_at + self.cfg["handshakeTimeout"] + 1)
        if self.name == "waitingReconnect" and self.handshaken:
            due.append(self.greeted_at + self.cfg["handshakeTimeout"] + 1)
        if self.name == "waitingReconnect" and self.wait_from is not None:
            due.append(self.wait_from + self.cfg["reconnectTimeout"] + 1)
        if self.name == "transferring" and self.in_flight:
            due.append(min(self.in_flight.values()) + self.cfg["ackTimeout"] + 1)
        return min(due) if due else None

    def state(self):
        s = {"name": self.name, "window": self.window}
        if self.meta is not None and self.name in self.STATES_WITH_META:
            s["acked"] = to_ranges(self.acked)
            s["inFlight"] = sorted(self.in_flight)
        if self.reason is not None:
            s["reason"] = self.reason
        return s

    # -- events --

    def on_connected(self, event, at):
        if self.name == "idle":
            try:
                self.session_id = self.random.session_id()
            except OutOfRandom:
                self.end("failed", reason="no-random")
            self.name = "listening"
        elif self.name == "waitingReconnect":
            self.handshaken, self.wait_from = False, None   # MIG-XFER-005: an open connection stops the clock
        if self.name in ("listening", "waitingReconnect"):
            self.connected_at = at

    def on_disconnected(self, event, at):
        self.connected_at = None
        # 5.3 (table) and MIG-XFER-006: only a transfer that began (StartTransfer) waits for a reconnect;
        # in metaSent the connection ended before the transfer began: failed, `disconnected`.
        if self.name in ("transferring", "paused", "completing", "waitingReconnect"):
            self.handshaken = False   # the greeting was that connection's (MIG-XFER-003)
        if self.name in ("transferring", "paused", "completing"):
            self.name, self.in_flight = "waitingReconnect", {}
        elif self.name not in ("listening", "waitingReconnect"):
            # MIG-XFER-007: a connection gone before its Handshake was not the session's receiver.
            self.end("failed", reason="disconnected", close=False)
        if self.name == "waitingReconnect" and self.wait_from is None:
            self.wait_from = at   # MIG-XFER-005: the wait counts from the end of the last connection

    def on_user_entered_pin(self, event, at):
        if self.name == "awaitingPINEntry":
            self.send("AuthPIN", {"pin": event.get("pin")})
            self.name = "awaitingPINResult"

    def on_backup_ready(self, event, at):
        if self.name == "preparing":
            if self.peer_max_chunk is not None and event["meta"]["chunkSize"] > self.peer_max_chunk:
                # MIG-META-001: chunks the receiver would refuse are never announced; not the peer's fault.
                self.end("failed", reason="protocol-error", cancel="protocol-error")
            self.meta = event["meta"]
            self.send("BackupMeta", self.meta)
            self.name = "metaSent"

    def on_user_pause(self, event, at):
        if self.name == "transferring":
            # MIG-MSG-005: the peer is told with PauseTransfer {backupId}; no chunk goes out while paused.
            self.send("PauseTransfer", {"backupId": self.meta["backupId"]})
            self.name = "paused"

    def on_user_resume(self, event, at):
        if self.name == "paused":
            # MIG-MSG-005: the plain ResumeTransfer {backupId}, then the window is filled again.
            self.send("ResumeTransfer", {"backupId": self.meta["backupId"]})
            self.name = "transferring"
            self.fill(at)

    def on_user_cancel(self, event, at):
        self.cancel("user-cancelled")

    def on_store_changed(self, event, at):
        # MIG-XFER-008: a store file changed since the package was planned; no chunk from it is sent.
        self.cancel("store-changed")

    def cancel(self, reason):
        # MIG-MSG-007: CancelTransfer {backupId?, reason}, then close. Listening or waiting for the
        # receiver to come back there is no peer to tell (the Spec says nothing here).
        if self.name in ("idle", "listening", "waitingReconnect") and not self.handshaken:
            self.end("failed", reason=reason, close=self.connected_at is not None)
        self.end("failed", reason=reason, cancel=reason)

    def on_tick(self, event, at):
        self.close_silent_connection(at)
        if self.name == "waitingReconnect" and self.wait_from is not None \
                and at - self.wait_from > self.cfg["reconnectTimeout"]:
            # MIG-XFER-005: no receiver back for more than reconnectTimeout (strict); nothing is sent,
            # there is no connection.
            self.end("failed", reason="timeout", close=False)
        if self.name != "transferring":
            return
        due = [i for i in sorted(self.in_flight) if at - self.in_flight[i] > self.cfg["ackTimeout"]]
        for i in due:
            self.check_sends(i)
        for i in due:
            self.send_chunk(i, at)

    def close_silent_connection(self, at):
        """MIG-XFER-007: the sender serves one receiver at a time, so a connection that stays silent
        past handshakeTimeout ("more than", strict) is closed and reported; the session goes on listening."""
        if self.connected_at is not None and at - self.connected_at > self.cfg["handshakeTimeout"]:
            self.connected_at = None
            if self.name == "waitingReconnect":
                self.wait_from = at   # MIG-XFER-005: closing it ends the connection; the wait starts again
            self.emit("close")
            self.emit("reject", rule="MIG-XFER-007", path="")
        if self.name == "waitingReconnect" and self.handshaken and at - self.greeted_at > self.cfg["handshakeTimeout"]:
            # MIG-XFER-003: greeted and no ResumeTransfer: a receiver that began a new session waits
            # for a PIN as we wait for its resume. Closed, not reported; the wait counts again.
            self.handshaken, self.wait_from = False, at
            self.emit("close")

    # -- messages --

    def on_message(self, kind, p, at):
        n = self.name
        if kind == "Handshake" and (n == "listening" or (n == "waitingReconnect" and not self.handshaken)):
            if p["role"] != "receiver":
                self.protocol_error("MIG-MSG-002", "/payload/role")
            self.connected_at = None
            self.peer_window = p["maxWindow"]
            self.peer_max_chunk = p["maxChunkSize"]
            self.send("Handshake", self.handshake_payload(maxWindow=self.cfg["maxWindow"],
                                                          maxChunkSize=self.cfg["chunkSize"]))
            if n == "listening":
                self.emit("ask-pin", attemptsLeft=PIN_ATTEMPTS)
                self.name = "awaitingPINEntry"
            else:
                self.handshaken, self.greeted_at = True, at
        elif kind == "AuthPIN" and n == "awaitingPINResult" and "result" in p:
            self.on_pin_result(p)
        elif kind == "StartTransfer" and n == "metaSent":
            self.same_backup(p)
            self.transfer_window = p["window"]
            self.name = "transferring"
            self.fill(at)
        elif kind == "ChunkAck" and n in ("transferring", "paused", "completing"):
            self.on_ack(p, at)
        elif kind == "PauseTransfer" and n == "transferring":
            self.same_backup(p)
            self.name = "paused"
        elif kind == "ResumeTransfer" and n == "paused" and "resumeToken" not in p:
            self.same_backup(p)
            self.name = "transferring"
            self.fill(at)
        elif kind == "ResumeTransfer" and n == "waitingReconnect" and self.handshaken and "resumeToken" in p:
            self.on_resume(p, at)
        elif kind == "Complete" and n == "completing" and "result" in p:
            self.same_backup(p)
            if p["result"] == "verified":
                self.name = "done"
                self.emit("close")
            else:
                self.end("failed", reason="digest-mismatch")
        else:
            self.out_of_order()

    def on_pin_result(self, p):
        result = p["result"]
        if result == "accepted":
            self.token = p["resumeToken"]
            self.send("StartBackup", {})
            self.emit("prepare-backup")
            self.name = "preparing"
        elif result == "rejected":
            self.wrong_pins += 1
            due = PIN_ATTEMPTS - self.wrong_pins
            self.emit("ask-pin", attemptsLeft=p["attemptsLeft"])
            self.name = "awaitingPINEntry"
            if due <= 0:
                self.emit("reject", rule="MIG-PIN-002", path="/payload/result")
            elif p["attemptsLeft"] != due:
                self.emit("reject", rule="MIG-PIN-002", path="/payload/attemptsLeft")
        else:
            self.wrong_pins += 1
            self.end("locked", rule=None if self.wrong_pins == PIN_ATTEMPTS else "MIG-PIN-002", path="/payload/result")

    def on_ack(self, p, at):
        self.same_backup(p)
        i = p["index"]
        if i >= self.meta["chunkCount"]:
            self.protocol_error("MIG-XFER-006", "/payload/index")   # no such chunk
        if p["status"] == "ok":
            if i in self.in_flight:
                del self.in_flight[i]
                self.acked.add(i)
            elif i not in self.acked:
                self.out_of_order()   # an acknowledgement of a chunk that was never sent
        elif i not in self.acked:     # MIG-XFER-002: a complaint about an acknowledged chunk is ignored
            if i not in self.in_flight:
                self.out_of_order()
            self.check_sends(i)
            self.send_chunk(i, at)
        if self.name == "transferring":
            self.fill(at)

    def on_resume(self, p, at):
        """MIG-XFER-003: the token must be the session's; only the chunks the receiver lacks go out."""
        if p["backupId"].lower() != self.meta["backupId"].lower():
            self.protocol_error("MIG-XFER-003", "/payload/backupId")
        if p["resumeToken"] != self.token:
            self.protocol_error("MIG-XFER-003", "/payload/resumeToken")
        for n, (_, to) in enumerate(p["have"]):
            if to > self.meta["chunkCount"]:
                # a receiver cannot hold a chunk past the backup's last
                self.protocol_error("MIG-XFER-003", f"/payload/have/{n}")
        have = from_ranges(p["have"])
        if not self.acked <= have:
            # an acknowledged chunk is on disk: a have without it would send it again
            self.protocol_error("MIG-XFER-003", "/payload/have")
        self.acked |= have
        if p.get("window") is not None:
            self.transfer_window = p["window"]
        self.name = "transferring"
        self.fill(at)

    # -- chunks --

    def check_sends(self, i):
        if self.sends.get(i, 0) >= self.cfg["maxSendsPerChunk"]:
            self.end("failed", reason="too-many-retransmits", cancel="too-many-retransmits", rule="MIG-XFER-002")

    def send_chunk(self, i, at):
        self.sends[i] = self.sends.get(i, 0) + 1
        self.in_flight[i] = at
        self.emit("send-chunk", index=i)

    def fill(self, at):
        """Chunks in index order while fewer than `window` are unacknowledged; Complete after the last ack."""
        count = self.meta["chunkCount"]
        nxt = 0
        while len(self.in_flight) < self.window:
            while nxt < count and (nxt in self.acked or nxt in self.in_flight):
                nxt += 1
            if nxt >= count:
                break
            self.send_chunk(nxt, at)
        if len(self.acked) == count and self.name == "transferring":
            self.send("Complete", {"backupId": self.meta["backupId"], "chunkCount": count,
                                   "envelopeSHA256": self.meta["envelopeSHA256"]})
            self.name = "completing"


class Receiver(Machine):
    """The new phone: shows the PIN, checks the meta, asks its user, writes and acknowledges chunks."""
    ROLE = "receiver"

    def __init__(self, context):
        super().__init__(context)
        self.attempts = PIN_ATTEMPTS
        self.pin = self.token = self.session_id = None
        self.started_backup = False
        self.peer_window = None
        self.window = None
        self.have = set()
        self.held = set()   # 5.5: good chunks ahead of a gap, kept aside by the edge, not yet acknowledged
        self.last_heard = 0
        self.connected_at = 0   # MIG-XFER-007: the sender's Handshake is waited for from here
        self.sender_session = None
        self.declared = set()
        self.asked = {}   # index -> retransmits asked for so far (MIG-XFER-002, the receiver's bound)

    def state(self):
        s = {"name": self.name}
        if self.name == "awaitingPIN":
            s["attemptsLeft"] = self.attempts
        if self.reason is not None:
            s["reason"] = self.reason
        if self.meta is not None:
            s["have"] = to_ranges(self.have)
        if self.held:
            s["held"] = sorted(self.held)
        return s

    def handle(self, event):
        # 5.3's table: without a connection only a new one, or the user's cancel, counts (MIG-XFER-006).
        if self.name == "disconnected" and event.get("event") not in ("connected", "user-cancel"):
            return
        super().handle(event)

    def own_handshake(self):
        self.send("Handshake", self.handshake_payload(maxWindow=self.cfg["maxWindow"],
                                                      maxChunkSize=self.cfg["maxChunkSize"]))

    # -- events --

    def on_connected(self, event, at):
        if self.name == "idle":
            try:
                self.pin = self.random.pin()
            except OutOfRandom:
                # MIG-PIN-001: no PIN and no fallback; the session ends where it is.
                self.end("failed", reason="no-random", rule="MIG-PIN-001")
            try:
                self.token = self.random.token()
                self.session_id = self.random.session_id()
            except OutOfRandom:
                self.end("failed", reason="no-random")
            self.own_handshake()
            self.connected_at = at
            self.name = "awaitingHandshake"
        elif self.name == "disconnected":
            # MIG-XFER-003: greet, and keep the token until the same sender answers.
            self.own_handshake()
            self.connected_at = at
            self.name = "resuming"

    def on_disconnected(self, event, at):
        # MIG-XFER-003 (5.3's table): once the transfer began, a disconnect keeps everything for the
        # resume, paused or verifying too; before it (idle included) the session ends (MIG-XFER-006).
        if self.name in ("transferring", "paused", "verifying", "resuming"):
            self.name = "disconnected"
        elif self.name != "disconnected":
            self.end("failed", reason="disconnected", close=False)

    def on_user_pause(self, event, at):
        if self.name == "transferring":
            # MIG-MSG-005: the sender is told with PauseTransfer {backupId}.
            self.send("PauseTransfer", {"backupId": self.meta["backupId"]})
            self.name = "paused"

    def on_user_resume(self, event, at):
        if self.name == "paused":
            # MIG-MSG-005: the plain ResumeTransfer {backupId}; the stall clock starts again.
            self.send("ResumeTransfer", {"backupId": self.meta["backupId"]})
            self.name, self.last_heard = "transferring", at

    def on_user_cancel(self, event, at):
        # MIG-MSG-007: CancelTransfer {backupId?, reason: user-cancelled}, then close; with no
        # connection open (before the first, or while disconnected) there is no one to tell.
        if self.name in ("idle", "disconnected"):
            self.end("failed", reason="user-cancelled", close=False)
        self.end("failed", reason="user-cancelled", cancel="user-cancelled")

    def on_user_confirmed(self, event, at):
        if self.name != "confirming":
            return
        if event.get("yes") is not True:
            self.end("failed", reason="user-declined", cancel="user-declined")
        if self.meta.get("envelopeHeader") is not None:
            # MIG-META-002: the edge checks the password against the header before any chunk crosses.
            self.emit("check-password", rule="MIG-META-002")
            self.name = "checkingPassword"
            return
        self.start_transfer(at)

    def on_password_checked(self, event, at):
        """MIG-META-002: the edge's verdict on the header, as opening the envelope would give it."""
        if self.name != "checkingPassword":
            return
        result = event.get("result")
        if result == "wrong-password":
            # The sender did nothing wrong: no violation, only the outcome both sides share.
            self.end("failed", reason="wrong-password", cancel="wrong-password")
        if result == "invalid-header":
            # The sender's fault, on the envelope rule the header breaks (the edge names it).
            self.protocol_error(event.get("rule") or "MIG-META-002", "/payload/envelopeHeader")
        if result in ("opens", "not-checked"):
            # `not-checked`: the password is checked at restore, as without a header.
            self.start_transfer(at)

    def on_package_refused(self, event, at):
        """MIG-XFER-009: the edge unpacking as chunks arrive found the package broken: the sender's fault."""
        if self.name == "transferring":
            self.protocol_error(event.get("rule"), event.get("path", ""))

    def start_transfer(self, at):
        self.window = min(self.cfg["maxWindow"], self.peer_window)
        self.emit("open-file", backupId=self.meta["backupId"], fileSize=self.meta["fileSize"])
        self.send("StartTransfer", {"backupId": self.meta["backupId"], "window": self.window})
        self.name, self.last_heard = "transferring", at

    def on_file_verified(self, event, at):
        if self.name != "verifying":
            return
        backup = self.meta["backupId"]
        if event.get("ok") is True:
            self.send("Complete", {"backupId": backup, "result": "verified"})
            self.emit("restore", backupId=backup)
            self.name = "done"
        else:
            self.send("Complete", {"backupId": backup, "result": "digest-mismatch"})
            self.end("failed", reason="digest-mismatch", close=False, rule="MIG-XFER-004")

    def next_deadline(self):
        """MIG-XFER-005: while transferring, the stall limit past the last frame or the transfer's start or resume.
        MIG-XFER-007: on a connection, the wait for the sender's Handshake."""
        if self.name == "transferring":
            return self.last_heard + self.cfg["stallTimeout"] + 1
        if self.name in ("awaitingHandshake", "resuming"):
            return self.connected_at + self.cfg["handshakeTimeout"] + 1
        return None

    def on_tick(self, event, at):
        if self.name in ("awaitingHandshake", "resuming") and at - self.connected_at > self.cfg["handshakeTimeout"]:
            # a connection that has not greeted is only closed (MIG-MSG-007); the journal stays
            self.end("failed", reason="timeout", rule="MIG-XFER-007")
        if self.name == "transferring" and at - self.last_heard > self.cfg["stallTimeout"]:
            self.name = "disconnected"
            self.emit("close")
            self.emit("reject", rule="MIG-XFER-005", path="")

    def on_chunk(self, event, at):
        if self.name == "disconnected":
            return
        if self.name != "transferring":
            self.out_of_order()   # MIG-XFER-006: a chunk outside a transfer
        self.last_heard = at
        frame = base64.b64decode(event.get("frame", ""))
        try:
            header, data = msg.chunk_header(frame)
            msg.chunk_place(header, self.meta)
        except Violation as v:
            self.protocol_error(v.rule, v.path)   # MIG-CHUNK-003: a bad frame ends the session
        i = header["index"]
        ack = {"backupId": self.meta["backupId"], "index": i}
        if i in self.held:
            return   # 5.5: acknowledged with the others once the gap before it fills
        if i in self.have:
            # MIG-XFER-002: a chunk already held is acknowledged again, not written, its data not looked at.
            self.send("ChunkAck", dict(ack, status="ok"))
            if i in self.declared:
                # MIG-XFER-003: the ResumeTransfer said it was held; it must not come again.
                self.emit("reject", rule="MIG-XFER-003", path="/index")
            return
        try:
            msg.chunk_digest(header, data)
        except Violation as v:
            # MIG-XFER-002: a sender that keeps sending damaged data must not keep us asking forever.
            if self.asked.get(i, 0) >= self.cfg["maxRetransmitsPerChunk"]:
                self.end("failed", reason="too-many-retransmits", cancel="too-many-retransmits",
                         rule="MIG-XFER-002", path=v.path)
            # MIG-CHUNK-004: not written, asked again.
            self.asked[i] = self.asked.get(i, 0) + 1
            self.send("ChunkAck", dict(ack, status="retransmit"))
            self.emit("reject", rule=v.rule, path=v.path)
            return
        lacking = sum(1 for j in range(i) if j not in self.have)
        if self.cfg["streaming"] and lacking > 0:
            # 5.5: unpacked only in index order; kept aside unacknowledged within the window,
            # and past it not kept at all (MIG-XFER-001).
            if lacking + 1 > self.window:
                self.protocol_error("MIG-XFER-001")
            self.held.add(i)
            self.emit("write-chunk", index=i, offset=header["offset"], length=header["length"])
            return
        self.have.add(i)
        acked = [i]
        while acked[-1] + 1 in self.held:
            self.held.remove(acked[-1] + 1)
            self.have.add(acked[-1] + 1)
            acked.append(acked[-1] + 1)
        # MIG-XFER-003: write, then journal, then acknowledge.
        self.emit("write-chunk", index=i, offset=header["offset"], length=header["length"])
        self.emit("persist-journal", have=to_ranges(self.have))
        for j in acked:
            self.send("ChunkAck", dict(ack, index=j, status="ok"))
        if lacking + 1 > self.window:
            self.emit("reject", rule="MIG-XFER-001", path="")   # MIG-XFER-001: kept, acknowledged, reported

    # -- messages --

    def on_message(self, kind, p, at):
        n = self.name
        if n == "transferring":
            self.last_heard = at
        if kind == "Handshake" and n == "awaitingHandshake":
            if p["role"] != "sender":
                self.protocol_error("MIG-MSG-002", "/payload/role")
            self.peer_window = p["maxWindow"]
            self.sender_session = p["sessionId"]
            self.emit("show-pin", pin=self.pin)
            self.name = "awaitingPIN"
        elif kind == "Handshake" and n == "resuming":
            # MIG-XFER-003: only the sender authenticated with the PIN gets the token.
            if p["role"] != "sender" or p["sessionId"] != self.sender_session:
                self.protocol_error("MIG-XFER-003")
            self.send("ResumeTransfer", {"backupId": self.meta["backupId"], "resumeToken": self.token,
                                         "window": self.window, "have": to_ranges(self.have)})
            self.declared = set(self.have)
            self.held = set()   # not in the list: they come again
            self.name, self.last_heard = "transferring", at
        elif kind == "AuthPIN" and n == "awaitingPIN" and "pin" in p:
            self.on_pin(p["pin"])
        elif kind == "StartBackup" and n == "awaitingMeta" and not self.started_backup:
            self.started_backup = True
        elif kind == "BackupMeta" and n == "awaitingMeta" and self.started_backup:
            self.on_meta(p)
        elif kind == "PauseTransfer" and n == "transferring":
            self.same_backup(p)   # MIG-MSG-005
            self.name = "paused"
        elif kind == "ResumeTransfer" and n == "paused" and "resumeToken" not in p:
            self.same_backup(p)   # MIG-MSG-005: the plain form, after a pause
            self.name, self.last_heard = "transferring", at
        elif kind == "Complete" and n == "transferring" and "chunkCount" in p:
            self.on_complete(p)
        else:
            self.out_of_order()

    def on_pin(self, pin):
        """MIG-PIN-002: a wrong PIN is rejected with the attempts left; the fifth locks the session."""
        if pin == self.pin:
            self.send("AuthPIN", {"result": "accepted", "resumeToken": self.token})
            self.name = "awaitingMeta"
            return
        self.attempts -= 1
        if self.attempts == 0:
            self.send("AuthPIN", {"result": "locked"})
            self.end("locked", rule="MIG-PIN-002")
        self.send("AuthPIN", {"result": "rejected", "attemptsLeft": self.attempts})

    def on_meta(self, p):
        """MIG-META-001, in order: schema, free space, chunk size; then the user's consent."""
        self.meta = p
        if p["schemaVersion"] > self.cfg["schemaVersion"]:
            self.end("failed", reason="schema-incompatible", cancel="schema-incompatible", rule="MIG-META-001")
        # MIG-META-001: a receiver that unpacks as chunks arrive (5.5) needs no room for the package.
        needed = p["zipSize"] + self.cfg["maxWindow"] * p["chunkSize"] if self.cfg["streaming"] else p["fileSize"] + 2 * p["zipSize"]
        if self.cfg["freeSpace"] < needed:
            self.end("failed", reason="insufficient-space", cancel="insufficient-space", rule="MIG-META-001")
        if p["chunkSize"] > self.cfg["maxChunkSize"]:
            # The Spec names no reason for this check; the sender broke the bound the receiver announced.
            self.protocol_error("MIG-META-001")
        self.emit("confirm-wipe", backupId=p["backupId"])
        self.name = "confirming"

    def on_complete(self, p):
        """MIG-XFER-004: the whole file's digest is computed by the edge (verify-file) before any restore."""
        if len(self.have) != self.meta["chunkCount"]:
            self.out_of_order()   # Complete before every chunk is held
        # A Complete that does not repeat BackupMeta announces another backup: nothing is verified.
        for key in ("backupId", "chunkCount", "envelopeSHA256"):
            if not same_value(p[key], self.meta[key]):
                self.protocol_error("MIG-XFER-004", "/payload/" + key)
        self.emit("verify-file", expectedSHA256=self.meta["envelopeSHA256"])
        self.name = "verifying"


def same_value(a, b):
    """Equal, UUID strings compared without regard to case (they name the same bytes)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


class PinLockout:
    """MIG-PIN-003: the receiver's wait before a new PIN after locked sessions. Not a transfer session,
    so none of Machine's plumbing: events in, `{lockedInARow, notBefore}` and actions out."""

    def __init__(self, context):
        self.locked_in_a_row = 0
        self.not_before = 0

    def wait_ms(self):
        """30 s after the first locked session, doubling with each further one, at most an hour."""
        n = self.locked_in_a_row
        # Past 7 doublings the hour holds; the guard only keeps the shift small after many lockouts.
        return LOCKOUT_MAX_MS if n > 20 else min(LOCKOUT_FIRST_MS << (n - 1), LOCKOUT_MAX_MS)

    def on_session_ended(self, event, at):
        outcome = event.get("outcome")
        if outcome == "locked":
            self.locked_in_a_row += 1
            self.not_before = at + self.wait_ms()
        elif outcome == "pin-accepted":
            self.locked_in_a_row, self.not_before = 0, 0
        # Any other end came before the PIN was settled: it says nothing about guessing.

    def on_session_wanted(self, event, at):
        if at < self.not_before:
            self.actions.append({"action": "wait", "until": self.not_before, "rule": "MIG-PIN-003"})
        else:
            self.actions.append({"action": "start-session"})

    def step(self, event):
        self.actions = []
        handler = getattr(self, "on_" + str(event.get("event")).replace("-", "_"), None)
        if handler is not None:
            handler(event, event.get("at", 0))
        return {"state": {"lockedInARow": self.locked_in_a_row, "notBefore": self.not_before},
                "actions": self.actions}


MACHINES = {"sender": Sender, "receiver": Receiver, "pin-lockout": PinLockout}


def run(machine, context, events):
    """The trace for one machine vector, or None when the machine is not implemented."""
    cls = MACHINES.get(machine)
    if cls is None:
        return None
    m = cls(context)
    return [m.step(e) for e in events]
