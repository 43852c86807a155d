"""Writes the pairing flow vectors (Vectors/pairing/flow-a.json, flow-b.json, manual.json).

Expectations are written by hand from Spec/pairing.md section 4 (events, states, actions). The
only computed values are the code drawn from random bytes and the JCS text of Flow A's QR, both by
the Spec's own recipe (section 4.2), independently of the Swift implementation.
"""
import copy
import json
import os
import sys

from pairing_fixtures import DESK, LAN, MOBILE, PHONE, RELAY, T0, UUID  # noqa: F401

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "pairing")
CONTEXT = {"activeDid": PHONE, "device": MOBILE, "signalingUrl": RELAY}
ICE = [{"urls": "stun:stun.l.google.com:19302"},
       {"urls": ["turn:turn.chainlesschain.com:3478?transport=udp"], "username": "1747386400:phone-1", "credential": "c2VjcmV0"}]
QR = {"type": "desktop-pairing", "code": "048213", "pcPeerId": DESK,
      "deviceInfo": {"name": "DESKTOP-7F3K", "platform": "win32", "version": "5.0.3.54"},
      "timestamp": T0 - 10000, "signalingUrl": LAN, "relayUrl": RELAY, "iceServers": ICE, "iceExpiry": 1747386400}


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def jcs(v):
    # Enough of RFC 8785 for these documents: ASCII member names, integers, strings.
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def edit(doc, **changes):
    d = copy.deepcopy(doc)
    for k, v in changes.items():
        if v is None:
            d.pop(k, None)
        else:
            d[k] = v
    return d


def ack(code, at):
    return {"type": "pair-ack", "pairingCode": code, "mobileDid": PHONE, "deviceInfo": MOBILE, "timestamp": at}


def message(to, code, at):
    return {"type": "message", "to": to, "payload": ack(code, at)}


def register(url):
    return {"action": "register", "url": url, "peerId": PHONE}


def send(url, msg):
    return {"action": "send", "url": url, "message": msg}


def failed(rule, path=""):
    return {"name": "failed", "reason": {"rule": rule, "path": path}}


def drop(rule, path=""):
    return {"action": "drop", "rule": rule, "path": path}


def step(event, state, actions=()):
    return {"event": event, "expect": {"state": state, "actions": list(actions)}}


def confirmation(code, at, **changes):
    doc = {"type": "pairing:confirmation", "pairingCode": code, "pcPeerId": DESK,
           "deviceInfo": {"name": "DESKTOP-7F3K", "platform": "win32"}, "timestamp": at}
    return edit(doc, **changes)


def draw(hexbytes):
    data = bytes.fromhex(hexbytes)
    for i in range(0, len(data) - 3, 4):
        u = int.from_bytes(data[i:i + 4], "big")
        if u < 4294000000:
            return "%06d" % (u % 1000000)
    raise ValueError("random bytes ran out")


class File:
    def __init__(self, machine, description):
        self.machine, self.description, self.cases = machine, description, []

    def case(self, slug, comment, rules, triggers, steps, flags=(), context=None):
        c = {"id": f"pairing/{self.machine}/{slug}", "comment": comment, "flags": list(flags), "rules": rules, "triggers": triggers}
        if context is not None:
            c["context"] = context
        c["steps"] = steps
        self.cases.append(c)

    def write(self):
        doc = {"family": "pairing", "machine": self.machine, "description": self.description, "context": CONTEXT, "cases": self.cases}
        with open(os.path.join(OUT, f"{self.machine}.json"), "w") as f:
            f.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return len(self.cases)


# ---------------------------------------------------------------- Flow B
fb = File("flow-b", "Flow B (seed 002 §7.1): the phone scans the desktop's QR and sends its pair-ack (Spec pairing.md 4.1).")


def scanned(qr, at=T0):
    return {"event": "scanned", "at": at, "text": qr if isinstance(qr, str) else compact(qr)}


