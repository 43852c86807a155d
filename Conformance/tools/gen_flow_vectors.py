"""Writes Vectors/pairing/flow-b.json, flow-a.json and manual.json: the three pairing flows as
sans-I/O machines (Spec pairing.md section 4). The expectations are written here by hand from the
Spec (codes drawn from the random bytes are worked out in the comments); rerun after editing them."""
import json
import os
import sys

from pairing_fixtures import DESK, LAN, MOBILE, PHONE, RELAY, T0, UUID  # noqa: F401
from vector_file import arm, disarm, state_deadlines, write_file

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "pairing")
CONTEXT = {"activeDid": PHONE, "device": dict(MOBILE), "signalingUrl": RELAY}
S = RELAY                      # the context's signaling URL (Flow A, manual)
EU = "wss://relay-eu.chainlesschain.com"   # a QR relayUrl that is not the context's URL
DEL = object()                 # marks a member to remove from a base document
NO_DID = {"activeDid": None}


def compact(v): return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
def jcs(v): return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def edit(base, **over):
    d = {}
    for k, v in base.items():
        if k in over:
            if over[k] is not DEL:
                d[k] = over[k]
        else:
            d[k] = v
    for k, v in over.items():
        if k not in base and v is not DEL:
            d[k] = v
    return d


def ack(code, at, device=MOBILE):
    return {"type": "pair-ack", "pairingCode": code, "mobileDid": PHONE,
            "deviceInfo": {"deviceId": device["deviceId"], "name": device["name"], "platform": device["platform"]},
            "timestamp": at}


# actions
def register(url, pid=PHONE): return {"action": "register", "url": url, "peerId": pid}
def send(url, to, payload): return {"action": "send", "url": url, "message": {"type": "message", "to": to, "payload": payload}}
def reset(): return {"action": "reset"}
def persist(record): return {"action": "persist", "record": record}
def drop(rule, path=""): return {"action": "drop", "rule": rule, "path": path}


def failed(rule, path=""): return {"name": "failed", "reason": {"rule": rule, "path": path}}
def step(ev, state, actions=()): return {"event": ev, "expect": {"state": state, "actions": list(actions)}}


def case(cases, machine, slug, comment, rules, triggers, steps, flags=(), context=None):
    c = {"id": f"pairing/{machine}/{slug}", "comment": comment, "flags": list(flags), "rules": list(rules), "triggers": list(triggers)}
    if context is not None:
        c["context"] = context
    c["steps"] = steps
    cases.append(c)


# The states in which each flow keeps a deadline (Flow B keeps none: its steps state none).
TIMED = {"flow-a": {"displaying"}, "manual": {"submitting"}}


def write(machine, description, cases):
    if machine in TIMED:
        for c in cases:
            state_deadlines(c["steps"], TIMED[machine])
    print(machine, write_file(OUT, "pairing", description, CONTEXT, cases, machine=machine))


# ---------------------------------------------------------------------------------------------
# Flow B (section 4.1): scanning -> sending(desktopName) -> success(desktopName) | failed(reason)
# ---------------------------------------------------------------------------------------------
QT = T0                        # the QR's timestamp
SCAN = T0 + 4000               # the scan, 4 s later
ICE = [{"urls": "stun:stun.chainlesschain.com:3478"},
       {"urls": ["turn:turn.chainlesschain.com:3478?transport=udp", "turn:turn.chainlesschain.com:3478?transport=tcp"],
        "username": "1747386400:desktop-4f9c2a", "credential": "q7Z+0f/Xk2w="}]
ICE_JSON = ('[{"urls":"stun:stun.chainlesschain.com:3478"},'
            '{"urls":["turn:turn.chainlesschain.com:3478?transport=udp","turn:turn.chainlesschain.com:3478?transport=tcp"],'
            '"username":"1747386400:desktop-4f9c2a","credential":"q7Z+0f/Xk2w="}]')   # received order: urls, username, credential
ICE_EXPIRY = 1747386400        # epoch seconds, T0 + 24 h
QR = {"type": "desktop-pairing", "code": "048213", "pcPeerId": DESK,
      "deviceInfo": {"name": "MacBook-Pro-Li", "platform": "darwin", "version": "0.37.2"},
      "timestamp": QT, "signalingUrl": LAN, "relayUrl": RELAY, "iceServers": ICE, "iceExpiry": ICE_EXPIRY}
QR_MIN = edit(QR, signalingUrl=DEL, iceServers=DEL, iceExpiry=DEL)   # relay only, no ICE


def scanned(doc, at=SCAN): return {"event": "scanned", "at": at, "text": doc if isinstance(doc, str) else compact(doc)}
def ok(at): return {"event": "send-succeeded", "at": at}
def ko(at): return {"event": "send-failed", "at": at}
RETRY = {"event": "retry"}
SCANNING = {"name": "scanning"}
def sending(n="MacBook-Pro-Li"): return {"name": "sending", "desktopName": n}
def success(n="MacBook-Pro-Li"): return {"name": "success", "desktopName": n}
def to_desk(url, code="048213", at=SCAN, pid=DESK): return [register(url), send(url, pid, ack(code, at))]


def record(at, name="MacBook-Pro-Li", platform="darwin", lan=LAN, relay=RELAY, ice=ICE_JSON, expiry=ICE_EXPIRY, pid=DESK):
    r = {"pcPeerId": pid, "deviceName": name, "platform": platform}
    if lan is not None:
        r["lanSignalingUrl"] = lan
    r["relayUrl"] = relay
    if ice is not None:
        r["iceServersJson"] = ice
    r["iceExpiry"] = expiry
    r["pairedAt"] = at
    r["lastSeenAt"] = at
    return r


