"""Writes Vectors/pairing/connection.json and mobile-bridge.json: a client's signaling connection
(reconnect, re-register, keepalive) and the desktop's side of pairing (Spec pairing.md 4.4, 4.5).
The expectations are written here by hand from the Spec; rerun after editing them."""
import json
import os
import re
import sys

from pairing_fixtures import DESK, LAN, MOBILE, PHONE, RELAY, T0
from vector_file import VectorFile, arm, disarm


class PairingFile(VectorFile):
    family = "pairing"
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "pairing")

    def steps(self, slug, comment, rules, steps, context=None, flags=()):
        """The triggers are the rules the expected trace names, in order of first appearance; each is also a rule of the case."""
        named = []
        for _, state, actions in steps:
            for found in re.findall(r'"rule": "([A-Z0-9-]+)"', json.dumps([state, actions])):
                if found not in named:
                    named.append(found)
        super().steps(slug, comment, rules + [r for r in named if r not in rules], named, steps, context=context, flags=flags)


def jcs(v): return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# connection (4.4)
# ---------------------------------------------------------------------------------------------
CONN, BACK, KEEP = "PAIR-CONN-001", "PAIR-CONN-002", "PAIR-CONN-003"
ALIAS = "pairing-code:482913"


def ev(name, at, **more): return {"event": name, "at": at, **more}
def reg_frame(pid, rule=None):
    a = {"action": "send", "document": {"type": "register", "peerId": pid}}
    if rule:
        a["rule"] = rule
    return a
CONNECT, CLOSE = {"action": "connect"}, {"action": "close"}
RECONNECT = {"action": "connect", "rule": BACK}   # an attempt after a back-off
PING = {"action": "ping", "rule": KEEP}
DROP = {"action": "drop", "rule": KEEP}    # as many keepalives as the limit went unanswered
def s_idle(*held): return {"name": "idle", "held": list(held)}
def s_connecting(failures, *held): return {"name": "connecting", "failures": failures, "held": list(held)}
def s_open(next_ping, *held, unanswered=0): return {"name": "open", "nextPingAt": next_ping, "unanswered": unanswered, "held": list(held)}
def s_waiting(failures, until, *held): return {"name": "waiting", "failures": failures, "until": until, "held": list(held)}
def s_closed(*held): return {"name": "closed", "held": list(held)}


c = PairingFile(machine="connection", timed={"open", "waiting"}, description=(
    "A client's signaling connection (Spec pairing.md section 4.4): after every connection it opens it registers again the ids "
    "it holds, reconnects by its back-off schedule and sends a keepalive at its interval. The context states the schedule "
    "(default the seed's 500/1000/2000/5000 ms and 30000 ms)."))

O = T0 + 120                  # the first connection opens
c.steps("register-then-reconnect",
        "The phone holds its DID: registered when the connection opens; after a drop it waits 500 ms, reconnects and registers the DID again before anything else.",
        [CONN, BACK, KEEP, "PAIR-SIG-001"],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 30000, PHONE), [reg_frame(PHONE, CONN), arm(O + 30000)]),
         (ev("failed", O + 4000), s_waiting(1, O + 4500, PHONE), [arm(O + 4500)]),
         (ev("tick", O + 4500), s_connecting(1, PHONE), [RECONNECT]),
         (ev("opened", O + 4530), s_open(O + 34530, PHONE), [reg_frame(PHONE, CONN), arm(O + 34530)])],
        flags=["seed-example"])

c.steps("backoff-schedule",
        "Attempts that keep failing wait 500, 1000, 2000, then 5000 ms, and 5000 ms for every further one; a connection that opens starts the schedule again.",
        [BACK, CONN],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 30000, PHONE), [reg_frame(PHONE, CONN), arm(O + 30000)]),
         (ev("failed", O + 1000), s_waiting(1, O + 1500, PHONE), [arm(O + 1500)]),
         (ev("tick", O + 1500), s_connecting(1, PHONE), [RECONNECT]),
         (ev("failed", O + 1510), s_waiting(2, O + 2510, PHONE), [arm(O + 2510)]),
         (ev("tick", O + 2510), s_connecting(2, PHONE), [RECONNECT]),
         (ev("failed", O + 2520), s_waiting(3, O + 4520, PHONE), [arm(O + 4520)]),
         (ev("tick", O + 4520), s_connecting(3, PHONE), [RECONNECT]),
         (ev("failed", O + 4530), s_waiting(4, O + 9530, PHONE), [arm(O + 9530)]),
         (ev("tick", O + 9530), s_connecting(4, PHONE), [RECONNECT]),
         (ev("failed", O + 9540), s_waiting(5, O + 14540, PHONE), [arm(O + 14540)]),
         (ev("tick", O + 14540), s_connecting(5, PHONE), [RECONNECT]),
         (ev("opened", O + 14600), s_open(O + 44600, PHONE), [reg_frame(PHONE, CONN), arm(O + 44600)]),
         (ev("failed", O + 20000), s_waiting(1, O + 20500, PHONE), [arm(O + 20500)])])

