"""Writes Vectors/pairing/relay.json: the relay machine cases (Spec pairing.md section 5).
The expectations are written here by hand from the Spec; rerun after editing them."""
import os
import sys

import webrtc_cases
from vector_file import write_file
from pairing_fixtures import DESK, LAN, MOBILE, PHONE, RELAY, T0, UUID  # noqa: F401
ATT = "did:cc:attacker-9"
A, B, C = "192.0.2.10", "198.51.100.7", "203.0.113.66"

def reg(pid): return {"type": "register", "peerId": pid}
def ack(code): return {"type": "pair-ack", "pairingCode": code, "mobileDid": PHONE,
                      "deviceInfo": {"deviceId": "0b0c5f2e-8d1a-4c55-9a4e-0d7b6f1e2a33", "name": "Li's iPhone", "platform": "ios"},
                      "timestamp": T0}
def msg(to, payload): return {"type": "message", "to": to, "payload": payload}
def fwd(to, frm, payload): return {"type": "message", "to": to, "from": frm, "payload": payload}
def conn(c, src, at=T0): return {"event": "connected", "connection": c, "source": src, "at": at}
def recv(c, doc, at=T0): return {"event": "received", "connection": c, "at": at, "document": doc}
def recvt(c, text, at=T0): return {"event": "received", "connection": c, "at": at, "text": text}
def disc(c, at=T0): return {"event": "disconnected", "connection": c, "at": at}
def send(c, doc, rule=None):
    a = {"action": "send", "connection": c, "document": doc}
    if rule: a["rule"] = rule
    return a
def st(*ids): return {"registered": sorted(ids)}
def step(ev, state, actions=()): return {"event": ev, "expect": {"state": state, "actions": list(actions)}}
def registered(pid): return {"type": "registered", "peerId": pid}
def offline(pid): return {"type": "peer-offline", "peerId": pid}
def err(code): return {"type": "error", "code": code}

def setup(alias=None, at=T0):
    s = [step(conn(1, A, at), st()), step(recv(1, reg(DESK), at), st(DESK), [send(1, registered(DESK))])]
    ids = [DESK]
    if alias:
        s.append(step(recv(1, reg(alias), at), st(DESK, alias), [send(1, registered(alias))]))
        ids.append(alias)
    s += [step(conn(2, B, at), st(*ids)), step(recv(2, reg(PHONE), at), st(*ids, PHONE), [send(2, registered(PHONE))])]
    return s, ids + [PHONE]

cases = []
def case(slug, comment, rules, triggers, steps, flags=()):
    cases.append({"id": f"pairing/relay/{slug}", "comment": comment, "flags": list(flags), "rules": rules, "triggers": triggers, "steps": steps})

s, ids = setup()
s.append(step(recv(2, msg(DESK, ack("048213"))), st(*ids), [send(1, fwd(DESK, PHONE, ack("048213")))]))
case("routes-between-registered-peers", "A message to a registered peer is forwarded to its connection with from set to the sender's id.",
     ["PAIR-RELAY-001"], [], s, ["seed-example"])

# A client that writes someone else's id into from: the relay stamps the sender's own.
s, ids = setup()
s += [step(conn(3, C), st(*ids)), step(recv(3, reg(ATT)), st(*ids, ATT), [send(3, registered(ATT))])]
ids = ids + [ATT]
forged = dict(msg(DESK, ack("048213")), **{"from": PHONE})
s.append(step(recv(3, forged), st(*ids), [send(1, fwd(DESK, ATT, ack("048213")))]))
case("forged-from-is-restamped", "A message whose from names another peer (the phone) is delivered with from set to the sender's own registered id: a relay that forwards a client's from lets anyone speak as anyone.",
     ["PAIR-RELAY-001"], [], s, ["interop-trap"])

s, ids = setup()
s.append(step(recv(2, msg("desktop-gone", ack("048213"))), st(*ids), [send(2, offline("desktop-gone"), "PAIR-RELAY-001")]))
case("peer-offline-for-unknown-target", "A message to an id nobody registered is answered with peer-offline naming that id.",
     ["PAIR-RELAY-001"], ["PAIR-RELAY-001"], s)

case("message-before-register", "A connection that registered no id cannot send: error not-registered.", ["PAIR-RELAY-001"], ["PAIR-RELAY-001"],
     [step(conn(1, A), st()), step(recv(1, msg(DESK, ack("048213"))), st(), [send(1, err("not-registered"), "PAIR-RELAY-001")])])

