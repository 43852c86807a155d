"""Writes Vectors/pairing/webrtc.json: the WebRTC negotiation after pairing as a sans-I/O machine
(Spec pairing.md 4.6, PAIR-RTC-006), the phone as offerer and the desktop as answerer. The
expectations are written here by hand from the Spec (4 for actions and ignored events, 3.5 and 3.7
for how a delivered signal is decoded, 4.6 for the order of the checks); rerun after editing them.

Shared helpers come from modules that only define things: vector_file (the file and case
builders), pairing_fixtures (ids, clock, URLs) and webrtc_cases (the SDP texts, candidate
attributes and payload builders of message.json). gen_flow_vectors and gen_connection_vectors
write their files when imported, so their small action helpers are written again below.
"""
import json
import os
import re
import sys

from pairing_fixtures import DESK, LAN, MOBILE, PHONE, RELAY, T0
from vector_file import VectorFile, arm, disarm
from webrtc_cases import CAND, HOST_CAND, SDP_ANSWER, SDP_OFFER, answer, ice, offer, with_payload

RTC = "PAIR-RTC-006"


class WebRTCFile(VectorFile):
    family = "pairing"
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "pairing")

    def steps(self, slug, comment, rules, steps, context=None, flags=()):
        """The triggers are the rules a failed reason or a drop action of the expected trace names, in
        order of first appearance (Vectors/README.md); the hand-written rules must list each."""
        named = []
        for _, state, actions in steps:
            for found in re.findall(r'"rule": "([A-Z0-9-]+)"', json.dumps([state, actions])):
                if found not in named:
                    named.append(found)
        missing = [r for r in named if r not in rules]
        assert not missing, f"{slug}: rules lacks {missing}"
        super().steps(slug, comment, rules, named, steps, context=context, flags=flags)


# ---------------------------------------------------------------------------------------------
# ids, times and signals
# ---------------------------------------------------------------------------------------------
OFFERER = {"localPeerId": PHONE}          # the phone: its DID
ANSWERER = {"localPeerId": DESK}          # the desktop: its mobileBridge id (the QR's pcPeerId)
STRANGER_DESK = "desktop-9d0e11"          # another desktop on the same relay
STRANGER_PHONE = "did:cc:phone-2"         # another phone on the same relay
ALIAS = "pairing-code:048213"             # a pairing-code alias (the manual flow's)

START = T0 + 5000                         # start: 5 s after pairing
DEADLINE = START + 30000                  # the last instant still in time

# The desktop's candidates (the phone's are webrtc_cases' HOST_CAND and CAND, ufrag EsAw of SDP_OFFER).
DESK_HOST = ("candidate:3958146782 1 udp 2122194687 192.168.1.20 61234 typ host generation 0 "
             "ufrag Q2hd network-id 1")
DESK_SRFLX = ("candidate:2299476547 1 udp 1686052607 198.51.100.20 61234 typ srflx raddr 192.168.1.20 "
              "rport 61234 generation 0 ufrag Q2hd network-id 1")
RELAY_CAND = ("candidate:1051296325 1 udp 41885439 203.0.113.77 3478 typ relay raddr 203.0.113.5 "
              "rport 54321 generation 0 ufrag EsAw network-id 3")
SDP_ANSWER_2 = SDP_ANSWER.replace("o=rtc 2876203513 0", "o=rtc 2876203513 1")   # a second, later answer
SDP_OFFER_2 = SDP_OFFER.replace(" 2 IN IP4", " 3 IN IP4")                      # a second offer (a restart)


def delivery(payload, frm, to, **extra):
    """A `message` as a Spec relay delivers it (type, to, from, payload); None leaves a member out."""
    d = {"type": "message"}
    if to is not None:
        d["to"] = to
    if frm is not None:
        d["from"] = frm
    d["payload"] = payload
    d.update(extra)
    return d


def to_phone(payload, frm=DESK, to=PHONE, **extra): return delivery(payload, frm, to, **extra)
def to_desk(payload, frm=PHONE, to=DESK, **extra): return delivery(payload, frm, to, **extra)


# events
def start(role, at=START, peer=None, url=RELAY, sdp=None, candidates=None):
    offerer = role == "offerer"
    return {"event": "start", "at": at, "role": role, "peerId": peer or (DESK if offerer else PHONE), "url": url,
            "sdp": sdp or (SDP_OFFER if offerer else SDP_ANSWER),
            "candidates": list(candidates if candidates is not None else ([HOST_CAND] if offerer else [DESK_HOST]))}