c.steps("first-attempt-fails",
        "The very first attempt fails: the first delay applies, as after a drop.",
        [BACK],
        [(ev("start", T0), s_connecting(0), [CONNECT]),
         (ev("failed", T0 + 50), s_waiting(1, T0 + 550), [arm(T0 + 550)]),
         (ev("tick", T0 + 550), s_connecting(1), [RECONNECT]),
         (ev("register", T0 + 560, peerId=PHONE), s_connecting(1, PHONE), []),
         (ev("opened", T0 + 600), s_open(T0 + 30600, PHONE), [reg_frame(PHONE, CONN), arm(T0 + 30600)])])

c.steps("early-tick-waits",
        "A tick before the back-off or the keepalive is due changes nothing: ticks may come late, never early.",
        [BACK, KEEP],
        [(ev("start", T0), s_connecting(0), [CONNECT]),
         (ev("failed", T0 + 10), s_waiting(1, T0 + 510), [arm(T0 + 510)]),
         (ev("tick", T0 + 509), s_waiting(1, T0 + 510), []),
         (ev("tick", T0 + 700), s_connecting(1), [RECONNECT]),
         (ev("opened", T0 + 710), s_open(T0 + 30710), [arm(T0 + 30710)]),
         (ev("tick", T0 + 30709), s_open(T0 + 30710), [])])

c.steps("android-schedule",
        "A client that states Android's schedule (a fixed 3000 ms, context.backoff [3000]) and iOS's keepalive (25000 ms) is held to it.",
        [BACK, KEEP],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 25000, PHONE), [reg_frame(PHONE, CONN), arm(O + 25000)]),
         (ev("failed", O + 100), s_waiting(1, O + 3100, PHONE), [arm(O + 3100)]),
         (ev("tick", O + 3100), s_connecting(1, PHONE), [RECONNECT]),
         (ev("failed", O + 3200), s_waiting(2, O + 6200, PHONE), [arm(O + 6200)])],
        context={"backoff": [3000], "keepaliveInterval": 25000}, flags=["interop-trap"])

c.steps("keepalive-every-interval",
        "While open, a keepalive every 30000 ms, counted from when each one was sent (a late tick moves the next one); the "
        "relay's answer (any frame) marks it answered.",
        [KEEP],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 30000, PHONE), [reg_frame(PHONE, CONN), arm(O + 30000)]),
         (ev("tick", O + 30000), s_open(O + 60000, PHONE, unanswered=1), [PING, arm(O + 60000)]),
         (ev("heard", O + 30040), s_open(O + 60000, PHONE), []),
         (ev("tick", O + 60400), s_open(O + 90400, PHONE, unanswered=1), [PING, arm(O + 90400)]),
         (ev("heard", O + 60450), s_open(O + 90400, PHONE), []),
         (ev("heard", O + 61000), s_open(O + 90400, PHONE), []),
         (ev("failed", O + 70000), s_waiting(1, O + 70500, PHONE), [arm(O + 70500)]),
         (ev("tick", O + 90400), s_connecting(1, PHONE), [RECONNECT])])