case("invalid-frames", "Frames that are not a valid register or message are refused with invalid-message and change nothing.",
     ["PAIR-RELAY-001"], ["PAIR-RELAY-001"],
     [step(conn(1, A), st()),
      step(recvt(1, "not json"), st(), [send(1, err("invalid-message"), "PAIR-RELAY-001")]),
      step(recv(1, reg("   ")), st(), [send(1, err("invalid-message"), "PAIR-RELAY-001")]),
      step(recv(1, {"type": "registered", "peerId": DESK}), st(), [send(1, err("invalid-message"), "PAIR-RELAY-001")]),
      step(recvt(1, '{"type":"register","peerId":"a","peerId":"b"}'), st(), [send(1, err("invalid-message"), "PAIR-RELAY-001")]),
      step(recv(1, reg(DESK)), st(DESK), [send(1, registered(DESK))])], ["interop-trap"])

case("ping-pong", "A ping (the keepalive real clients send) gets a pong, before or after register, and changes nothing.", ["PAIR-RELAY-002"],
     ["PAIR-RELAY-002"],
     [step(conn(1, A), st()), step(recv(1, {"type": "ping"}), st(), [send(1, {"type": "pong"}, "PAIR-RELAY-002")]),
      step(recv(1, reg(DESK)), st(DESK), [send(1, registered(DESK))]),
      step(recv(1, {"type": "ping", "timestamp": T0}), st(DESK), [send(1, {"type": "pong"}, "PAIR-RELAY-002")])], ["real-implementation"])
case("delivery-shape-from-a-client", "A client's message with from but no to cannot be routed: invalid-message.", ["PAIR-RELAY-001"], ["PAIR-RELAY-001"],
     [step(conn(1, A), st()), step(recv(1, reg(DESK)), st(DESK), [send(1, registered(DESK))]),
      step(recv(1, {"type": "message", "from": DESK, "payload": ack("048213")}), st(DESK), [send(1, err("invalid-message"), "PAIR-RELAY-001")])])

big = '{"type":"register","peerId":"x","pad":"' + "a" * 65536 + '"}'
case("frame-too-large", "A frame over 64 KiB is refused with too-large before it is parsed.", ["PAIR-RELAY-001"], ["PAIR-RELAY-001"],
     [step(conn(1, A), st()), step(recvt(1, big), st(), [send(1, err("too-large"), "PAIR-RELAY-001")])], ["boundary"])

s, ids = setup()
s.append(step(disc(1), st(PHONE)))
s.append(step(recv(2, msg(DESK, ack("048213"))), st(PHONE), [send(2, offline(DESK), "PAIR-RELAY-001")]))
case("disconnect-releases-ids", "After the desktop disconnects its id is gone and messages to it get peer-offline.",
     ["PAIR-RELAY-001"], ["PAIR-RELAY-001"], s)

s, ids = setup()
s += [step(conn(3, A), st(*ids)), step(recv(3, reg(DESK)), st(*ids), [send(3, registered(DESK))]),
      step(recv(2, msg(DESK, ack("048213"))), st(*ids), [send(3, fwd(DESK, PHONE, ack("048213")))]),
      step(disc(1), st(*ids))]
case("reconnect-takes-the-id-over", "A reconnecting desktop re-registers its id from a new connection and receives from then on; the old connection's close does not remove it.",
     ["PAIR-RELAY-001"], [], s)

AL = "pairing-code:048213"
s, ids = setup(AL)
s.append(step(recv(2, msg(AL, ack("048213"))), st(DESK, PHONE), [send(1, fwd(AL, PHONE, ack("048213")))]))
s.append(step(recv(2, msg(AL, ack("048213")), T0 + 1000), st(DESK, PHONE), [send(2, offline(AL), "PAIR-SEC-003")]))
case("alias-delivers-once", "A pairing-code alias receives one pair-ack; a second message to the spent code gets peer-offline.",
     ["PAIR-RELAY-001", "PAIR-SEC-003"], ["PAIR-SEC-003"], s)

s, ids = setup(AL)
s.append(step(recv(2, msg(AL, ack("654321"))), st(*ids), [send(2, err("invalid-message"), "PAIR-RELAY-001")]))
case("alias-rejects-foreign-code", "A pair-ack for another code sent to an alias breaks PAIR-SIG-002 and is refused, the alias stays.",
     ["PAIR-SIG-002", "PAIR-RELAY-001"], ["PAIR-RELAY-001"], s)