def record(qr, at):
    r = {"pcPeerId": qr["pcPeerId"], "deviceName": qr["deviceInfo"]["name"], "platform": qr["deviceInfo"]["platform"]}
    if qr.get("signalingUrl"):
        r["lanSignalingUrl"] = qr["signalingUrl"]
    r["relayUrl"] = qr["relayUrl"]
    if "iceServers" in qr:
        r["iceServersJson"] = compact(qr["iceServers"])
    r["iceExpiry"] = qr.get("iceExpiry", 0)
    r["pairedAt"] = at
    r["lastSeenAt"] = at
    return r


MSG = message(DESK, "048213", T0)
sending = {"name": "sending", "desktopName": "DESKTOP-7F3K"}
success = {"name": "success", "desktopName": "DESKTOP-7F3K"}
fb.case("happy-path-lan", "The ack goes over the LAN URL with the phone's own DID registered; success stores the desktop with the ICE data as received.",
        ["PAIR-SIG-001", "PAIR-STORE-001"], [],
        [step(scanned(QR), sending, [register(LAN), send(LAN, MSG)]),
         step({"event": "send-succeeded", "at": T0 + 300}, success, [{"action": "persist", "record": record(QR, T0 + 300)}])], ["seed-example"])
relay_only = edit(QR, signalingUrl=None, iceServers=None, iceExpiry=None)
fb.case("relay-only", "Without a LAN URL the first and only attempt goes to the relay; no ICE data means iceExpiry 0.",
        ["PAIR-SIG-001", "PAIR-FLOWB-001"], [],
        [step(scanned(relay_only), sending, [register(RELAY), send(RELAY, MSG)]),
         step({"event": "send-succeeded", "at": T0 + 500}, success, [{"action": "persist", "record": record(relay_only, T0 + 500)}])])
fb.case("relay-only-fails", "Without a LAN URL, a failed relay send ends the flow: there is no second relay attempt.",
        ["PAIR-FLOWB-001"], ["PAIR-FLOWB-001"],
        [step(scanned(relay_only), sending, [register(RELAY), send(RELAY, MSG)]),
         step({"event": "send-failed", "at": T0 + 5000}, failed("PAIR-FLOWB-001"))])
fb.case("lan-fails-relay-succeeds", "G5: after a LAN failure the phone resets, registers its own DID on the relay (never the desktop's id) and resends the same ack once.",
        ["PAIR-FLOWB-001", "PAIR-SIG-001"], [],
        [step(scanned(QR), sending, [register(LAN), send(LAN, MSG)]),
         step({"event": "send-failed", "at": T0 + 3000}, sending, [{"action": "reset"}, register(RELAY), send(RELAY, MSG)]),
         step({"event": "send-succeeded", "at": T0 + 3500}, success, [{"action": "persist", "record": record(QR, T0 + 3500)}])],
        ["interop-trap"])
fb.case("lan-and-relay-fail", "Two failures end the flow with PAIR-FLOWB-001; a third failure report changes nothing.",
        ["PAIR-FLOWB-001"], ["PAIR-FLOWB-001"],
        [step(scanned(QR), sending, [register(LAN), send(LAN, MSG)]),
         step({"event": "send-failed", "at": T0 + 3000}, sending, [{"action": "reset"}, register(RELAY), send(RELAY, MSG)]),
         step({"event": "send-failed", "at": T0 + 8000}, failed("PAIR-FLOWB-001")),
         step({"event": "send-failed", "at": T0 + 9000}, failed("PAIR-FLOWB-001"))])
fb.case("invalid-code-then-retry", "A QR with a five-digit code fails with the rule and path; retry returns to scanning and a good QR proceeds.",
        ["PAIR-CODE-001"], ["PAIR-CODE-001"],
        [step(scanned(edit(QR, code="48213")), failed("PAIR-CODE-001", "/code")),
         step({"event": "retry"}, {"name": "scanning"}),
         step(scanned(QR, T0 + 1000), sending, [register(LAN), send(LAN, message(DESK, "048213", T0 + 1000))])])
fb.case("expired-qr", "A QR scanned 300001 ms after it was made is expired.", ["PAIR-TIME-002"], ["PAIR-TIME-002"],
        [step(scanned(edit(QR, timestamp=T0 - 300001)), failed("PAIR-TIME-002", "/timestamp"))], ["boundary"])