c.steps("unanswered-keepalive-drops",
        "A keepalive with nothing heard on the connection by the next one (the relay answers every keepalive, PAIR-RELAY-002): "
        "the connection is dead though no close came (a half-open TCP connection); the client drops it and reconnects after "
        "its back-off, registering again (OkHttp's ping interval; the seed's sendPing(pongReceiveHandler:)).",
        [KEEP, BACK, CONN],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 30000, PHONE), [reg_frame(PHONE, CONN), arm(O + 30000)]),
         (ev("tick", O + 30000), s_open(O + 60000, PHONE, unanswered=1), [PING, arm(O + 60000)]),
         (ev("tick", O + 59999), s_open(O + 60000, PHONE, unanswered=1), []),
         (ev("tick", O + 60000), s_waiting(1, O + 60500, PHONE), [DROP, arm(O + 60500)]),
         (ev("heard", O + 60100), s_waiting(1, O + 60500, PHONE), []),
         (ev("tick", O + 60500), s_connecting(1, PHONE), [RECONNECT]),
         (ev("heard", O + 60510), s_connecting(1, PHONE), []),
         (ev("opened", O + 60600), s_open(O + 90600, PHONE), [reg_frame(PHONE, CONN), arm(O + 90600)])])

c.steps("unanswered-limit-three",
        "A client that lets three keepalives in a row go unanswered (its unansweredLimit, 1 to 3; Android's heartbeat gives up "
        "after three missed pongs at 20 s): the fourth keepalive time drops the connection; an answer in between starts the "
        "count again.",
        [KEEP, BACK],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 20000, PHONE), [reg_frame(PHONE, CONN), arm(O + 20000)]),
         (ev("tick", O + 20000), s_open(O + 40000, PHONE, unanswered=1), [PING, arm(O + 40000)]),
         (ev("tick", O + 40000), s_open(O + 60000, PHONE, unanswered=2), [PING, arm(O + 60000)]),
         (ev("heard", O + 41000), s_open(O + 60000, PHONE), []),
         (ev("tick", O + 60000), s_open(O + 80000, PHONE, unanswered=1), [PING, arm(O + 80000)]),
         (ev("tick", O + 80000), s_open(O + 100000, PHONE, unanswered=2), [PING, arm(O + 100000)]),
         (ev("tick", O + 100000), s_open(O + 120000, PHONE, unanswered=3), [PING, arm(O + 120000)]),
         (ev("tick", O + 120000), s_waiting(1, O + 123000, PHONE), [DROP, arm(O + 123000)])],
        context={"backoff": [3000], "keepaliveInterval": 20000, "unansweredLimit": 3}, flags=["interop-trap"])

c.steps("desktop-holds-id-and-alias",
        "A desktop holds its own id and its code's alias: both registered, in order, after every reconnection.",
        [CONN, "PAIR-DESK-001"],
        [(ev("start", T0), s_connecting(0), [CONNECT]),
         (ev("opened", T0 + 80), s_open(T0 + 30080), [arm(T0 + 30080)]),
         (ev("register", T0 + 100, peerId=DESK), s_open(T0 + 30080, DESK), [reg_frame(DESK)]),
         (ev("register", T0 + 101, peerId=ALIAS), s_open(T0 + 30080, DESK, ALIAS), [reg_frame(ALIAS)]),
         (ev("register", T0 + 102, peerId=DESK), s_open(T0 + 30080, DESK, ALIAS), []),
         (ev("failed", T0 + 9000), s_waiting(1, T0 + 9500, DESK, ALIAS), [arm(T0 + 9500)]),
         (ev("tick", T0 + 9500), s_connecting(1, DESK, ALIAS), [RECONNECT]),
         (ev("opened", T0 + 9600), s_open(T0 + 39600, DESK, ALIAS), [reg_frame(DESK, CONN), reg_frame(ALIAS, CONN), arm(T0 + 39600)])])

c.steps("released-alias-not-registered-again",
        "Once its code is used up the desktop releases the alias: nothing is sent, and after a reconnection only its own id is registered (a spent code stays spent).",
        [CONN, "PAIR-DESK-002"],
        [(ev("register", T0, peerId=DESK), s_idle(DESK), []),
         (ev("register", T0, peerId=ALIAS), s_idle(DESK, ALIAS), []),
         (ev("start", T0), s_connecting(0, DESK, ALIAS), [CONNECT]),
         (ev("opened", T0 + 80), s_open(T0 + 30080, DESK, ALIAS), [reg_frame(DESK, CONN), reg_frame(ALIAS, CONN), arm(T0 + 30080)]),
         (ev("release", T0 + 5000, peerId=ALIAS), s_open(T0 + 30080, DESK), []),
         (ev("release", T0 + 5001, peerId=ALIAS), s_open(T0 + 30080, DESK), []),
         (ev("failed", T0 + 6000), s_waiting(1, T0 + 6500, DESK), [arm(T0 + 6500)]),
         (ev("tick", T0 + 6500), s_connecting(1, DESK), [RECONNECT]),
         (ev("opened", T0 + 6550), s_open(T0 + 36550, DESK), [reg_frame(DESK, CONN), arm(T0 + 36550)])])