s, ids = setup(AL)
s += [step(conn(3, C), st(*ids)), step(recv(3, reg(AL)), st(*ids), [send(3, err("alias-taken"), "PAIR-SEC-001")]),
      step(recv(1, reg(AL), T0 + 5000), st(*ids), [send(1, registered(AL))])]
case("alias-held-by-one-connection", "Another connection cannot take a live alias; the holder may register it again.",
     ["PAIR-SEC-001"], ["PAIR-SEC-001"], s)

s, ids = setup(AL)
s.append(step(recv(2, msg(AL, ack("048213")), T0 + 300000), st(DESK, PHONE), [send(1, fwd(AL, PHONE, ack("048213")))]))
case("alias-valid-for-five-minutes", "A message exactly 300000 ms after the alias was registered is still delivered.",
     ["PAIR-SEC-002"], [], s, ["boundary"])

s, ids = setup(AL)
s.append(step(recv(1, reg(AL), T0 + 200000), st(*ids), [send(1, registered(AL))]))
s.append(step(recv(2, msg(AL, ack("048213")), T0 + 300001), st(DESK, PHONE), [send(2, err("alias-expired"), "PAIR-SEC-002")]))
case("alias-expires", "An alias is refused 300001 ms after its first registration, even if the holder registered it again.",
     ["PAIR-SEC-002"], ["PAIR-SEC-002"], s, ["boundary"])

s, ids = setup(AL)
s += [step(conn(3, C), st(*ids)), step(recv(3, reg(ATT)), st(*ids, ATT), [send(3, registered(ATT))])]
ids = ids + [ATT]
for i, g in enumerate(["000001", "000002", "000003", "000004", "000005"]):
    s.append(step(recv(3, msg("pairing-code:" + g, ack(g)), T0 + 1000 * (i + 1)), st(*ids), [send(3, offline("pairing-code:" + g), "PAIR-RELAY-001")]))
s.append(step(recv(3, msg(AL, ack("048213")), T0 + 6000), st(*ids), [send(3, err("rate-limited"), "PAIR-SEC-004")]))
s.append(step(recv(2, msg(AL, ack("048213")), T0 + 7000), st(DESK, PHONE, ATT), [send(1, fwd(AL, PHONE, ack("048213")))]))
s.append(step(recv(3, msg("pairing-code:000006", ack("000006")), T0 + 301001), st(DESK, PHONE, ATT), [send(3, offline("pairing-code:000006"), "PAIR-RELAY-001")]))
case("guessing-is-rate-limited", "After 5 misses in 5 minutes a source is refused even for the live code; other sources are not; the window slides.",
     ["PAIR-SEC-004", "PAIR-RELAY-001"], ["PAIR-SEC-004"], s)

s, ids = setup(AL)
s += [step(conn(3, C), st(*ids)), step(recv(3, reg(ATT)), st(*ids, ATT), [send(3, registered(ATT))])]
ids = ids + [ATT]
for i in range(5):
    s.append(step(recv(3, reg(AL), T0 + 1000 * (i + 1)), st(*ids), [send(3, err("alias-taken"), "PAIR-SEC-001")]))
s.append(step(recv(3, reg("pairing-code:111111"), T0 + 6000), st(*ids), [send(3, err("rate-limited"), "PAIR-SEC-004")]))
s.append(step(recv(3, msg(AL, ack("048213")), T0 + 6500), st(*ids), [send(3, err("rate-limited"), "PAIR-SEC-004")]))
s.append(step(recv(2, msg(AL, ack("048213")), T0 + 7000), st(DESK, PHONE, ATT), [send(1, fwd(AL, PHONE, ack("048213")))]))
case("alias-probing-is-guessing", "Registering live codes to learn which exist (alias-taken) counts as guessing: after 5 the source is refused every alias, registering and sending; the phone is not.",
     ["PAIR-SEC-004", "PAIR-SEC-001"], ["PAIR-SEC-004"], s)

s, ids = setup()
quota = [f"pairing-code:{c}" for c in ("111111", "222222", "333333")]
for i, q in enumerate(quota):
    s.append(step(recv(1, reg(q), T0 + i + 1), st(*ids, *quota[:i + 1]), [send(1, registered(q))]))