fb.case("qr-at-age-limit", "A QR exactly 300000 ms old is still sent.", ["PAIR-TIME-002"], [],
        [step(scanned(edit(QR, timestamp=T0 - 300000)), sending, [register(LAN), send(LAN, MSG)])], ["boundary"])
fb.case("no-active-did", "Without an active DID the phone cannot pair (check 5).", ["PAIR-DID-002"], ["PAIR-DID-002"],
        [step(scanned(QR), failed("PAIR-DID-002"))], context={"activeDid": None})
fb.case("not-json", "A QR code that is not JSON (a URL, a wallet QR) fails with the syntax rule.", ["CORE-JSON-001"], ["CORE-JSON-001"],
        [step(scanned("https://example.com/pair?code=048213"), failed("CORE-JSON-001"))], ["interop-trap"])
fb.case("events-out-of-state", "Results that arrive while scanning, and a retry without a failure, are ignored.",
        ["PAIR-FLOWB-001"], [],
        [step({"event": "send-succeeded", "at": T0}, {"name": "scanning"}),
         step({"event": "send-failed", "at": T0}, {"name": "scanning"}),
         step({"event": "retry"}, {"name": "scanning"})])
uni = edit(QR, deviceInfo={"name": "张三的 MacBook Pro 💻", "platform": "darwin"})
fb.case("unicode-desktop-name", "The desktop's name is shown and stored exactly as received.", ["PAIR-INFO-001"], [],
        [step(scanned(uni), {"name": "sending", "desktopName": "张三的 MacBook Pro 💻"}, [register(LAN), send(LAN, MSG)]),
         step({"event": "send-succeeded", "at": T0 + 100}, {"name": "success", "desktopName": "张三的 MacBook Pro 💻"},
              [{"action": "persist", "record": record(uni, T0 + 100)}])])

# ---------------------------------------------------------------- Flow A
fa = File("flow-a", "Flow A (seed 002 §7.2): the phone shows a device-pairing QR and waits for the desktop's confirmation (Spec pairing.md 4.2).")


def start(random, at=T0):
    return {"event": "start", "at": at, "random": random}


def displaying(code, at=T0):
    payload = {"type": "device-pairing", "code": code, "did": PHONE, "deviceInfo": MOBILE, "timestamp": at}
    return {"name": "displaying", "payload": payload, "payloadJson": jcs(payload), "expiresAt": at + 300000}


def started(random, at=T0):
    return step(start(random, at), displaying(draw(random), at), [register(RELAY), {"action": "set-timer", "at": at + 300001}])


R1 = "5d3a0f17"
C1 = draw(R1)
fa.case("happy-path", "The QR shows a drawn code; a confirmation with that code completes the flow and cancels the timer.",
        ["PAIR-SIG-001", "PAIR-FLOWA-001", "PAIR-FLOWA-002"], [],
        [started(R1), step({"event": "confirmation", "at": T0 + 20000, "document": confirmation(C1, T0 + 19000)}, {"name": "completed"},
                           [{"action": "cancel-timer"}])], ["seed-example"])
fa.case("other-code-dropped-silently", "A confirmation for another code is dropped without a state change; the right one then completes.",
        ["PAIR-FLOWA-001"], ["PAIR-FLOWA-001"],
        [started(R1),
         step({"event": "confirmation", "at": T0 + 1000, "document": confirmation("999999", T0 + 1000)}, displaying(C1),
              [drop("PAIR-FLOWA-001", "/pairingCode")]),
         step({"event": "confirmation", "at": T0 + 2000, "document": confirmation(C1, T0 + 2000)}, {"name": "completed"},
              [{"action": "cancel-timer"}])])
fa.case("malformed-confirmations-dropped", "Confirmations that break their own rules are dropped with that rule and path.",
        ["PAIR-CODE-001"], ["PAIR-CODE-001", "CORE-TYPE-001"],
        [started(R1),
         step({"event": "confirmation", "at": T0 + 1000, "document": confirmation(C1[1:], T0 + 1000)}, displaying(C1),
              [drop("PAIR-CODE-001", "/pairingCode")]),
         step({"event": "confirmation", "at": T0 + 2000, "document": confirmation(C1, T0 + 2000, pcPeerId=None)}, displaying(C1),
              [drop("CORE-TYPE-001", "/pcPeerId")])])