def signal(document, at): return {"event": "signal", "at": at, "document": document}
def offline(at, peer): return {"event": "peer-offline", "at": at, "peerId": peer}   # the relay's peer-offline names its target
def tick(at): return {"event": "tick", "at": at}


# actions
def send(to, payload, url=RELAY): return {"action": "send", "url": url, "message": {"type": "message", "to": to, "payload": payload}}
def own(c): return ice(c, "0", 0)        # this side's candidates always go out with sdpMid "0", sdpMLineIndex 0
# The deadline is one ms after the last instant in time, start + 30001, as in flows 4.2, 4.3 and
# 4.5: a tick then finds the exchange over.
def exchange_deadline(at): return arm(at + 30001)
def drop(rule, path=""): return {"action": "drop", "rule": rule, "path": path}


# states
IDLE = {"name": "idle"}
NEGOTIATED = {"name": "negotiated"}
def negotiating(described=False, remote=0): return {"name": "negotiating", "described": described, "remoteCandidates": remote}
def failed(rule=RTC, path=""): return {"name": "failed", "reason": {"rule": rule, "path": path}}


def offered(at=START, candidates=(HOST_CAND,), url=RELAY, sdp=SDP_OFFER, peer=DESK):
    """The offerer's actions at start: the offer, each candidate in order, and the deadline."""
    return [send(peer, offer(sdp), url)] + [send(peer, own(c), url) for c in candidates] + [exchange_deadline(at)]


def answered(candidates=(DESK_HOST,), sdp=SDP_ANSWER, peer=PHONE):
    """The answerer's actions on the paired phone's offer: the answer, then each candidate in order."""
    return [send(peer, answer(sdp))] + [send(peer, own(c)) for c in candidates]


O0 = (start("offerer"), negotiating(), offered())       # the offerer's first step
A0 = (start("answerer"), negotiating(), [exchange_deadline(START)])   # the answerer's first step

w = WebRTCFile(machine="webrtc", timed={"negotiating"}, description=(
    "WebRTC negotiation after pairing (Spec pairing.md section 4.6, PAIR-RTC-006): the phone offers and the desktop answers "
    "through the relay, both trickle candidates as message payloads (3.7), only to and from the paired peer, within 30000 ms "
    "of start. The case's context gives this side's own id (localPeerId): the phone's DID for the offerer, the desktop's id "
    "for the answerer."))