c.steps("stop-closes-for-good",
        "Stop closes the connection; a closed connection ignores every later event (no reconnect after the flow is over).",
        [BACK],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("opened", O), s_open(O + 30000, PHONE), [reg_frame(PHONE, CONN), arm(O + 30000)]),
         (ev("stop", O + 1000), s_closed(PHONE), [CLOSE]),
         (ev("failed", O + 1001), s_closed(PHONE), []),
         (ev("tick", O + 40000), s_closed(PHONE), []),
         (ev("start", O + 40001), s_closed(PHONE), []),
         (ev("stop", O + 40002), s_closed(PHONE), [])])

c.steps("events-in-the-wrong-state",
        "Events that mean nothing in the current state are ignored: opened, failed or heard while idle, opened while open or "
        "waiting.",
        [BACK, CONN],
        [(ev("opened", T0), s_idle(), []),
         (ev("failed", T0 + 1), s_idle(), []),
         (ev("heard", T0 + 1), s_idle(), []),
         (ev("tick", T0 + 2), s_idle(), []),
         (ev("start", T0 + 3), s_connecting(0), [CONNECT]),
         (ev("start", T0 + 4), s_connecting(0), []),
         (ev("tick", T0 + 5), s_connecting(0), []),
         (ev("opened", T0 + 10), s_open(T0 + 30010), [arm(T0 + 30010)]),
         (ev("opened", T0 + 11), s_open(T0 + 30010), []),
         (ev("failed", T0 + 20), s_waiting(1, T0 + 520), [arm(T0 + 520)]),
         (ev("opened", T0 + 21), s_waiting(1, T0 + 520), []),
         (ev("failed", T0 + 22), s_waiting(1, T0 + 520), [])])

A2, A3 = "pairing-code:000042", "pairing-code:951617"
c.steps("held-ids-change-before-open",
        "Register and release change only held while no connection is open (idle, connecting, waiting): nothing is sent, and an "
        "id already held is not added twice; start while waiting or open is ignored. The next connection to open registers "
        "exactly the ids held then, in the order first asked for (a released alias is not registered).",
        [CONN, BACK],
        [(ev("register", T0, peerId=DESK), s_idle(DESK), []),
         (ev("register", T0 + 1, peerId=ALIAS), s_idle(DESK, ALIAS), []),
         (ev("release", T0 + 2, peerId=ALIAS), s_idle(DESK), []),
         (ev("start", T0 + 3), s_connecting(0, DESK), [CONNECT]),
         (ev("register", T0 + 4, peerId=A2), s_connecting(0, DESK, A2), []),
         (ev("release", T0 + 5, peerId=A2), s_connecting(0, DESK), []),
         (ev("failed", T0 + 10), s_waiting(1, T0 + 510, DESK), [arm(T0 + 510)]),
         (ev("register", T0 + 20, peerId=ALIAS), s_waiting(1, T0 + 510, DESK, ALIAS), []),
         (ev("register", T0 + 21, peerId=DESK), s_waiting(1, T0 + 510, DESK, ALIAS), []),
         (ev("release", T0 + 30, peerId=ALIAS), s_waiting(1, T0 + 510, DESK), []),
         (ev("register", T0 + 31, peerId=A3), s_waiting(1, T0 + 510, DESK, A3), []),
         (ev("start", T0 + 40), s_waiting(1, T0 + 510, DESK, A3), []),
         (ev("tick", T0 + 510), s_connecting(1, DESK, A3), [RECONNECT]),
         (ev("opened", T0 + 600), s_open(T0 + 30600, DESK, A3), [reg_frame(DESK, CONN), reg_frame(A3, CONN), arm(T0 + 30600)]),
         (ev("start", T0 + 700), s_open(T0 + 30600, DESK, A3), [])])

c.steps("stop-while-idle",
        "Stop in any state but closed closes, idle included (section 4.4): closed with close. A closed connection then ignores "
        "register, release, opened and start: held stays as it was and nothing is sent or connected.",
        [CONN],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("stop", T0 + 1), s_closed(PHONE), [CLOSE]),
         (ev("register", T0 + 2, peerId=DESK), s_closed(PHONE), []),
         (ev("release", T0 + 3, peerId=PHONE), s_closed(PHONE), []),
         (ev("opened", T0 + 4), s_closed(PHONE), []),
         (ev("start", T0 + 5), s_closed(PHONE), [])])