fb = []
case(fb, "flow-b", "lan-happy-path",
     "A valid QR with a LAN URL, ICE servers and expiry: register and send the ack on the LAN URL, then persist the desktop with every QR member.",
     ["PAIR-TIME-002", "PAIR-DID-002", "PAIR-SIG-001", "PAIR-STORE-001", "PAIR-FLOWB-001"], [],
     [step(scanned(QR), sending(), to_desk(LAN)),
      step(ok(SCAN + 800), success(), [persist(record(SCAN + 800))])], ["seed-example"])

UNAME = "李雷的 MacBook Pro 💻 Zoe\u0308"   # CJK, an emoji and a decomposed e-umlaut, kept as received
case(fb, "flow-b", "unicode-desktop-name",
     "A desktop name in CJK with an emoji and a combining mark is shown and stored exactly as received (no normalization).",
     ["PAIR-INFO-001", "PAIR-SIG-001"], [],
     [step(scanned(edit(QR, deviceInfo={"name": UNAME, "platform": "win32"}, iceServers=DEL, iceExpiry=DEL)), sending(UNAME), to_desk(LAN)),
      step(ok(SCAN + 700), success(UNAME), [persist(record(SCAN + 700, name=UNAME, platform="win32", ice=None, expiry=0))])],
     ["interop-trap"])

case(fb, "flow-b", "relay-only-happy-path",
     "A QR without signalingUrl goes straight to its relayUrl (not the configured signaling URL); the record has no LAN URL, no ICE and iceExpiry 0.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001"], [],
     [step(scanned(edit(QR_MIN, relayUrl=EU)), sending(), to_desk(EU)),
      step(ok(SCAN + 900), success(), [persist(record(SCAN + 900, lan=None, relay=EU, ice=None, expiry=0))])])

case(fb, "flow-b", "relay-only-send-fails",
     "Without a LAN URL the relay send is the only attempt: when it fails the flow fails at once, with no reset and no retry.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001"], ["PAIR-FLOWB-001"],
     [step(scanned(QR_MIN), sending(), to_desk(RELAY)),
      step(ko(SCAN + 5000), failed("PAIR-FLOWB-001"))])

case(fb, "flow-b", "signaling-url-null-means-relay",
     "signalingUrl null is 'no LAN URL' (Kotlin writes null for absent optionals): the ack goes to the relay and the record omits lanSignalingUrl.",
     ["PAIR-URL-001", "PAIR-SIG-001"], [],
     [step(scanned(edit(QR, signalingUrl=None)), sending(), to_desk(RELAY)),
      step(ok(SCAN + 600), success(), [persist(record(SCAN + 600, lan=None))])], ["interop-trap"])

case(fb, "flow-b", "signaling-url-empty-means-relay",
     "signalingUrl \"\" is 'no LAN URL' as well: the ack goes to the relay, and a relay failure ends the flow without a second attempt.",
     ["PAIR-URL-001", "PAIR-FLOWB-001", "PAIR-SIG-001"], ["PAIR-FLOWB-001"],
     [step(scanned(edit(QR, signalingUrl="")), sending(), to_desk(RELAY)),
      step(ko(SCAN + 5000), failed("PAIR-FLOWB-001"))], ["interop-trap"])

case(fb, "flow-b", "lan-fails-relay-succeeds",
     "When the LAN send fails the phone resets, registers its own DID on the relay and sends the same ack (scan-time timestamp) once; success persists both URLs.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001", "PAIR-STORE-001"], [],
     [step(scanned(QR), sending(), to_desk(LAN)),
      step(ko(SCAN + 5000), sending(), [reset()] + to_desk(RELAY)),
      step(ok(SCAN + 5600), success(), [persist(record(SCAN + 5600))])], ["seed-example"])

case(fb, "flow-b", "lan-and-relay-fail",
     "When the relay send fails after the LAN send, the flow fails with PAIR-FLOWB-001; there is never a third attempt.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001"], ["PAIR-FLOWB-001"],
     [step(scanned(QR), sending(), to_desk(LAN)),
      step(ko(SCAN + 5000), sending(), [reset()] + to_desk(RELAY)),
      step(ko(SCAN + 9000), failed("PAIR-FLOWB-001")),
      step(ko(SCAN + 9500), failed("PAIR-FLOWB-001"))])

case(fb, "flow-b", "lan-fails-relay-is-the-qr-relay",
     "The fallback uses the QR's relayUrl, not the phone's configured signaling URL.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001"], [],
     [step(scanned(edit(QR, relayUrl=EU)), sending(), to_desk(LAN)),
      step(ko(SCAN + 5000), sending(), [reset()] + to_desk(EU)),
      step(ok(SCAN + 5400), success(), [persist(record(SCAN + 5400, relay=EU))])])