# ---------------------------------------------------------------------------------------------
# the offerer (the phone)
# ---------------------------------------------------------------------------------------------
w.steps("offerer-answer-then-candidate",
        "The phone offers to the desktop's id, sends its candidate and states its deadline 30 s on; the desktop's answer describes the remote side, its first candidate completes the negotiation and leaves no deadline.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-002", "PAIR-RTC-003", "PAIR-RTC-004", "PAIR-RTC-005"],
        [O0,
         (signal(to_phone(answer()), START + 1200), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST)), START + 1300), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("offerer-candidate-then-answer",
        "A desktop candidate that arrives before the answer is counted (remoteCandidates 1, not yet described); the answer then completes the negotiation and leaves no deadline.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(ice(DESK_HOST)), START + 900), negotiating(False, 1), []),
         (signal(to_phone(answer()), START + 1000), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("offerer-several-candidates",
        "Three local candidates are sent after the offer, one ice-candidate per message in the start's order, on the start's URL (here the LAN server); two remote candidates before the answer are both counted.",
        [RTC, "PAIR-RTC-003", "PAIR-RTC-005"],
        [(start("offerer", url=LAN, candidates=[HOST_CAND, CAND, RELAY_CAND]), negotiating(),
          offered(url=LAN, candidates=(HOST_CAND, CAND, RELAY_CAND))),
         (signal(to_phone(ice(DESK_HOST)), START + 700), negotiating(False, 1), []),
         (signal(to_phone(ice(DESK_SRFLX)), START + 750), negotiating(False, 2), []),
         (signal(to_phone(answer()), START + 800), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("offerer-delivery-without-to-accepted",
        "The standalone relay delivers {type, from, payload, timestamp} without to (3.5 allows it in a delivery; timestamp is an unknown member): the answer and candidate are taken.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer(), to=None, timestamp=START + 1199), START + 1200), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST), to=None, timestamp=START + 1299), START + 1300), NEGOTIATED, [disarm()])],
        context=OFFERER, flags=["real-implementation"])

w.steps("offerer-offer-dropped",
        "An offer at the offerer is its own kind (there is no glare handling): dropped at /payload/type with the state unchanged, before and after the answer.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(offer()), START + 500), negotiating(), [drop(RTC, "/payload/type")]),
         (signal(to_phone(answer()), START + 600), negotiating(True, 0), []),
         (signal(to_phone(offer(SDP_OFFER_2)), START + 650), negotiating(True, 0), [drop(RTC, "/payload/type")]),
         (signal(to_phone(ice(DESK_HOST)), START + 700), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("offerer-second-answer-dropped",
        "The offerer accepts one description of the desktop: a second answer (even a different one) is dropped at /payload/type and the first stays; a candidate then completes.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer()), START + 1200), negotiating(True, 0), []),
         (signal(to_phone(answer(SDP_ANSWER_2)), START + 1250), negotiating(True, 0), [drop(RTC, "/payload/type")]),
         (signal(to_phone(answer()), START + 1260), negotiating(True, 0), [drop(RTC, "/payload/type")]),
         (signal(to_phone(ice(DESK_HOST)), START + 1300), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("offerer-stranger-dropped",
        "An answer and a candidate from another desktop on the relay are dropped at /from and change nothing (not counted); the paired desktop's then complete.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer(), frm=STRANGER_DESK), START + 800), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(ice(DESK_HOST), frm=STRANGER_DESK), START + 850), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(answer()), START + 900), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST), frm=STRANGER_DESK), START + 950), negotiating(True, 0), [drop(RTC, "/from")]),
         (signal(to_phone(ice(DESK_HOST)), START + 1000), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("offerer-from-compared-byte-for-byte",
        "Peer ids are opaque: a from that differs from peerId only in letter case, or by a trailing space, is another peer and is dropped at /from.",
        [RTC, "PAIR-PEER-001", "PAIR-RTC-002"],
        [O0,
         (signal(to_phone(answer(), frm=DESK.upper()), START + 800), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(answer(), frm=DESK + " "), START + 850), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(answer()), START + 900), negotiating(True, 0), [])],
        context=OFFERER, flags=["interop-trap"])

w.steps("offerer-echo-from-own-id-dropped",
        "The phone's own offer and candidate delivered back from its own DID (the echo loop) are dropped on PAIR-RTC-004 at /from: the message check comes before the from-against-peerId and kind checks.",
        [RTC, "PAIR-RTC-004", "PAIR-RTC-001", "PAIR-RTC-003"],
        [O0,
         (signal(delivery(ice(HOST_CAND), PHONE, DESK), START + 300), negotiating(), [drop("PAIR-RTC-004", "/from")]),
         (signal(delivery(offer(), PHONE, DESK), START + 310), negotiating(), [drop("PAIR-RTC-004", "/from")]),
         (signal(delivery(ice(HOST_CAND), PHONE, PHONE), START + 320), negotiating(), [drop("PAIR-RTC-004", "/from")])],
        context=OFFERER, flags=["interop-trap"])

w.steps("offerer-delivery-without-from-dropped",
        "The production relay forwards a message as written, with no from: such a delivery cannot be told to come from the paired desktop and is dropped on PAIR-RTC-006 at /from, with or without to.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer(), frm=None), START + 1200), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(ice(DESK_HOST), frm=None, to=None), START + 1250), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(answer()), START + 1300), negotiating(True, 0), [])],
        context=OFFERER, flags=["interop-trap", "real-implementation"])

w.steps("offerer-malformed-answer-dropped",
        "A malformed answer from the paired desktop is dropped on its own rule and path (3.7) and describes nothing; a well-formed answer is then taken.",
        [RTC, "CORE-TYPE-001", "CORE-TYPE-003", "PAIR-RTC-002"],
        [O0,
         (signal(to_phone({"type": "answer", "sdp": SDP_ANSWER}), START + 1000), negotiating(), [drop("CORE-TYPE-001", "/payload/answer")]),
         (signal(to_phone(with_payload(answer(), answer__type="offer")), START + 1010), negotiating(),
          [drop("PAIR-RTC-002", "/payload/answer/type")]),
         (signal(to_phone(with_payload(answer(), answer__type="pranswer")), START + 1020), negotiating(),
          [drop("PAIR-RTC-002", "/payload/answer/type")]),
         (signal(to_phone(answer("v=1\r\n" + SDP_ANSWER[5:])), START + 1030), negotiating(), [drop("PAIR-RTC-002", "/payload/answer/sdp")]),
         (signal(to_phone(answer("")), START + 1040), negotiating(), [drop("PAIR-RTC-002", "/payload/answer/sdp")]),
         (signal(to_phone(answer(0)), START + 1050), negotiating(), [drop("CORE-TYPE-003", "/payload/answer/sdp")]),
         (signal(to_phone(answer()), START + 1100), negotiating(True, 0), [])],
        context=OFFERER, flags=["interop-trap"])

w.steps("offerer-malformed-candidate-dropped",
        "A malformed candidate from the paired desktop is dropped on its own rule and path (3.7) and is not counted; a well-formed one then completes the negotiation.",
        [RTC, "CORE-TYPE-001", "CORE-TYPE-002", "CORE-TYPE-003", "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer()), START + 1000), negotiating(True, 0), []),
         (signal(to_phone(with_payload(ice(DESK_HOST), candidate__sdpMid=None)), START + 1100), negotiating(True, 0),
          [drop("CORE-TYPE-001", "/payload/candidate/sdpMid")]),
         (signal(to_phone(ice(DESK_HOST, "0", None)), START + 1110), negotiating(True, 0),
          [drop("CORE-TYPE-002", "/payload/candidate/sdpMLineIndex")]),
         (signal(to_phone(ice(DESK_HOST, "0", "0")), START + 1120), negotiating(True, 0),
          [drop("CORE-TYPE-003", "/payload/candidate/sdpMLineIndex")]),
         (signal(to_phone({"type": "ice-candidate", "candidate": DESK_HOST, "sdpMid": "0", "sdpMLineIndex": 0}), START + 1130),
          negotiating(True, 0), [drop("CORE-TYPE-003", "/payload/candidate")]),
         (signal(to_phone(ice("")), START + 1140), negotiating(True, 0), [drop("PAIR-RTC-003", "/payload/candidate/candidate")]),
         (signal(to_phone(ice("a=" + DESK_HOST)), START + 1150), negotiating(True, 0), [drop("PAIR-RTC-003", "/payload/candidate/candidate")]),
         (signal(to_phone(ice(DESK_HOST, "0", 65536)), START + 1160), negotiating(True, 0),
          [drop("PAIR-RTC-003", "/payload/candidate/sdpMLineIndex")]),
         (signal(to_phone(ice(DESK_HOST)), START + 1200), NEGOTIATED, [disarm()])],
        context=OFFERER, flags=["interop-trap"])

w.steps("offerer-document-check-before-peer-and-kind",
        "The checks run in 4.6's order: a stranger's flat-sdp answer is reported as CORE-TYPE-001 (decoding before from), and a malformed offer at the offerer as PAIR-RTC-001 (decoding before the kind).",
        [RTC, "CORE-TYPE-001", "PAIR-RTC-001", "PAIR-RTC-002"],
        [O0,
         (signal(to_phone({"type": "answer", "sdp": SDP_ANSWER}, frm=STRANGER_DESK), START + 400), negotiating(),
          [drop("CORE-TYPE-001", "/payload/answer")]),
         (signal(to_phone(with_payload(offer(), offer__type="answer")), START + 500), negotiating(),
          [drop("PAIR-RTC-001", "/payload/offer/type")])],
        context=OFFERER)

w.steps("offerer-envelope-violations-dropped",
        "The delivery is checked as a whole message (3.5): a blank from is PAIR-PEER-001 at /from, an answer delivered to a pairing-code alias PAIR-SIG-002 at /payload/type.",
        [RTC, "PAIR-PEER-001", "PAIR-SIG-002", "PAIR-RTC-002"],
        [O0,
         (signal(to_phone(answer(), frm="   "), START + 400), negotiating(), [drop("PAIR-PEER-001", "/from")]),
         (signal(to_phone(answer(), to=ALIAS), START + 500), negotiating(), [drop("PAIR-SIG-002", "/payload/type")]),
         (signal(to_phone(answer()), START + 600), negotiating(True, 0), [])],
        context=OFFERER)

w.steps("offerer-opaque-payloads-ignored",
        "A payload whose type is not exactly offer, answer or ice-candidate belongs to no WebRTC signal (OFFER, Answer, the desktop's ice-candidates batch, a pairing:confirmation): ignored with no action, even from a stranger or without from.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-003", "PAIR-TYPE-001"],
        [O0,
         (signal(to_phone({"type": "OFFER", "sdp": SDP_ANSWER}), START + 100), negotiating(), []),
         (signal(to_phone({"type": "Answer", "answer": {"type": "answer", "sdp": SDP_ANSWER}}), START + 110), negotiating(), []),
         (signal(to_phone({"type": "ice-candidates", "candidates": [{"candidate": DESK_HOST, "sdpMid": "0", "sdpMLineIndex": 0}]}), START + 120),
          negotiating(), []),
         (signal(to_phone({"type": "pairing:confirmation", "pairingCode": "048213"}, frm=STRANGER_DESK), START + 130), negotiating(), []),
         (signal(to_phone({"type": "ice-candidates", "candidates": []}, frm=None), START + 140), negotiating(), [])],
        context=OFFERER, flags=["interop-trap", "real-implementation"])

# ---------------------------------------------------------------------------------------------
# the answerer (the desktop)
# ---------------------------------------------------------------------------------------------
w.steps("answerer-happy-path",
        "The desktop sends nothing at start but states its deadline; the paired phone's offer is answered to the phone's DID, followed by the desktop's candidate; the phone's candidate completes and leaves no deadline.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-002", "PAIR-RTC-003", "PAIR-RTC-004", "PAIR-RTC-005"],
        [A0,
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered()),
         (signal(to_desk(ice(HOST_CAND)), START + 900), NEGOTIATED, [disarm()])],
        context=ANSWERER)

w.steps("answerer-candidate-before-offer",
        "The phone's candidate arrives before its offer: counted; the offer then makes the desktop negotiated at once, so it answers, sends both its candidates in order and then leaves no deadline.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-002", "PAIR-RTC-003"],
        [(start("answerer", candidates=[DESK_HOST, DESK_SRFLX]), negotiating(), [exchange_deadline(START)]),
         (signal(to_desk(ice(HOST_CAND)), START + 700), negotiating(False, 1), []),
         (signal(to_desk(offer()), START + 800), NEGOTIATED, answered((DESK_HOST, DESK_SRFLX)) + [disarm()])],
        context=ANSWERER)

w.steps("answerer-answer-dropped",
        "An answer at the answerer is its own kind: dropped at /payload/type, nothing is described and nothing sent; the offer is then answered.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-002"],
        [A0,
         (signal(to_desk(answer()), START + 500), negotiating(), [drop(RTC, "/payload/type")]),
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered())],
        context=ANSWERER)

w.steps("answerer-second-offer-dropped",
        "The answerer answers once: a second offer (an ICE restart, or the same offer again) is dropped at /payload/type with no second answer; the phone's candidate then completes.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-003"],
        [A0,
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered()),
         (signal(to_desk(offer(SDP_OFFER_2)), START + 850), negotiating(True, 0), [drop(RTC, "/payload/type")]),
         (signal(to_desk(offer()), START + 860), negotiating(True, 0), [drop(RTC, "/payload/type")]),
         (signal(to_desk(ice(HOST_CAND)), START + 900), NEGOTIATED, [disarm()])],
        context=ANSWERER)

w.steps("answerer-stranger-offer-dropped",
        "An offer and a candidate from another phone are dropped at /from: nothing is answered to the stranger and nothing is counted; the paired phone's offer is then answered to it.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-003"],
        [A0,
         (signal(to_desk(ice(HOST_CAND), frm=STRANGER_PHONE), START + 700), negotiating(), [drop(RTC, "/from")]),
         (signal(to_desk(offer(), frm=STRANGER_PHONE), START + 750), negotiating(), [drop(RTC, "/from")]),
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered())],
        context=ANSWERER, flags=["interop-trap"])