c.steps("stop-while-connecting",
        "Stop during an attempt closes (closed with close); the handshake completing afterwards is ignored: no register frame, "
        "no keepalive deadline.",
        [CONN],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("stop", T0 + 50), s_closed(PHONE), [CLOSE]),
         (ev("opened", T0 + 120), s_closed(PHONE), []),
         (ev("register", T0 + 130, peerId=DESK), s_closed(PHONE), [])])

c.steps("stop-while-waiting",
        "Stop while waiting for the next attempt closes (closed with close); a tick at the back-off's end afterwards starts no "
        "attempt, and a later release changes nothing.",
        [BACK],
        [(ev("register", T0, peerId=PHONE), s_idle(PHONE), []),
         (ev("start", T0), s_connecting(0, PHONE), [CONNECT]),
         (ev("failed", T0 + 50), s_waiting(1, T0 + 550, PHONE), [arm(T0 + 550)]),
         (ev("stop", T0 + 100), s_closed(PHONE), [CLOSE]),
         (ev("tick", T0 + 550), s_closed(PHONE), []),
         (ev("release", T0 + 600, peerId=PHONE), s_closed(PHONE), [])])

print("connection", c.write())


# ---------------------------------------------------------------------------------------------
# mobile-bridge (4.5)
# ---------------------------------------------------------------------------------------------
DESK_INFO = {"name": "MacBook-Pro-Li", "platform": "darwin", "version": "0.37.2"}
START = T0
CODE = "438026"               # 0x1d2c3b4a = 489438026 < 4294000000 -> 438026
A_CODE = "pairing-code:" + CODE
SHOW1, SHOW2, DREF = "PAIR-DESK-001", "PAIR-DESK-002", "PAIR-DESK-003"


def qr(code, at=START, lan=None):
    d = {"type": "desktop-pairing", "code": code, "pcPeerId": DESK, "deviceInfo": DESK_INFO, "timestamp": at}
    if lan:
        d["signalingUrl"] = lan
    d["relayUrl"] = RELAY
    return d


def showing(code, at=START, lan=None):
    q = qr(code, at, lan)
    return {"name": "showing", "qr": q, "qrJson": jcs(q), "expiresAt": at + 300000}


def ack(code, at, did=PHONE):
    return {"type": "pair-ack", "pairingCode": code, "mobileDid": did,
            "deviceInfo": {"deviceId": MOBILE["deviceId"], "name": MOBILE["name"], "platform": MOBILE["platform"]}, "timestamp": at}


def delivery(to, payload, frm=PHONE):
    d = {"type": "message"}
    if to is not None:
        d["to"] = to
    d["from"] = frm
    d["payload"] = payload
    return d


def confirmation_to(did, code, at):
    return {"action": "send", "url": RELAY, "message": {"type": "message", "to": did, "payload": {
        "type": "pairing:confirmation", "pairingCode": code, "pcPeerId": DESK, "deviceInfo": DESK_INFO, "timestamp": at}}}


def register(pid): return {"action": "register", "url": RELAY, "peerId": pid}
def release(pid): return {"action": "release", "url": RELAY, "peerId": pid}
def drop(rule, path=""): return {"action": "drop", "rule": rule, "path": path}


IDLE, EXPIRED = {"name": "idle"}, {"name": "expired"}
def paired(did=PHONE): return {"name": "paired", "deviceName": MOBILE["name"], "mobileDid": did}
def start(random="1d2c3b4a", at=START): return {"event": "start", "at": at, "random": random}
def message(doc, at): return {"event": "message", "at": at, "document": doc}
def shown(code, at=START): return [register(DESK), register("pairing-code:" + code), arm(at + 300001)]


mb = PairingFile(machine="mobile-bridge", timed={"showing"}, context={"pcPeerId": DESK, "device": DESK_INFO, "relayUrl": RELAY}, description=(
    "The desktop's side of pairing (Spec pairing.md section 4.5): it shows a code as a desktop-pairing QR and as six digits, "
    "registers its own id and the code's alias, takes the phone's pair-ack, and confirms a typed code; or it scans the phone's "
    "device-pairing QR and confirms."))