case(fb, "flow-b", "code-five-digits",
     "A 5-digit code fails the scan with PAIR-CODE-001 at /code; nothing is registered or sent.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(scanned(edit(QR, code="04821")), failed("PAIR-CODE-001", "/code"))])

case(fb, "flow-b", "code-arabic-indic-digits",
     "Arabic-Indic digits match \\d on Java, Kotlin and .NET but are not a code.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(scanned(edit(QR, code="٠٤٨٢١٣")), failed("PAIR-CODE-001", "/code"))], ["interop-trap"])

case(fb, "flow-b", "qr-300000-ms-old-accepted",
     "A QR exactly 300000 ms old is still accepted.",
     ["PAIR-TIME-002", "PAIR-SIG-001"], [],
     [step(scanned(QR, QT + 300000), sending(), to_desk(LAN, at=QT + 300000))], ["boundary"])

case(fb, "flow-b", "qr-300001-ms-old",
     "A QR 300001 ms old fails with PAIR-TIME-002 at /timestamp.",
     ["PAIR-TIME-002"], ["PAIR-TIME-002"],
     [step(scanned(QR, QT + 300001), failed("PAIR-TIME-002", "/timestamp"))], ["boundary"])

case(fb, "flow-b", "qr-60001-ms-in-the-future",
     "A QR dated 60001 ms after the scan fails with PAIR-TIME-003; 60000 ms would pass.",
     ["PAIR-TIME-003"], ["PAIR-TIME-003"],
     [step(scanned(QR, QT - 60001), failed("PAIR-TIME-003", "/timestamp"))], ["boundary"])

case(fb, "flow-b", "no-active-did",
     "Without an active DID the phone cannot accept the QR: failed PAIR-DID-002 at the root.",
     ["PAIR-DID-002"], ["PAIR-DID-002"],
     [step(scanned(QR), failed("PAIR-DID-002"))], context=NO_DID)

case(fb, "flow-b", "no-active-did-after-code-check",
     "The DID check is check 5: a bad code is reported first even when there is no active DID.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(scanned(edit(QR, code="48213")), failed("PAIR-CODE-001", "/code"))], context=NO_DID)

case(fb, "flow-b", "no-active-did-before-device-info",
     "The DID check comes before deviceInfo: a QR with a bad platform and no active DID reports PAIR-DID-002.",
     ["PAIR-DID-002"], ["PAIR-DID-002"],
     [step(scanned(edit(QR, deviceInfo={"name": "MacBook-Pro-Li", "platform": "macos"})), failed("PAIR-DID-002"))], context=NO_DID)

case(fb, "flow-b", "not-json",
     "A QR that is not JSON (a web link) fails with CORE-JSON-001 at the root.",
     ["CORE-JSON-001"], ["CORE-JSON-001"],
     [step(scanned("https://chainlesschain.com/pair?code=048213"), failed("CORE-JSON-001"))])

case(fb, "flow-b", "wrong-type",
     "A QR of another kind (the phone's own device-pairing) fails with PAIR-TYPE-001 at /type.",
     ["PAIR-TYPE-001"], ["PAIR-TYPE-001"],
     [step(scanned(edit(QR, type="device-pairing")), failed("PAIR-TYPE-001", "/type"))])

case(fb, "flow-b", "lan-url-not-websocket",
     "An http:// LAN URL fails with PAIR-URL-001 at /signalingUrl.",
     ["PAIR-URL-001"], ["PAIR-URL-001"],
     [step(scanned(edit(QR, signalingUrl="http://192.168.1.20:9001")), failed("PAIR-URL-001", "/signalingUrl"))])

case(fb, "flow-b", "relay-url-plain-ws",
     "A relay over plain ws:// on a public host fails with PAIR-URL-002 at /relayUrl.",
     ["PAIR-URL-002"], ["PAIR-URL-002"],
     [step(scanned(edit(QR, relayUrl="ws://signaling.chainlesschain.com")), failed("PAIR-URL-002", "/relayUrl"))])

case(fb, "flow-b", "retry-after-failure",
     "Retry from failed returns to scanning with no actions, and a good scan then pairs.",
     ["PAIR-TIME-002", "PAIR-SIG-001"], ["PAIR-TIME-002"],
     [step(scanned(QR, QT + 400000), failed("PAIR-TIME-002", "/timestamp")),
      step(RETRY, SCANNING),
      step(scanned(edit(QR, timestamp=QT + 410000), QT + 412000), sending(), to_desk(LAN, at=QT + 412000)),
      step(ok(QT + 412500), success(), [persist(record(QT + 412500))])])

case(fb, "flow-b", "retry-after-both-sends-failed",
     "After both sends failed, retry returns to scanning and a rescan starts again on the LAN URL.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001"], ["PAIR-FLOWB-001"],
     [step(scanned(QR), sending(), to_desk(LAN)),
      step(ko(SCAN + 5000), sending(), [reset()] + to_desk(RELAY)),
      step(ko(SCAN + 9000), failed("PAIR-FLOWB-001")),
      step(RETRY, SCANNING),
      step(scanned(QR, SCAN + 20000), sending(), to_desk(LAN, at=SCAN + 20000))])

case(fb, "flow-b", "events-in-the-wrong-state",
     "Events that mean nothing in the current state are ignored: same state, no actions (no second scan while sending, no retry outside failed).",
     ["PAIR-SIG-001"], [],
     [step(ok(SCAN - 1000), SCANNING),
      step(ko(SCAN - 900), SCANNING),
      step(RETRY, SCANNING),
      step(scanned(QR), sending(), to_desk(LAN)),
      step(scanned(edit(QR, code="111111"), SCAN + 100), sending()),
      step(RETRY, sending()),
      step(ok(SCAN + 800), success(), [persist(record(SCAN + 800))]),
      step(ok(SCAN + 900), success()),
      step(ko(SCAN + 1000), success()),
      step(scanned(QR, SCAN + 1100), success()),
      step(RETRY, success())])

case(fb, "flow-b", "events-after-failure",
     "Once the flow has failed only retry means something: a late send-succeeded persists nothing, and a new scan, even of a "
     "valid QR, registers and sends nothing (same state, same reason, no actions); retry then returns to scanning.",
     ["PAIR-FLOWB-001", "PAIR-SIG-001"], ["PAIR-FLOWB-001"],
     [step(scanned(QR_MIN), sending(), to_desk(RELAY)),
      step(ko(SCAN + 5000), failed("PAIR-FLOWB-001")),
      step(ok(SCAN + 5100), failed("PAIR-FLOWB-001")),
      step(scanned(QR, SCAN + 6000), failed("PAIR-FLOWB-001")),
      step(RETRY, SCANNING)])

case(fb, "flow-b", "ice-servers-json-as-received",
     "iceServersJson is the compact text of the QR's iceServers, members in received order, even when the QR text is indented.",
     ["PAIR-STORE-001", "PAIR-ICE-001", "PAIR-SIG-001"], [],
     [step(scanned(json.dumps(QR, ensure_ascii=False, indent=2)), sending(), to_desk(LAN)),
      step(ok(SCAN + 800), success(), [persist(record(SCAN + 800))])], ["interop-trap"])

case(fb, "flow-b", "ice-servers-empty-array",
     "An empty iceServers array is given: it is stored as \"[]\", and a missing iceExpiry is stored as 0.",
     ["PAIR-STORE-001", "PAIR-ICE-001", "PAIR-SIG-001"], [],
     [step(scanned(edit(QR, iceServers=[], iceExpiry=DEL)), sending(), to_desk(LAN)),
      step(ok(SCAN + 800), success(), [persist(record(SCAN + 800, ice="[]", expiry=0))])], ["boundary"])

write("flow-b", "Flow B (Spec pairing.md section 4.1): the phone scans the desktop's QR, sends a pair-ack over the LAN URL or the relay, falls back once to the relay, and stores the desktop.", fb)


# ---------------------------------------------------------------------------------------------
# Flow A (section 4.2): idle -> displaying(payload, payloadJson, expiresAt) -> completed | expired | failed(reason)
# ---------------------------------------------------------------------------------------------
START = T0
EXP = START + 300000           # expiresAt
IDLE = {"name": "idle"}
COMPLETED = {"name": "completed"}
EXPIRED = {"name": "expired"}
DESK_INFO = {"name": "MacBook-Pro-Li", "platform": "darwin", "version": "0.37.2"}


def start(random, at=START): return {"event": "start", "at": at, "random": random}
def tick(at): return {"event": "tick", "at": at}
def sig_failed(at): return {"event": "signaling-failed", "at": at}
def confirmation(doc, at): return {"event": "confirmation", "at": at, "document": doc}


def conf(code, ts=T0 + 15000, **over):
    return edit({"type": "pairing:confirmation", "pairingCode": code, "pcPeerId": DESK, "deviceInfo": DESK_INFO, "timestamp": ts}, **over)


def displaying(code, at=START, device=MOBILE):
    payload = {"type": "device-pairing", "code": code, "did": PHONE,
               "deviceInfo": {"deviceId": device["deviceId"], "name": device["name"], "platform": device["platform"]},
               "timestamp": at}
    return {"name": "displaying", "payload": payload, "payloadJson": jcs(payload), "expiresAt": at + 300000}


def shown(code, at=START, device=MOBILE): return [register(S), arm(at + 300001)]


fa = []
# 0x1d2c3b4a = 489438026 < 4294000000 -> 489438026 mod 10^6 = 438026
D = displaying("438026")
case(fa, "flow-a", "happy-path",
     "Start shows a device-pairing QR (JCS text), registers the DID on the signaling URL and states its deadline, expiresAt + 1; the matching confirmation completes.",
     ["PAIR-DID-002", "PAIR-SIG-001", "PAIR-FLOWA-001", "PAIR-FLOWA-002"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026"), START + 20000), COMPLETED, [disarm()])], ["seed-example"])

# 0xffffffff = 4294967295 >= 4294000000: discarded; 0x7a3f09c1 = 2050951617 -> 951617
case(fa, "flow-a", "code-first-word-rejected",
     "A first random word of 0xffffffff is at or above 4294000000 and is discarded; the code comes from the next word (no modulo bias).",
     ["PAIR-SIG-001"], [],
     [step(start("ffffffff7a3f09c1"), displaying("951617"), shown("951617"))], ["boundary"])

# 0xfff13d80 = 4294000000: discarded (the bound itself); 0xfff13d7f = 4293999999 -> 999999
case(fa, "flow-a", "code-rejection-bound",
     "4294000000 (0xfff13d80) is itself discarded and 4293999999 (0xfff13d7f) is the largest word kept, giving 999999.",
     ["PAIR-SIG-001"], [],
     [step(start("fff13d80fff13d7f"), displaying("999999"), shown("999999"))], ["boundary"])

# 0x002dc6ea = 3000042 -> 000042
case(fa, "flow-a", "code-leading-zeros",
     "A word of 3000042 gives the code 000042: six digits with leading zeros, as a string.",
     ["PAIR-CODE-001", "PAIR-SIG-001"], [],
     [step(start("002dc6ea"), displaying("000042"), shown("000042")),
      step(confirmation(conf("000042"), START + 9000), COMPLETED, [disarm()])], ["interop-trap"])

# 0x00000000 -> 000000
case(fa, "flow-a", "code-all-zero",
     "A zero word gives the code 000000, a valid code.",
     ["PAIR-CODE-001", "PAIR-SIG-001"], [],
     [step(start("00000000"), displaying("000000"), shown("000000"))], ["boundary"])

# 0xc0ffee42 = 3237998146 -> 998146; the following 0xffffffff is never looked at
case(fa, "flow-a", "code-extra-random-bytes-unused",
     "When the first word is kept, later random bytes are not used.",
     ["PAIR-SIG-001"], [],
     [step(start("c0ffee42ffffffff"), displaying("998146"), shown("998146"))])

UDEV = {"deviceId": "0B0C5F2E-8D1A-4C55-9A4E-0D7B6F1E2A33", "name": "Li \"Lei\" 的 iPhone 📱", "platform": "ios"}
case(fa, "flow-a", "payload-json-is-jcs",
     "The QR text is the JCS form: members sorted, quotes escaped, non-ASCII as UTF-8, and an upper-case iOS UUID kept as it is.",
     ["PAIR-INFO-003", "PAIR-SIG-001"], [],
     [step(start("1d2c3b4a"), displaying("438026", device=UDEV), shown("438026"))], ["interop-trap"],
     context={"device": UDEV})

case(fa, "flow-a", "wrong-code-dropped",
     "A confirmation for another code is dropped silently (PAIR-FLOWA-001 at /pairingCode, still displaying); the right one then completes.",
     ["PAIR-FLOWA-001"], ["PAIR-FLOWA-001"],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438027"), START + 10000), D, [drop("PAIR-FLOWA-001", "/pairingCode")]),
      step(confirmation(conf("000000"), START + 11000), D, [drop("PAIR-FLOWA-001", "/pairingCode")]),
      step(confirmation(conf("438026"), START + 12000), COMPLETED, [disarm()])])

case(fa, "flow-a", "malformed-confirmation-dropped",
     "A confirmation that is not a valid pairing:confirmation is dropped with its own first violation, before the code is compared.",
     ["PAIR-TYPE-001", "CORE-TYPE-001", "CORE-TYPE-003", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-INFO-002", "PAIR-TIME-001", "PAIR-FLOWA-001"],
     ["PAIR-TYPE-001", "CORE-TYPE-001", "CORE-TYPE-003", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-INFO-002", "PAIR-TIME-001"],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026", type="pair-ack"), START + 1000), D, [drop("PAIR-TYPE-001", "/type")]),
      step(confirmation(conf("438026", pairingCode=438026), START + 2000), D, [drop("CORE-TYPE-003", "/pairingCode")]),
      step(confirmation(conf("43802"), START + 3000), D, [drop("PAIR-CODE-001", "/pairingCode")]),
      step(confirmation(conf("438026", pcPeerId=DEL), START + 4000), D, [drop("CORE-TYPE-001", "/pcPeerId")]),
      step(confirmation(conf("438026", pcPeerId="   "), START + 5000), D, [drop("PAIR-PEER-001", "/pcPeerId")]),
      step(confirmation(conf("438026", deviceInfo={"name": "MacBook-Pro-Li", "platform": "ios"}), START + 6000), D,
           [drop("PAIR-INFO-002", "/deviceInfo/platform")]),
      step(confirmation(conf("438026", ts=1747300015), START + 7000), D, [drop("PAIR-TIME-001", "/timestamp")]),
      step(confirmation(conf("438026"), START + 8000), COMPLETED, [disarm()])])

case(fa, "flow-a", "invalid-code-is-not-a-mismatch",
     "A 5-digit pairingCode is a PAIR-CODE-001 violation, reported instead of PAIR-FLOWA-001: the document check comes first.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(start("002dc6ea"), displaying("000042"), shown("000042")),
      step(confirmation(conf("00042"), START + 1000), displaying("000042"), [drop("PAIR-CODE-001", "/pairingCode")])])