w.steps("answerer-delivery-without-from-dropped",
        "An offer delivered without from (the production relay adds none) is not known to come from the paired phone: dropped on PAIR-RTC-006 at /from, and not answered.",
        [RTC, "PAIR-RTC-001"],
        [A0,
         (signal(to_desk(offer(), frm=None), START + 800), negotiating(), [drop(RTC, "/from")]),
         (signal(to_desk(offer(), frm=None, to=None), START + 810), negotiating(), [drop(RTC, "/from")])],
        context=ANSWERER, flags=["interop-trap", "real-implementation"])

w.steps("answerer-echo-from-own-id-dropped",
        "The desktop's own answer and candidate echoed back from its own id are dropped on PAIR-RTC-004 at /from (the message check comes before the kind check that would name /payload/type).",
        [RTC, "PAIR-RTC-004", "PAIR-RTC-002", "PAIR-RTC-003"],
        [A0,
         (signal(delivery(offer(), PHONE, DESK), START + 800), negotiating(True, 0), answered()),
         (signal(delivery(answer(), DESK, PHONE), START + 820), negotiating(True, 0), [drop("PAIR-RTC-004", "/from")]),
         (signal(delivery(ice(DESK_HOST), DESK, DESK), START + 830), negotiating(True, 0), [drop("PAIR-RTC-004", "/from")])],
        context=ANSWERER, flags=["interop-trap"])