mb.steps("manual-code-confirmed",
         "Start shows the QR (JCS text) and registers the desktop's id and the alias; the pair-ack on the alias is confirmed to the phone's DID, and the alias released.",
         [SHOW1, SHOW2, "PAIR-SIG-001"],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(A_CODE, ack(CODE, START + 20000)), START + 20100), paired(),
           [release(A_CODE), confirmation_to(PHONE, CODE, START + 20100), disarm()])], flags=["seed-example"])

mb.steps("flow-b-ack-on-own-id",
         "Flow B: the ack comes to the desktop's own id. The phone has already succeeded, so no confirmation is due; the alias is released.",
         [SHOW2],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(DESK, ack(CODE, START + 9000)), START + 9050), paired(), [release(A_CODE), disarm()])], flags=["seed-example"])

mb.steps("delivery-without-to",
         "The deployed relay may leave out `to`: the desktop cannot tell the alias from its own id, so it confirms, as for a typed "
         "code (a missing confirmation strands a typing phone; a surplus one reaches a Flow B phone that has finished).",
         [SHOW2],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(None, ack(CODE, START + 9000)), START + 9050), paired(),
           [release(A_CODE), confirmation_to(PHONE, CODE, START + 9050), disarm()])], flags=["interop-trap"])

mb.steps("wrong-code-dropped-code-stays",
         "An ack with another code is dropped silently and the code stays on display; the right one is then confirmed.",
         [DREF, SHOW2],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(DESK, ack("438027", START + 5000)), START + 5010), showing(CODE), [drop(DREF, "/payload/pairingCode")]),
          (message(delivery(A_CODE, ack(CODE, START + 7000)), START + 7010), paired(), [release(A_CODE), confirmation_to(PHONE, CODE, START + 7010), disarm()])])

mb.steps("invalid-ack-dropped",
         "An ack that breaks its own rules (a five-digit code) is dropped on that rule, never confirmed.",
         [DREF, "PAIR-CODE-001"],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(DESK, ack("43802", START + 5000)), START + 5010), showing(CODE), [drop("PAIR-CODE-001", "/payload/pairingCode")])])

mb.steps("ack-after-expiry",
         "A code is live for 300000 ms inclusive: an ack at expiresAt is confirmed; one later finds the code expired, is dropped and the alias released.",
         [SHOW1, DREF],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(A_CODE, ack(CODE, START + 300001)), START + 300001), EXPIRED, [release(A_CODE), drop(DREF)])], flags=["boundary"])

mb.steps("ack-at-expiry-accepted",
         "An ack at exactly expiresAt is still in time.",
         [SHOW1, SHOW2],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(A_CODE, ack(CODE, START + 299000)), START + 300000), paired(),
           [release(A_CODE), confirmation_to(PHONE, CODE, START + 300000), disarm()])], flags=["boundary"])

mb.steps("expiry-then-retry",
         "A tick at expiresAt + 1 (the deadline) expires the code and releases the alias; retry starts over with a new code.",
         [SHOW1],
         [(start(), showing(CODE), shown(CODE)),
          ({"event": "tick", "at": START + 300001}, EXPIRED, [release(A_CODE)]),
          ({"event": "retry"}, IDLE, []),
          # 0x002dc6ea = 3000042 -> 000042
          (start("002dc6ea", START + 400000), showing("000042", START + 400000), shown("000042", START + 400000))])

mb.steps("other-payloads-ignored",
         "A message whose payload is not a pair-ack (an ICE push, an app's own message) is not for this flow: no action.",
         [SHOW2],
         [(start(), showing(CODE), shown(CODE)),
          (message(delivery(DESK, {"type": "chainlesschain:ice:config", "payload": {"iceServers": []}}), START + 1000), showing(CODE), [])])

DEV_QR = {"type": "device-pairing", "code": "951617", "did": PHONE,
          "deviceInfo": {"deviceId": MOBILE["deviceId"], "name": MOBILE["name"], "platform": MOBILE["platform"]}, "timestamp": T0}
mb.steps("flow-a-scan-confirmed",
         "Flow A: the desktop scans the phone's device-pairing QR, registers its own id and sends the confirmation to the QR's did with its code.",
         [SHOW2, "PAIR-SIG-001"],
         [({"event": "scanned", "at": T0 + 3000, "text": json.dumps(DEV_QR, separators=(",", ":"))}, paired(),
           [register(DESK), confirmation_to(PHONE, "951617", T0 + 3000)])], flags=["seed-example"])