case(fa, "flow-a", "confirmation-age-not-checked",
     "A confirmation's own timestamp is not checked for age (an hour old is fine); only the phone's clock decides expiry.",
     ["PAIR-TIME-001", "PAIR-FLOWA-002"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026", ts=T0 - 3600000), START + 30000), COMPLETED, [disarm()])])

case(fa, "flow-a", "confirmation-unknown-members-ignored",
     "Members the Spec does not declare are ignored: a confirmation with extra members still completes.",
     ["PAIR-FLOWA-001"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026", deviceInfo={"name": "MacBook-Pro-Li", "platform": "darwin", "arch": "arm64"}, sessionId="s-91"), START + 30000),
           COMPLETED, [disarm()])])

case(fa, "flow-a", "confirmation-at-expiry-accepted",
     "A confirmation at exactly expiresAt (300000 ms after start) is still accepted.",
     ["PAIR-FLOWA-002", "PAIR-FLOWA-001"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026"), EXP), COMPLETED, [disarm()])], ["boundary"])

case(fa, "flow-a", "confirmation-after-expiry",
     "A confirmation at expiresAt + 1 is dropped with PAIR-FLOWA-002 and the flow is expired though no tick has come; the late tick then changes nothing.",
     ["PAIR-FLOWA-002"], ["PAIR-FLOWA-002"],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026"), EXP + 1), EXPIRED, [drop("PAIR-FLOWA-002")]),
      step(tick(EXP + 1), EXPIRED)], ["boundary"])

case(fa, "flow-a", "expiry-checked-before-document",
     "After expiry even an invalid confirmation is dropped with PAIR-FLOWA-002: the time is checked first.",
     ["PAIR-FLOWA-002"], ["PAIR-FLOWA-002"],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("43802"), EXP + 50), EXPIRED, [drop("PAIR-FLOWA-002")])], ["boundary"])