w.steps("answerer-malformed-offer-dropped",
        "A malformed offer from the paired phone is dropped on its own rule and path (3.7) and not answered; a well-formed offer is then answered.",
        [RTC, "CORE-TYPE-001", "CORE-TYPE-003", "PAIR-RTC-001", "PAIR-RTC-002"],
        [A0,
         (signal(to_desk({"type": "offer", "sdp": SDP_OFFER}), START + 500), negotiating(), [drop("CORE-TYPE-001", "/payload/offer")]),
         (signal(to_desk({"type": "offer", "sdp": {"type": "offer", "sdp": SDP_OFFER}}), START + 510), negotiating(),
          [drop("CORE-TYPE-001", "/payload/offer")]),
         (signal(to_desk({"type": "offer", "offer": json.dumps({"type": "offer", "sdp": SDP_OFFER})}), START + 520), negotiating(),
          [drop("CORE-TYPE-003", "/payload/offer")]),
         (signal(to_desk(with_payload(offer(), offer__type="answer")), START + 530), negotiating(),
          [drop("PAIR-RTC-001", "/payload/offer/type")]),
         (signal(to_desk(offer("v=01\r\n" + SDP_OFFER[5:])), START + 540), negotiating(), [drop("PAIR-RTC-001", "/payload/offer/sdp")]),
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered())],
        context=ANSWERER, flags=["interop-trap"])