mb.steps("flow-a-invalid-scan-fails",
         "Flow A: a scanned text that is not a valid device-pairing (a numeric code) fails the flow on that rule; nothing is sent.",
         ["CORE-TYPE-003"],
         [({"event": "scanned", "at": T0 + 3000, "text": json.dumps(dict(DEV_QR, code=951617), separators=(",", ":"))},
           {"name": "failed", "reason": {"rule": "CORE-TYPE-003", "path": "/code"}}, []),
          ({"event": "retry"}, IDLE, [])])

def tick(at): return {"event": "tick", "at": at}
def scanned(doc, at): return {"event": "scanned", "at": at, "text": json.dumps(doc, separators=(",", ":"))}
RETRY = {"event": "retry"}
BAD_SCAN = {"name": "failed", "reason": {"rule": "CORE-TYPE-003", "path": "/code"}}   # a numeric code
mb.steps("events-in-the-wrong-state",
         "Events that mean nothing in the current state are ignored: same state, no actions. In idle a message (even a good ack; "
         "no drop), a tick and retry; while showing a second start (no new code, nothing registered), a scan (even a valid "
         "device-pairing), a tick before expiresAt and retry; once paired every event (no second confirmation, no scan, no "
         "expiry from a late tick, retry ignored as after success).",
         [SHOW1, SHOW2],
         [(message(delivery(A_CODE, ack(CODE, START - 2000)), START - 1000), IDLE, []),
          (tick(START - 500), IDLE, []),
          (RETRY, IDLE, []),
          (start(), showing(CODE), shown(CODE)),
          (start("7a3f09c1", START + 1000), showing(CODE), []),
          (scanned(DEV_QR, START + 2000), showing(CODE), []),
          (tick(START + 2500), showing(CODE), []),
          (RETRY, showing(CODE), []),
          (message(delivery(A_CODE, ack(CODE, START + 3000)), START + 3100), paired(),
           [release(A_CODE), confirmation_to(PHONE, CODE, START + 3100), disarm()]),
          (start("7a3f09c1", START + 4000), paired(), []),
          (message(delivery(A_CODE, ack(CODE, START + 4900)), START + 5000), paired(), []),
          (scanned(DEV_QR, START + 6000), paired(), []),
          (tick(START + 300001), paired(), []),
          (RETRY, paired(), [])])

mb.steps("tick-at-expiry-keeps-code",
         "A code is live for 300000 ms inclusive: a tick at exactly expiresAt leaves it on display (no release); the tick at "
         "expiresAt + 1 expires it and releases the alias.",
         [SHOW1],
         [(start(), showing(CODE), shown(CODE)),
          (tick(START + 300000), showing(CODE), []),
          (tick(START + 300001), EXPIRED, [release(A_CODE)])], flags=["boundary"])

mb.steps("events-after-the-session-ended",
         "Expired and failed ignore everything but retry: start draws no code and registers nothing, a message (even a good ack "
         "for the old code) is neither confirmed nor dropped, a scan (even a valid device-pairing) pairs nothing, a tick changes "
         "nothing. Retry returns to idle from either.",
         [SHOW1, "CORE-TYPE-003"],
         [(start(), showing(CODE), shown(CODE)),
          (tick(START + 300001), EXPIRED, [release(A_CODE)]),
          (start("7a3f09c1", START + 300002), EXPIRED, []),
          (message(delivery(A_CODE, ack(CODE, START + 300003)), START + 300003), EXPIRED, []),
          (scanned(DEV_QR, START + 300004), EXPIRED, []),
          (tick(START + 300005), EXPIRED, []),
          (RETRY, IDLE, []),
          (scanned(dict(DEV_QR, code=951617), START + 400000), BAD_SCAN, []),
          (start("7a3f09c1", START + 400001), BAD_SCAN, []),
          (message(delivery(DESK, ack(CODE, START + 400002)), START + 400002), BAD_SCAN, []),
          (scanned(DEV_QR, START + 400003), BAD_SCAN, []),
          (tick(START + 400004), BAD_SCAN, []),
          (RETRY, IDLE, [])])
print("mobile-bridge", mb.write())