case(fa, "flow-a", "tick-expiry",
     "A tick at expiresAt changes nothing; a tick at expiresAt + 1 expires the code, and a confirmation then is ignored; retry returns to idle.",
     ["PAIR-FLOWA-002"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(tick(EXP), D),
      step(tick(EXP + 1), EXPIRED),
      step(confirmation(conf("438026"), EXP + 2), EXPIRED),
      step(RETRY, IDLE)], ["boundary"])

# 0x5e8b1d07 = 1586175239 -> 175239
case(fa, "flow-a", "retry-from-expired-shows-new-code",
     "Retry from expired returns to idle, and a new start draws a new code with a new expiry.",
     ["PAIR-FLOWA-002", "PAIR-SIG-001"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(tick(EXP + 1000), EXPIRED),
      step(RETRY, IDLE),
      step(start("5e8b1d07", EXP + 5000), displaying("175239", EXP + 5000), shown("175239", EXP + 5000)),
      step(confirmation(conf("438026"), EXP + 6000), displaying("175239", EXP + 5000), [drop("PAIR-FLOWA-001", "/pairingCode")]),
      step(confirmation(conf("175239"), EXP + 7000), COMPLETED, [disarm()])])

case(fa, "flow-a", "signaling-failed",
     "When signaling fails while a code is displayed the flow fails with PAIR-FLOWA-003 and has no deadline left; a later confirmation is ignored; retry returns to idle.",
     ["PAIR-FLOWA-003", "PAIR-SIG-001"], ["PAIR-FLOWA-003"],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(sig_failed(START + 40000), failed("PAIR-FLOWA-003"), [disarm()]),
      step(confirmation(conf("438026"), START + 41000), failed("PAIR-FLOWA-003")),
      step(RETRY, IDLE)])