fa.case("confirmation-at-expiry", "A confirmation exactly 300000 ms after the QR appeared is accepted.", ["PAIR-FLOWA-002"], [],
        [started(R1), step({"event": "confirmation", "at": T0 + 300000, "document": confirmation(C1, T0 + 299000)}, {"name": "completed"},
                           [{"action": "cancel-timer"}])], ["boundary"])
fa.case("confirmation-after-expiry", "A confirmation 300001 ms after the QR appeared is dropped and the flow is expired, even before the timer fired.",
        ["PAIR-FLOWA-002"], ["PAIR-FLOWA-002"],
        [started(R1), step({"event": "confirmation", "at": T0 + 300001, "document": confirmation(C1, T0 + 299000)}, {"name": "expired"},
                           [drop("PAIR-FLOWA-002")])], ["boundary"])
R2 = "0000bc4b"
fa.case("timer-expiry-and-retry", "The timer at expiresAt changes nothing, one ms later the flow expires; late confirmations are ignored; retry starts over.",
        ["PAIR-FLOWA-002"], [],
        [started(R1),
         step({"event": "tick", "at": T0 + 300000}, displaying(C1)),
         step({"event": "tick", "at": T0 + 300001}, {"name": "expired"}),
         step({"event": "confirmation", "at": T0 + 300002, "document": confirmation(C1, T0 + 300002)}, {"name": "expired"}),
         step({"event": "retry"}, {"name": "idle"}),
         started(R2, T0 + 400000)], ["boundary"])
fa.case("signaling-lost", "When signaling fails while the code is shown, the flow fails and cancels its timer; retry returns to idle.",
        ["PAIR-FLOWA-003"], ["PAIR-FLOWA-003"],
        [started(R1), step({"event": "signaling-failed", "at": T0 + 60000}, failed("PAIR-FLOWA-003"), [{"action": "cancel-timer"}]),
         step({"event": "retry"}, {"name": "idle"})])
fa.case("no-active-did", "Without an active DID there is nothing to show.", ["PAIR-DID-002"], ["PAIR-DID-002"],
        [step(start(R1), failed("PAIR-DID-002"))], context={"activeDid": None})
fa.case("code-draw-rejects-biased-words", "Words at or above 4294000000 are discarded (no modulo bias): fff13d80 is skipped, 00000007 gives 000007.",
        ["PAIR-SIG-001"], [], [started("fff13d8000000007")], ["boundary"])
fa.case("code-draw-largest-word", "fff13d7f (4293999999) is the largest accepted word and gives 999999; ffffffff is skipped first.",
        ["PAIR-SIG-001"], [], [started("fffffffffff13d7f")], ["boundary"])
fa.case("code-leading-zero", "A drawn code keeps its leading zero in the payload and its JSON text.", ["PAIR-CODE-001"], [],
        [started(R2)], ["interop-trap"])
fa.case("events-before-start", "Confirmations and ticks before start are ignored.", ["PAIR-FLOWA-001"], [],
        [step({"event": "confirmation", "at": T0, "document": confirmation(C1, T0)}, {"name": "idle"}),
         step({"event": "tick", "at": T0 + 400000}, {"name": "idle"})])

# ---------------------------------------------------------------- manual
mn = File("manual", "The manual code flow (seed 002 §7.3, §6.5): the ack goes to pairing-code:<code> (Spec pairing.md 4.3).")
ALIAS = "pairing-code:048213"


def submitted(code="048213", at=T0):
    return step({"event": "submit", "at": at, "code": code}, {"name": "submitting", "code": code},
                [register(RELAY), send(RELAY, message("pairing-code:" + code, code, at)), {"action": "set-timer", "at": at + 300001}])