w.steps("answerer-malformed-candidate-not-counted",
        "A phone candidate with no sdpMid, or with a string sdpMLineIndex, is dropped on its rule and not counted: the offer then leaves the desktop described but not negotiated.",
        [RTC, "CORE-TYPE-001", "CORE-TYPE-003", "PAIR-RTC-001", "PAIR-RTC-003"],
        [A0,
         (signal(to_desk(with_payload(ice(HOST_CAND), candidate__sdpMid=None)), START + 600), negotiating(),
          [drop("CORE-TYPE-001", "/payload/candidate/sdpMid")]),
         (signal(to_desk(ice(HOST_CAND, "0", "0")), START + 610), negotiating(),
          [drop("CORE-TYPE-003", "/payload/candidate/sdpMLineIndex")]),
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered())],
        context=ANSWERER, flags=["interop-trap"])

w.steps("answerer-offer-to-pairing-alias-dropped",
        "An offer sent to the desktop's pairing-code alias (the manual flow's target) is PAIR-SIG-002 at /payload/type: only a pair-ack goes to an alias; it is not answered.",
        [RTC, "PAIR-SIG-002", "PAIR-RTC-001"],
        [A0,
         (signal(to_desk(offer(), to=ALIAS), START + 800), negotiating(), [drop("PAIR-SIG-002", "/payload/type")])],
        context=ANSWERER, flags=["interop-trap"])

w.steps("answerer-opaque-payloads-ignored",
        "A late pair-ack, the phone's ice-candidates batch and an offer typed Offer are not WebRTC signals for this machine: ignored with no action; a bare offer frame (no payload, PAIR-RTC-005) is ignored too.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-003", "PAIR-RTC-005", "PAIR-TYPE-001"],
        [A0,
         (signal(to_desk({"type": "pair-ack", "pairingCode": "048213", "mobileDid": PHONE,
                          "deviceInfo": dict(MOBILE),
                          "timestamp": START - 4000}), START + 100), negotiating(), []),
         (signal(to_desk({"type": "ice-candidates", "candidates": [{"candidate": HOST_CAND, "sdpMid": "0", "sdpMLineIndex": 0}]}), START + 200),
          negotiating(), []),
         (signal(to_desk({"type": "Offer", "offer": {"type": "offer", "sdp": SDP_OFFER}}), START + 300), negotiating(), []),
         (signal({"type": "offer", "from": PHONE, "offer": {"type": "offer", "sdp": SDP_OFFER}}, START + 400), negotiating(), [])],
        context=ANSWERER, flags=["interop-trap", "real-implementation"])

# ---------------------------------------------------------------------------------------------
# the deadline and peer-offline
# ---------------------------------------------------------------------------------------------
w.steps("signal-at-deadline-accepted",
        "A signal exactly 30000 ms after start is still in time: the candidate at the deadline completes the negotiation.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer()), START + 29000), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST)), DEADLINE), NEGOTIATED, [disarm()])],
        context=OFFERER, flags=["boundary"])