case(fa, "flow-a", "signaling-failed-after-expiry",
     "Timers are late and the machine checks the time of every event: signaling failing after expiresAt, before the tick, finds the code expired.",
     ["PAIR-FLOWA-002", "PAIR-FLOWA-003"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(sig_failed(EXP + 10), EXPIRED)], ["boundary"])

case(fa, "flow-a", "no-active-did",
     "Without an active DID the flow cannot start: failed PAIR-DID-002, nothing registered; retry returns to idle.",
     ["PAIR-DID-002"], ["PAIR-DID-002"],
     [step(start("1d2c3b4a"), failed("PAIR-DID-002")),
      step(RETRY, IDLE)], context=NO_DID)

case(fa, "flow-a", "events-in-the-wrong-state",
     "Events that mean nothing in the current state are ignored: same state, no actions (no drop for a confirmation outside displaying).",
     ["PAIR-SIG-001"], [],
     [step(confirmation(conf("438026"), START - 5000), IDLE),
      step(tick(START - 4000), IDLE),
      step(sig_failed(START - 3000), IDLE),
      step(RETRY, IDLE),
      step(start("1d2c3b4a"), D, shown("438026")),
      step(start("7a3f09c1", START + 1000), D),
      step(RETRY, D),
      step(confirmation(conf("438026"), START + 2000), COMPLETED, [disarm()]),
      step(confirmation(conf("438026"), START + 3000), COMPLETED),
      step(confirmation(conf("999999"), START + 3500), COMPLETED),
      step(tick(EXP + 1), COMPLETED),
      step(sig_failed(EXP + 2), COMPLETED),
      step(start("7a3f09c1", EXP + 3), COMPLETED)])

case(fa, "flow-a", "events-after-expiry",
     "An expired flow ignores everything but retry: a start draws no new code and registers nothing, and signaling failing "
     "then does not turn expired into failed (same state, no actions); retry returns to idle.",
     ["PAIR-FLOWA-002", "PAIR-SIG-001"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(tick(EXP + 1), EXPIRED),
      step(start("7a3f09c1", EXP + 2), EXPIRED),
      step(sig_failed(EXP + 3), EXPIRED),
      step(RETRY, IDLE)])

case(fa, "flow-a", "events-after-failure",
     "A failed flow ignores everything but retry: a second signaling failure, a start (no new code, nothing registered) and "
     "a stale tick at expiresAt + 1 (the flow does not become expired) leave it failed with its reason and "
     "no actions; retry returns to idle.",
     ["PAIR-FLOWA-003", "PAIR-SIG-001"], ["PAIR-FLOWA-003"],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(sig_failed(START + 40000), failed("PAIR-FLOWA-003"), [disarm()]),
      step(sig_failed(START + 41000), failed("PAIR-FLOWA-003")),
      step(start("7a3f09c1", START + 42000), failed("PAIR-FLOWA-003")),
      step(tick(EXP + 1), failed("PAIR-FLOWA-003")),
      step(RETRY, IDLE)])

case(fa, "flow-a", "retry-after-completed-ignored",
     "Retry is defined only from failed and expired: after completed it is ignored and the flow stays completed.",
     ["PAIR-FLOWA-001"], [],
     [step(start("1d2c3b4a"), D, shown("438026")),
      step(confirmation(conf("438026"), START + 2000), COMPLETED, [disarm()]),
      step(RETRY, COMPLETED)])

write("flow-a", "Flow A (Spec pairing.md section 4.2): the phone shows a device-pairing QR with a code drawn from random bytes and waits up to 300000 ms for the desktop's confirmation.", fa)


# ---------------------------------------------------------------------------------------------
# Manual code (section 4.3): entering -> submitting(code) -> success(desktopName) | failed(reason)
# ---------------------------------------------------------------------------------------------
SUB = T0                       # submittedAt
DEADLINE = SUB + 300000        # the last instant a confirmation is accepted
ENTERING = {"name": "entering"}


def submit(code, at=SUB): return {"event": "submit", "at": at, "code": code}
def offline(at): return {"event": "peer-offline", "at": at}
def submitting(code): return {"name": "submitting", "code": code}
def m_success(n="MacBook-Pro-Li"): return {"name": "success", "desktopName": n}


def submitted(code, at=SUB):
    return [register(S), send(S, "pairing-code:" + code, ack(code, at)), arm(at + 300001)]


mc = []
case(mc, "manual", "happy-path",
     "Submit registers the DID, sends the ack to pairing-code:<code> on the signaling URL and states its deadline; send-succeeded changes nothing; the matching confirmation succeeds.",
     ["PAIR-DID-002", "PAIR-CODE-001", "PAIR-SIG-001", "PAIR-MAN-001", "PAIR-MAN-002", "PAIR-MAN-003", "PAIR-FLOWA-001"], [],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(ok(SUB + 300), submitting("731904")),
      step(confirmation(conf("731904"), SUB + 15000), m_success(), [disarm()])], ["seed-example"])