s.append(step(recv(1, reg("pairing-code:444444"), T0 + 10), st(*ids, *quota), [send(1, err("rate-limited"), "PAIR-SEC-005")]))
s.append(step(recv(1, reg(quota[0]), T0 + 11), st(*ids, *quota), [send(1, registered(quota[0]))]))
s.append(step(recv(2, msg(quota[1], ack("222222")), T0 + 12), st(*ids, quota[0], quota[2]), [send(1, fwd(quota[1], PHONE, ack("222222")))]))
s.append(step(recv(1, reg("pairing-code:444444"), T0 + 13), st(*ids, quota[0], quota[2], "pairing-code:444444"), [send(1, registered("pairing-code:444444"))]))
case("alias-quota-per-connection", "A connection holds at most 3 live aliases; registering one it holds again costs nothing, and a spent one frees its place.",
     ["PAIR-SEC-005"], ["PAIR-SEC-005"], s)

# Once a connection's quota is spent, a live code and a free one get the same answer, and neither
# is looked up or counted as a miss: otherwise free probes cost nothing and each live code shows
# itself as alias-taken (issue 24.4).
s, ids = setup(AL)
s += [step(conn(3, C), st(*ids)), step(recv(3, reg(ATT)), st(*ids, ATT), [send(3, registered(ATT))])]
ids = ids + [ATT]
for i, q in enumerate(quota):
    s.append(step(recv(3, reg(q), T0 + i + 1), st(*ids, *quota[:i + 1]), [send(3, registered(q))]))
for i, probe in enumerate([AL, "pairing-code:444444", AL, "pairing-code:555555", AL, AL]):
    s.append(step(recv(3, reg(probe), T0 + 10 + i), st(*ids, *quota), [send(3, err("rate-limited"), "PAIR-SEC-005")]))
s.append(step(recv(3, reg(quota[0]), T0 + 20), st(*ids, *quota), [send(3, registered(quota[0]))]))
s.append(step(recv(2, msg(AL, ack("048213")), T0 + 30), st(*[i for i in ids if i != AL], *quota), [send(1, fwd(AL, PHONE, ack("048213")))]))
case("quota-spent-answers-every-code-alike", "With its quota spent, a connection gets rate-limited for a live code and a free one alike, and no probe counts as a miss: re-registering its own alias still works.",
     ["PAIR-SEC-005", "PAIR-SEC-004"], ["PAIR-SEC-005"], s, ["interop-trap"])

# Peer ids are opaque bytes (PAIR-PEER-001): an NFC id and its NFD twin are two peers.
NFC, NFD = "did:cc:caf\u00e9", "did:cc:cafe\u0301"
s = [step(conn(1, A), st()), step(recv(1, reg(NFC)), st(NFC), [send(1, registered(NFC))]),
     step(conn(2, B), st(NFC)), step(recv(2, reg(NFD)), st(NFC, NFD), [send(2, registered(NFD))]),
     step(recv(2, msg(NFC, ack("048213"))), st(NFC, NFD), [send(1, fwd(NFC, NFD, ack("048213")))]),
     step(recv(1, msg(NFD, ack("048213"))), st(NFC, NFD), [send(2, fwd(NFD, NFC, ack("048213")))]),
     step(disc(2), st(NFC)),
     step(recv(1, msg(NFD, ack("048213"))), st(NFC), [send(1, offline(NFD), "PAIR-RELAY-001")])]
case("peer-ids-are-bytes", "did:cc:café in NFC and in NFD are two peer ids, each routed to its own connection: a relay that normalizes or compares Swift Strings merges them.",
     ["PAIR-PEER-001", "PAIR-RELAY-001"], ["PAIR-RELAY-001"], s, ["interop-trap"])

s = [step(conn(1, C), st())]
held = []
for n in range(11):
    c = 1 + n // 3
    if n % 3 == 0 and n > 0:
        s.append(step(conn(c, C, T0 + n), st(*held)))
    q = f"pairing-code:{100000 + n}"
    if n < 10:
        held.append(q)
        s.append(step(recv(c, reg(q), T0 + n), st(*held), [send(c, registered(q))]))
    else:
        s.append(step(recv(c, reg(q), T0 + n), st(*held), [send(c, err("rate-limited"), "PAIR-SEC-005")]))
case("alias-quota-per-source", "One source registers at most 10 new aliases in 5 minutes, over any number of connections: squatting the code space takes 100,000 sources.",
     ["PAIR-SEC-005"], ["PAIR-SEC-005"], s)

# Bare WebRTC frames refused, wrapped ones forwarded (Spec pairing.md 3.7, PAIR-RTC-005).
cases.extend(webrtc_cases.relay_cases)

print(write_file(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "pairing"),
                 "pairing", "The signaling relay (Spec pairing.md section 5): registration, routing, peer-offline and errors, and the limits on pairing-code aliases.",
                 {}, cases, machine="relay"))