w.steps("answerer-offer-at-deadline-answered",
        "An offer exactly 30000 ms after the desktop's start is still answered; a tick at the deadline changes nothing.",
        [RTC, "PAIR-RTC-001"],
        [A0,
         (tick(DEADLINE), negotiating(), []),
         (signal(to_desk(offer()), DEADLINE), negotiating(True, 0), answered())],
        context=ANSWERER, flags=["boundary"])

w.steps("tick-after-deadline",
        "A tick at start + 30000 changes nothing; at start + 30001 the machine fails PAIR-RTC-006 at the root with no action; a signal afterwards is ignored.",
        [RTC],
        [O0,
         (signal(to_phone(answer()), START + 1000), negotiating(True, 0), []),
         (tick(DEADLINE), negotiating(True, 0), []),
         (tick(DEADLINE + 1), failed(), []),
         (signal(to_phone(ice(DESK_HOST)), DEADLINE + 2), failed(), []),
         (tick(DEADLINE + 3), failed(), [])],
        context=OFFERER, flags=["boundary"])

w.steps("signal-after-deadline",
        "A signal 30001 ms after start, before any tick, fails the machine PAIR-RTC-006 at the root and is dropped at the root; the late tick then changes nothing.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer()), START + 1000), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST)), DEADLINE + 1), failed(), [drop(RTC)]),
         (tick(DEADLINE + 1), failed(), [])],
        context=OFFERER, flags=["boundary"])

w.steps("deadline-checked-first",
        "Past the deadline the time is checked before anything else: an opaque payload from a stranger, which in time would be ignored, fails the machine and is dropped on PAIR-RTC-006 at the root.",
        [RTC],
        [A0,
         (signal(to_desk({"type": "ice-candidates", "candidates": []}, frm=STRANGER_PHONE), DEADLINE + 1), failed(), [drop(RTC)])],
        context=ANSWERER, flags=["boundary"])

w.steps("deadline-checked-before-document",
        "A malformed offer 30001 ms after start is dropped on PAIR-RTC-006 at the root, not on CORE-TYPE-001: the time is checked first.",
        [RTC],
        [A0,
         (signal(to_desk({"type": "offer", "sdp": SDP_OFFER}), DEADLINE + 1), failed(), [drop(RTC)])],
        context=ANSWERER, flags=["boundary"])

w.steps("answerer-no-offer-times-out",
        "A desktop that never gets an offer fails PAIR-RTC-006 at the first tick past the deadline; an offer then is ignored and never answered.",
        [RTC],
        [A0,
         (tick(START + 15000), negotiating(), []),
         (tick(DEADLINE + 1), failed(), []),
         (signal(to_desk(offer()), DEADLINE + 500), failed(), [])],
        context=ANSWERER, flags=["boundary"])

w.steps("answerer-offer-after-deadline-not-answered",
        "An offer 30001 ms after the desktop's start fails the machine and is dropped at the root: no answer is sent.",
        [RTC],
        [A0,
         (signal(to_desk(offer()), DEADLINE + 1), failed(), [drop(RTC)])],
        context=ANSWERER, flags=["boundary"])

w.steps("offerer-peer-offline",
        "peer-offline (the desktop is not on the relay) fails the machine PAIR-RTC-006 at the root at once and leaves no deadline (as PAIR-MAN-002 does); later signals and ticks are ignored.",
        [RTC, "PAIR-RTC-002"],
        [O0,
         (offline(START + 40, DESK), failed(), [disarm()]),
         (signal(to_phone(answer()), START + 1200), failed(), []),
         (tick(DEADLINE + 1), failed(), [])],
        context=OFFERER)

w.steps("answerer-peer-offline-after-answer",
        "peer-offline after the desktop answered, before the phone's candidate, fails the machine PAIR-RTC-006 at the root and leaves no deadline; the candidate then is ignored.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-003"],
        [A0,
         (signal(to_desk(offer()), START + 800), negotiating(True, 0), answered()),
         (offline(START + 850, PHONE), failed(), [disarm()]),
         (signal(to_desk(ice(HOST_CAND)), START + 900), failed(), [])],
        context=ANSWERER)

w.steps("peer-offline-for-another-id-ignored",
        "A peer-offline that names another id (a message this side sent elsewhere on the same connection) is not the paired desktop's: ignored, no action; the exchange goes on.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (offline(START + 40, STRANGER_DESK), negotiating(), []),
         (offline(START + 50, PHONE), negotiating(), []),
         (signal(to_phone(answer()), START + 1200), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST)), START + 1300), NEGOTIATED, [disarm()])],
        context=OFFERER)