UDESK = {"name": "DESKTOP-7Q2M 研发部", "platform": "win32"}
case(mc, "manual", "leading-zero-code",
     "A code with a leading zero is a string and stays one: the alias is pairing-code:048213; success shows the confirmation's desktop name as received.",
     ["PAIR-CODE-001", "PAIR-SIG-001", "PAIR-FLOWA-001"], [],
     [step(submit("048213"), submitting("048213"), submitted("048213")),
      step(confirmation(conf("048213", deviceInfo=UDESK), SUB + 8000), m_success("DESKTOP-7Q2M 研发部"), [disarm()])],
     ["interop-trap"])

case(mc, "manual", "peer-offline",
     "When the relay answers peer-offline for the alias (the desktop has not enabled the channel) the flow fails with PAIR-MAN-002 and has no deadline left.",
     ["PAIR-MAN-002", "PAIR-SIG-001"], ["PAIR-MAN-002"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(ok(SUB + 300), submitting("731904")),
      step(offline(SUB + 350), failed("PAIR-MAN-002"), [disarm()]),
      step(RETRY, ENTERING)], ["seed-example"])

case(mc, "manual", "send-failed",
     "When the ack cannot be sent the flow fails with PAIR-MAN-001 and has no deadline left: no reset, no relay fallback.",
     ["PAIR-MAN-001", "PAIR-SIG-001"], ["PAIR-MAN-001"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(ko(SUB + 5000), failed("PAIR-MAN-001"), [disarm()]),
      step(ko(SUB + 5100), failed("PAIR-MAN-001"))])

case(mc, "manual", "wrong-code-dropped",
     "A confirmation for another code is dropped silently (PAIR-FLOWA-001 at /pairingCode, still submitting); the right one then succeeds.",
     ["PAIR-FLOWA-001", "PAIR-MAN-003"], ["PAIR-FLOWA-001"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(confirmation(conf("731905"), SUB + 10000), submitting("731904"), [drop("PAIR-FLOWA-001", "/pairingCode")]),
      step(confirmation(conf("731904"), SUB + 11000), m_success(), [disarm()])])

case(mc, "manual", "malformed-confirmation-dropped",
     "A confirmation that is not a valid pairing:confirmation is dropped with its own first violation and the flow keeps waiting.",
     ["PAIR-CODE-001", "CORE-TYPE-001", "PAIR-TYPE-001", "PAIR-FLOWA-001"], ["PAIR-CODE-001", "CORE-TYPE-001", "PAIR-TYPE-001"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(confirmation(conf("731904 "), SUB + 1000), submitting("731904"), [drop("PAIR-CODE-001", "/pairingCode")]),
      step(confirmation(conf("731904", deviceInfo=DEL), SUB + 2000), submitting("731904"), [drop("CORE-TYPE-001", "/deviceInfo")]),
      step(confirmation(conf("731904", type="Pairing:Confirmation"), SUB + 3000), submitting("731904"), [drop("PAIR-TYPE-001", "/type")]),
      step(confirmation(conf("731904"), SUB + 4000), m_success(), [disarm()])])

case(mc, "manual", "timeout-tick",
     "A tick at submittedAt + 300000 changes nothing; at + 300001 the flow fails with PAIR-MAN-003; a confirmation then is ignored; retry returns to entering.",
     ["PAIR-MAN-003"], ["PAIR-MAN-003"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(tick(DEADLINE), submitting("731904")),
      step(tick(DEADLINE + 1), failed("PAIR-MAN-003")),
      step(confirmation(conf("731904"), DEADLINE + 2), failed("PAIR-MAN-003")),
      step(RETRY, ENTERING)], ["boundary"])

case(mc, "manual", "sixty-second-wait",
     "A phone that waits 60 s (the real iOS app, ManualPairingViewModel.swift 46) states its deadline, submittedAt + 60001, and fails then.",
     ["PAIR-MAN-003"], ["PAIR-MAN-003"],
     [step(submit("731904"), submitting("731904"), [register(S), send(S, "pairing-code:731904", ack("731904", SUB)), arm(SUB + 60001)]),
      step(tick(SUB + 60000), submitting("731904")),
      step(confirmation(conf("731904"), SUB + 60001), failed("PAIR-MAN-003"), [drop("PAIR-MAN-003")])],
     ["boundary", "real-implementation"], context={"confirmationWait": 60000})

case(mc, "manual", "confirmation-at-deadline-accepted",
     "A confirmation exactly 300000 ms after the submit is accepted.",
     ["PAIR-MAN-003", "PAIR-FLOWA-001"], [],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(confirmation(conf("731904"), DEADLINE), m_success(), [disarm()])], ["boundary"])

case(mc, "manual", "confirmation-after-timeout",
     "A matching confirmation 300001 ms after the submit, before any tick came, is dropped with PAIR-MAN-003 and the flow fails with PAIR-MAN-003.",
     ["PAIR-MAN-003"], ["PAIR-MAN-003"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(confirmation(conf("731904"), DEADLINE + 1), failed("PAIR-MAN-003"), [drop("PAIR-MAN-003")]),
      step(tick(DEADLINE + 1), failed("PAIR-MAN-003"))], ["boundary"])

case(mc, "manual", "timeout-checked-before-document",
     "After the deadline an invalid or mismatched confirmation is reported as PAIR-MAN-003 too: the time is checked first.",
     ["PAIR-MAN-003"], ["PAIR-MAN-003"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(confirmation(conf("12345"), DEADLINE + 40), failed("PAIR-MAN-003"), [drop("PAIR-MAN-003")])], ["boundary"])

case(mc, "manual", "peer-offline-after-timeout",
     "A peer-offline arriving after submittedAt + 300000, before the tick, finds the flow timed out: failed PAIR-MAN-003, not PAIR-MAN-002.",
     ["PAIR-MAN-003", "PAIR-MAN-002"], ["PAIR-MAN-003"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(offline(DEADLINE + 10), failed("PAIR-MAN-003"))], ["boundary"])