mn.case("happy-path", "The ack goes to the alias; after delivery the phone waits; the matching confirmation ends in success with the desktop's name.",
        ["PAIR-SIG-001", "PAIR-SIG-002", "PAIR-MAN-001", "PAIR-MAN-002", "PAIR-MAN-003"], [],
        [submitted(),
         step({"event": "send-succeeded", "at": T0 + 200}, {"name": "submitting", "code": "048213"}),
         step({"event": "confirmation", "at": T0 + 5000, "document": confirmation("048213", T0 + 4900)},
              {"name": "success", "desktopName": "DESKTOP-7F3K"}, [{"action": "cancel-timer"}])], ["seed-example"])
mn.case("peer-offline", "The desktop has not registered the alias: the relay answers peer-offline and the flow fails with a hint to scan instead.",
        ["PAIR-MAN-002"], ["PAIR-MAN-002"],
        [submitted(), step({"event": "peer-offline", "at": T0 + 150}, failed("PAIR-MAN-002"), [{"action": "cancel-timer"}])])
mn.case("send-failed", "When the ack cannot be sent, the flow fails (no relay fallback in the manual flow).", ["PAIR-MAN-001"], ["PAIR-MAN-001"],
        [submitted(), step({"event": "send-failed", "at": T0 + 3000}, failed("PAIR-MAN-001"), [{"action": "cancel-timer"}])])
mn.case("other-code-dropped", "A confirmation for another code is dropped silently.", ["PAIR-FLOWA-001"], ["PAIR-FLOWA-001"],
        [submitted(), step({"event": "confirmation", "at": T0 + 1000, "document": confirmation("111111", T0 + 1000)},
                           {"name": "submitting", "code": "048213"}, [drop("PAIR-FLOWA-001", "/pairingCode")])])
mn.case("timeout", "The timer at submittedAt + 300000 changes nothing; one ms later the flow has timed out.", ["PAIR-MAN-003"], ["PAIR-MAN-003"],
        [submitted(), step({"event": "tick", "at": T0 + 300000}, {"name": "submitting", "code": "048213"}),
         step({"event": "tick", "at": T0 + 300001}, failed("PAIR-MAN-003"))], ["boundary"])
mn.case("confirmation-at-limit", "A confirmation exactly 300000 ms after submitting is accepted.", ["PAIR-MAN-003"], [],
        [submitted(), step({"event": "confirmation", "at": T0 + 300000, "document": confirmation("048213", T0 + 299000)},
                           {"name": "success", "desktopName": "DESKTOP-7F3K"}, [{"action": "cancel-timer"}])], ["boundary"])
mn.case("confirmation-after-timeout", "A confirmation after the timeout is dropped and the flow fails, even if the timer has not fired.",
        ["PAIR-MAN-003"], ["PAIR-MAN-003"],
        [submitted(), step({"event": "confirmation", "at": T0 + 300001, "document": confirmation("048213", T0 + 300000)},
                           failed("PAIR-MAN-003"), [drop("PAIR-MAN-003")])], ["boundary"])
mn.case("invalid-codes", "Codes that are not six ASCII digits fail at once with the event's /code; retry returns to entering.",
        ["PAIR-CODE-001"], ["PAIR-CODE-001"],
        [step({"event": "submit", "at": T0, "code": "48213"}, failed("PAIR-CODE-001", "/code")),
         step({"event": "retry"}, {"name": "entering"}),
         step({"event": "submit", "at": T0, "code": "١٢٣٤٥٦"}, failed("PAIR-CODE-001", "/code")),
         step({"event": "retry"}, {"name": "entering"}),
         step({"event": "submit", "at": T0, "code": " 048213"}, failed("PAIR-CODE-001", "/code")),
         step({"event": "retry"}, {"name": "entering"}),
         submitted("012345", T0 + 10)], ["interop-trap"])
mn.case("no-active-did", "Without an active DID the manual flow cannot start.", ["PAIR-DID-002"], ["PAIR-DID-002"],
        [step({"event": "submit", "at": T0, "code": "048213"}, failed("PAIR-DID-002"))], context={"activeDid": None})

for f in (fb, fa, mn):
    print(f.machine, f.write())