w.steps("peer-offline-after-deadline",
        "peer-offline after the deadline, before any tick, ends the machine failed PAIR-RTC-006 at the root, as either reason would, with no action (the deadline comes first).",
        [RTC],
        [O0,
         (offline(DEADLINE + 10, DESK), failed(), [])],
        context=OFFERER, flags=["boundary"])

# ---------------------------------------------------------------------------------------------
# events that mean nothing
# ---------------------------------------------------------------------------------------------
w.steps("idle-ignores-all-but-start",
        "Before start every event is ignored, a malformed or a stranger's signal included (no drop), a candidate, a payload that is no signal, peer-offline and a tick too; start then begins.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-002"],
        [(signal(to_phone(answer()), START - 3000), IDLE, []),
         (signal(to_phone({"type": "answer", "sdp": SDP_ANSWER}), START - 2500), IDLE, []),
         (signal(to_phone(answer(), frm=STRANGER_DESK), START - 2000), IDLE, []),
         (signal(to_phone(offer()), START - 1500), IDLE, []),
         (signal(to_phone(ice(DESK_HOST)), START - 1400), IDLE, []),
         (signal(to_phone({"type": "pair-ack", "pairingCode": "048213"}), START - 1300), IDLE, []),
         (offline(START - 1000, DESK), IDLE, []),
         (tick(START - 500), IDLE, []),
         O0],
        context=OFFERER)

w.steps("second-start-ignored",
        "A second start while negotiating is ignored: no second offer, no new deadline, the first start's peer and deadline stay.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (start("offerer", START + 100, peer=STRANGER_DESK, candidates=[CAND]), negotiating(), []),
         (start("answerer", START + 200), negotiating(), []),
         (signal(to_phone(answer(), frm=STRANGER_DESK), START + 300), negotiating(), [drop(RTC, "/from")]),
         (signal(to_phone(answer()), START + 400), negotiating(True, 0), []),
         (tick(DEADLINE + 1), failed(), [])],
        context=OFFERER)

w.steps("negotiated-ignores-everything",
        "Once negotiated every event is ignored with no action: more candidates, a second answer, an offer, a stranger's or malformed signal, peer-offline, a tick past the deadline, a new start.",
        [RTC, "PAIR-RTC-002", "PAIR-RTC-003"],
        [O0,
         (signal(to_phone(answer()), START + 1200), negotiating(True, 0), []),
         (signal(to_phone(ice(DESK_HOST)), START + 1300), NEGOTIATED, [disarm()]),
         (signal(to_phone(ice(DESK_SRFLX)), START + 1400), NEGOTIATED, []),
         (signal(to_phone(answer(SDP_ANSWER_2)), START + 1500), NEGOTIATED, []),
         (signal(to_phone(offer()), START + 1600), NEGOTIATED, []),
         (signal(to_phone(answer(), frm=STRANGER_DESK), START + 1700), NEGOTIATED, []),
         (signal(to_phone({"type": "answer", "sdp": SDP_ANSWER}), START + 1800), NEGOTIATED, []),
         (offline(START + 1900, DESK), NEGOTIATED, []),
         (tick(DEADLINE + 1), NEGOTIATED, []),
         (signal(to_phone(ice(DESK_HOST)), DEADLINE + 2), NEGOTIATED, []),
         (start("offerer", DEADLINE + 3), NEGOTIATED, [])],
        context=OFFERER)

w.steps("failed-ignores-everything",
        "Once failed every event is ignored with no action, no drop even for a stranger's or a late signal: the answerer's offer, candidate, peer-offline, tick, a new start.",
        [RTC, "PAIR-RTC-001", "PAIR-RTC-003"],
        [A0,
         (offline(START + 100, PHONE), failed(), [disarm()]),
         (signal(to_desk(offer()), START + 200), failed(), []),
         (signal(to_desk(ice(HOST_CAND)), START + 300), failed(), []),
         (signal(to_desk(offer(), frm=STRANGER_PHONE), START + 400), failed(), []),
         (signal(to_desk(offer()), DEADLINE + 1), failed(), []),
         (offline(DEADLINE + 2, PHONE), failed(), []),
         (tick(DEADLINE + 3), failed(), []),
         (start("answerer", DEADLINE + 4), failed(), [])],
        context=ANSWERER)

print("webrtc", w.write())