case(mc, "manual", "send-failed-after-timeout",
     "A send-failed at exactly submittedAt + 300000 is still the ack's failure (PAIR-MAN-001, no deadline left). After retry and "
     "a new submit, a send-failed at submittedAt + 300001, before the tick, finds the flow timed out: failed PAIR-MAN-003, "
     "not PAIR-MAN-001, with no actions (PAIR-MAN-003: a late send-failed included).",
     ["PAIR-MAN-003", "PAIR-MAN-001", "PAIR-SIG-001"], ["PAIR-MAN-001", "PAIR-MAN-003"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(ko(DEADLINE), failed("PAIR-MAN-001"), [disarm()]),
      step(RETRY, ENTERING),
      step(submit("731904", DEADLINE + 1000), submitting("731904"), submitted("731904", DEADLINE + 1000)),
      step(ko(DEADLINE + 1000 + 300001), failed("PAIR-MAN-003"))], ["boundary"])

case(mc, "manual", "code-five-digits",
     "A 5-digit code fails the submit with PAIR-CODE-001 at /code (the event's member); nothing is registered or sent.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(submit("12345"), failed("PAIR-CODE-001", "/code"))])

case(mc, "manual", "code-arabic-indic-digits",
     "Arabic-Indic digits (U+0661..U+0666) match \\d on Java, Kotlin and .NET but are not a code.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(submit("١٢٣٤٥٦"), failed("PAIR-CODE-001", "/code"))], ["interop-trap"])

case(mc, "manual", "code-fullwidth-digits",
     "Fullwidth digits (U+FF11..) from a CJK keyboard are not ASCII digits either.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(submit("１２３４５６"), failed("PAIR-CODE-001", "/code"))], ["interop-trap"])

case(mc, "manual", "code-not-trimmed",
     "Surrounding whitespace is not trimmed: \" 123456\" is not a code.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(submit(" 123456"), failed("PAIR-CODE-001", "/code"))])

case(mc, "manual", "code-seven-digits",
     "Seven digits are not a code.",
     ["PAIR-CODE-001"], ["PAIR-CODE-001"],
     [step(submit("1234567"), failed("PAIR-CODE-001", "/code"))], ["boundary"])

case(mc, "manual", "no-active-did",
     "Without an active DID the manual flow cannot start: failed PAIR-DID-002 at the root, nothing sent.",
     ["PAIR-DID-002"], ["PAIR-DID-002"],
     [step(submit("731904"), failed("PAIR-DID-002"))], context=NO_DID)

case(mc, "manual", "no-active-did-before-code",
     "The DID is checked before the code: no DID and a bad code report PAIR-DID-002.",
     ["PAIR-DID-002"], ["PAIR-DID-002"],
     [step(submit("12345"), failed("PAIR-DID-002"))], context=NO_DID)

case(mc, "manual", "retry-after-bad-code",
     "Retry from failed returns to entering with no actions, and a good code is then submitted.",
     ["PAIR-CODE-001", "PAIR-SIG-001"], ["PAIR-CODE-001"],
     [step(submit("73190"), failed("PAIR-CODE-001", "/code")),
      step(RETRY, ENTERING),
      step(submit("731904", SUB + 6000), submitting("731904"), submitted("731904", SUB + 6000))])

case(mc, "manual", "events-in-the-wrong-state",
     "Events that mean nothing in the current state are ignored: same state, no actions (no drop for a confirmation outside submitting).",
     ["PAIR-SIG-001"], [],
     [step(ok(SUB - 5000), ENTERING),
      step(ko(SUB - 4000), ENTERING),
      step(offline(SUB - 3000), ENTERING),
      step(confirmation(conf("731904"), SUB - 2000), ENTERING),
      step(tick(SUB - 1000), ENTERING),
      step(RETRY, ENTERING),
      step(submit("731904"), submitting("731904"), submitted("731904")),
      step(submit("000111", SUB + 100), submitting("731904")),
      step(RETRY, submitting("731904")),
      step(confirmation(conf("731904"), SUB + 2000), m_success(), [disarm()]),
      step(confirmation(conf("731904"), SUB + 3000), m_success()),
      step(ok(SUB + 4000), m_success()),
      step(ko(SUB + 5000), m_success()),
      step(offline(SUB + 6000), m_success()),
      step(tick(DEADLINE + 1), m_success()),
      step(submit("731904", DEADLINE + 2), m_success())])

case(mc, "manual", "events-after-failure",
     "A failed flow ignores everything but retry: a late send-succeeded, a second peer-offline and a new submit (nothing "
     "registered or sent) leave it failed with its reason PAIR-MAN-002 and no actions; retry returns to entering.",
     ["PAIR-MAN-002", "PAIR-SIG-001"], ["PAIR-MAN-002"],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(offline(SUB + 350), failed("PAIR-MAN-002"), [disarm()]),
      step(ok(SUB + 400), failed("PAIR-MAN-002")),
      step(offline(SUB + 500), failed("PAIR-MAN-002")),
      step(submit("731904", SUB + 600), failed("PAIR-MAN-002")),
      step(RETRY, ENTERING)])

case(mc, "manual", "retry-after-success-ignored",
     "Retry is defined only from failed: after success it is ignored and the flow stays in success.",
     ["PAIR-FLOWA-001"], [],
     [step(submit("731904"), submitting("731904"), submitted("731904")),
      step(confirmation(conf("731904"), SUB + 2000), m_success(), [disarm()]),
      step(RETRY, m_success())])

write("manual", "Manual code (Spec pairing.md section 4.3): the phone sends its pair-ack to the desktop's pairing-code alias and waits up to 300000 ms for the confirmation.", mc)
