"""The WebRTC signaling cases (Spec pairing.md 3.7, PAIR-RTC-001..005): `cases` go into
Vectors/pairing/message.json (gen_pairing_vectors.py), `relay_cases` into
Vectors/pairing/relay.json (gen_relay_vectors.py). Expectations are typed in by hand from the
Spec; this module only saves repetition.
"""
import copy
import json
import os


# Peer ids in the real formats (see the existing real-implementation vectors in message.json):
# the desktop's mobileBridge id and a phone's did:key DID.
DESK = "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi"
PHONE = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"

# A data-channel-only SDP of the shape libwebrtc writes (values illustrative).
SDP_OFFER = (
    "v=0\r\n"
    "o=- 4215775240449105457 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=msid-semantic: WMS\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=ice-ufrag:EsAw\r\n"
    "a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y\r\n"
    "a=ice-options:trickle renomination\r\n"
    "a=fingerprint:sha-256 5D:A8:6A:3A:6B:43:0E:5F:33:5C:1D:0B:D6:41:91:0B:3F:C4:4F:6B:2E:A8:94:1C:31:F2:7A:A9:97:04:6A:0C\r\n"
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n"
)
SDP_ANSWER = (
    "v=0\r\n"
    "o=rtc 2876203513 0 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=msid-semantic:WMS *\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=mid:0\r\n"
    "a=sendrecv\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n"
    "a=setup:active\r\n"
    "a=ice-ufrag:Q2hd\r\n"
    "a=ice-pwd:Vj6XH7pO2rQ8nY0cL4kTzA\r\n"
    "a=ice-options:ice2,trickle\r\n"
    "a=fingerprint:sha-256 1B:7E:0C:55:9A:3D:E2:48:6F:81:C4:27:B0:19:D6:5A:E3:72:8F:0D:44:A1:6C:92:3E:B7:58:05:F1:2A:C8:6D\r\n"
)
CAND = ("candidate:842163049 1 udp 1677729535 203.0.113.5 54321 typ srflx raddr 192.168.1.23 "
        "rport 54321 generation 0 ufrag EsAw network-id 3 network-cost 10")
HOST_CAND = ("candidate:1467250027 1 udp 2122260223 192.168.1.23 46243 typ host generation 0 "
             "ufrag EsAw network-id 3 network-cost 10")


def offer(sdp=SDP_OFFER):
    return {"type": "offer", "offer": {"type": "offer", "sdp": sdp}}


def answer(sdp=SDP_ANSWER):
    return {"type": "answer", "answer": {"type": "answer", "sdp": sdp}}


def ice(candidate=CAND, mid="0", index=0):
    return {"type": "ice-candidate", "candidate": {"candidate": candidate, "sdpMid": mid, "sdpMLineIndex": index}}


def msg(payload, to=DESK, **extra):
    m = {"type": "message"}
    if to is not None:
        m["to"] = to
    m.update(extra)
    m["payload"] = payload
    return m


def with_payload(p, **changes):
    """A copy of payload p with members replaced (None deletes); dotted names reach one level."""
    p = copy.deepcopy(p)
    for name, value in changes.items():
        target, key = p, name
        if "__" in name:
            outer, key = name.split("__", 1)
            target = p[outer]
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    return p


def apple_text(doc):
    """JSONSerialization with options [.sortedKeys] only: keys sorted, no spaces, '/' escaped as '\\/'
    (.withoutEscapingSlashes is not set), CR and LF escaped as \\r and \\n."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).replace("/", "\\/")


# The desktop's batched candidates and Android's bare offer, as real clients send them.
batch = {"type": "ice-candidates", "candidates": [
    {"candidate": HOST_CAND, "sdpMid": "0", "sdpMLineIndex": 0, "usernameFragment": "EsAw"},
    {"candidate": CAND, "sdpMid": "0", "sdpMLineIndex": 0, "usernameFragment": "EsAw"}]}
bare_android = dict(offer())
bare_android["to"] = DESK


def add_message_cases(ms):
    """The WebRTC payload cases, added to the message file `ms` of gen_pairing_vectors.py through
    its own accept and reject (one case builder for every message case); these cases read rules
    before the document, as the Spec's tables do."""

    def accept(slug, comment, rules, inp, canonical, **kw):
        ms.accept(slug, comment, inp, canonical, rules, **kw)

    def reject(slug, comment, rules, inp, path, rule, **kw):
        assert rule in rules, slug
        ms.reject(slug, comment, path, rule, inp, rules, **kw)

    # ---------------------------------------------------------------- real frames (accepted)
    accept(
        "webrtc-real-android-offer-relay-mode",
        "ChainlessChain Android's offer in relay mode (WebRTCClient.kt 1123-1129 and 1142-1144 at 0d60010): nested offer object inside message.",
        ["PAIR-RTC-001"], msg(offer()), msg(offer()), flags=["real-implementation"])
    accept(
        "webrtc-real-ios-offer",
        "ChainlessChain iOS's offer as sent (RemoteWebRTCClient.swift 217-222 at 14aea62, sortedKeys JSONSerialization): keys sorted, slashes escaped.",
        ["PAIR-RTC-001"], None, msg(offer()), flags=["real-implementation", "interop-trap"],
        text=apple_text(msg(offer())))
    accept(
        "webrtc-real-android-ice-candidate-relay-mode",
        "ChainlessChain Android's candidate in relay mode (WebRTCClient.kt 1181-1189 at 0d60010): nested object, sdpMLineIndex a number.",
        ["PAIR-RTC-003"], msg(ice()), msg(ice()), flags=["real-implementation"])
    accept(
        "webrtc-real-ios-ice-candidate",
        "ChainlessChain iOS's candidate (RemoteWebRTCClient.swift 229-238 at 14aea62): sorted keys put sdpMLineIndex before sdpMid; sdpMid is never null.",
        ["PAIR-RTC-003"], None, msg(ice(HOST_CAND)), flags=["real-implementation"],
        text=apple_text(msg(ice(HOST_CAND))))
    accept(
        "webrtc-answer-nested",
        "The desktop's answer object (mobile-bridge.js 488-492 at 1f052bf) carried as a message payload, the only form this draft allows.",
        ["PAIR-RTC-002"], msg(answer(), to=PHONE), msg(answer(), to=PHONE))
    accept(
        "webrtc-delivered-offer-with-from",
        "A relay's delivery of an offer: from set, to left out, relay timestamp ignored.",
        ["PAIR-RTC-001", "PAIR-RTC-004"],
        msg(offer(), to=None, **{"from": PHONE, "timestamp": 1747300000123}),
        msg(offer(), to=None, **{"from": PHONE}),
        context={"localPeerId": DESK})
    lan_reshape = with_payload(offer(), sdp={"type": "offer", "sdp": SDP_OFFER}, iceRestart=False)
    accept(
        "webrtc-offer-duplicate-sdp-object-ignored",
        "The LAN server's reshaped offer (offer and sdp both the description, plus iceRestart; signaling-handlers.js 146-153 at 1330b4c) as a payload: only offer counts.",
        ["PAIR-RTC-001"], msg(lan_reshape), msg(offer()), flags=["interop-trap"])
    accept(
        "webrtc-ice-candidate-username-fragment-dropped",
        "W3C RTCIceCandidate.toJSON() adds usernameFragment; it is an undeclared member, ignored and dropped.",
        ["PAIR-RTC-003"],
        msg(with_payload(ice(), candidate__usernameFragment="EsAw")), msg(ice()), flags=["interop-trap"])
    accept(
        "webrtc-ice-candidate-index-nonzero",
        "A candidate for the second m-line: sdpMid and sdpMLineIndex both given and kept.",
        ["PAIR-RTC-003"], msg(ice(mid="1", index=1)), msg(ice(mid="1", index=1)), flags=["boundary"])
    accept(
        "webrtc-payload-type-upper-case-is-opaque",
        "A payload typed OFFER is not an offer: it is kept as received and a receiver must not treat it as one.",
        ["PAIR-RTC-001"],
        msg({"type": "OFFER", "sdp": SDP_OFFER}), msg({"type": "OFFER", "sdp": SDP_OFFER}), flags=["interop-trap"])
    accept(
        "webrtc-ice-candidates-batch-is-opaque",
        "The desktop's batch shape (mobile-bridge.js 639-643 at 1f052bf) is not a defined payload: kept as received; iOS ignores it.",
        ["PAIR-RTC-003"], msg(batch, to=PHONE), msg(batch, to=PHONE), flags=["interop-trap"])

    # ---------------------------------------------------------------- bare frames (rejected as message)
    reject(
        "webrtc-real-android-bare-offer",
        "Android's phone-to-desktop offer (relaySignaling false, WebRTCClient.kt 1146-1147 at 0d60010) is a bare frame, not a message; the production relay drops it.",
        ["PAIR-TYPE-001", "PAIR-RTC-005"], bare_android, "/type", "PAIR-TYPE-001",
        flags=["real-implementation", "interop-trap"])
    reject(
        "webrtc-real-desktop-bare-answer",
        "The desktop's answer (mobile-bridge.js 488-492 at 1f052bf) is a bare frame; iOS drops every frame that is not a message.",
        ["PAIR-TYPE-001", "PAIR-RTC-005"], {"type": "answer", "to": PHONE, "answer": {"type": "answer", "sdp": SDP_ANSWER}},
        "/type", "PAIR-TYPE-001", flags=["real-implementation", "interop-trap"])

    # ---------------------------------------------------------------- offer / answer shapes
    reject(
        "webrtc-offer-flat-sdp-string",
        "A flat {type:offer, sdp:\"v=0...\"}: Android reads it, the desktop's handleOffer gets an empty SDP; offer is required.",
        ["CORE-TYPE-001", "PAIR-RTC-001"], msg({"type": "offer", "sdp": SDP_OFFER}), "/payload/offer", "CORE-TYPE-001",
        flags=["interop-trap"])
    reject(
        "webrtc-offer-sdp-object-only",
        "The description under sdp instead of offer (Android's second accepted shape): offer is required.",
        ["CORE-TYPE-001", "PAIR-RTC-001"], msg({"type": "offer", "sdp": {"type": "offer", "sdp": SDP_OFFER}}),
        "/payload/offer", "CORE-TYPE-001", flags=["interop-trap"])
    reject(
        "webrtc-offer-description-as-json-text",
        "The description serialized into a string instead of an object.",
        ["CORE-TYPE-003", "PAIR-RTC-001"],
        msg({"type": "offer", "offer": json.dumps({"type": "offer", "sdp": SDP_OFFER})}),
        "/payload/offer", "CORE-TYPE-003", flags=["interop-trap"])
    reject(
        "webrtc-offer-inner-type-missing",
        "The description's own type is required (every real sender writes it; the desktop passes it to setRemoteDescription).",
        ["CORE-TYPE-001", "PAIR-RTC-001"], msg(with_payload(offer(), offer__type=None)), "/payload/offer/type", "CORE-TYPE-001")
    reject(
        "webrtc-offer-inner-type-answer",
        "An offer payload whose description says answer: receivers that trust either type disagree.",
        ["PAIR-RTC-001"], msg(with_payload(offer(), offer__type="answer")), "/payload/offer/type", "PAIR-RTC-001",
        flags=["interop-trap"])
    reject(
        "webrtc-answer-pranswer",
        "pranswer is a W3C type but not part of this protocol.",
        ["PAIR-RTC-002"], msg(with_payload(answer(), answer__type="pranswer"), to=PHONE), "/payload/answer/type", "PAIR-RTC-002")
    reject(
        "webrtc-offer-sdp-empty",
        "An empty SDP: Android and iOS drop it silently, the desktop fails setRemoteDescription.",
        ["PAIR-RTC-001"], msg(offer(sdp="")), "/payload/offer/sdp", "PAIR-RTC-001", flags=["boundary"])
    reject(
        "webrtc-offer-sdp-version-01",
        "The first line must be v=0 itself: v=01 begins with the same three characters but is another version.",
        ["PAIR-RTC-001"], msg(offer(sdp="v=01\r\n" + SDP_OFFER[5:])), "/payload/offer/sdp", "PAIR-RTC-001", flags=["boundary"])
    accept(
        "webrtc-offer-sdp-lf-lines",
        "SDP lines ended by LF alone (RFC 8866 5 tells parsers to accept them): the text is kept as received.",
        ["PAIR-RTC-001"], msg(offer(sdp=SDP_OFFER.replace("\r\n", "\n"))), msg(offer(sdp=SDP_OFFER.replace("\r\n", "\n"))))
    reject(
        "webrtc-offer-sdp-is-stringified-description",
        "The whole description serialized into sdp: not SDP text (it does not start with v=0).",
        ["PAIR-RTC-001"], msg(offer(sdp=json.dumps({"type": "offer", "sdp": SDP_OFFER}))), "/payload/offer/sdp", "PAIR-RTC-001",
        flags=["interop-trap"])
    reject(
        "webrtc-answer-sdp-number",
        "sdp is text.",
        ["CORE-TYPE-003", "PAIR-RTC-002"], msg(answer(sdp=0), to=PHONE), "/payload/answer/sdp", "CORE-TYPE-003")

    # ---------------------------------------------------------------- candidate shapes
    reject(
        "webrtc-ice-candidate-flat",
        "The flat fallback both phones read (candidate a string beside sdpMid): the desktop builds RTCIceCandidate from the object, so candidate must be one.",
        ["CORE-TYPE-003", "PAIR-RTC-003"],
        msg({"type": "ice-candidate", "candidate": CAND, "sdpMid": "0", "sdpMLineIndex": 0}),
        "/payload/candidate", "CORE-TYPE-003", flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-index-as-string",
        "sdpMLineIndex \"1\": Android's optInt reads 1, iOS's as? Int fails and uses 0, so the phones disagree.",
        ["CORE-TYPE-003", "PAIR-RTC-003"], msg(ice(mid="1", index="1")), "/payload/candidate/sdpMLineIndex", "CORE-TYPE-003",
        flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-mid-missing",
        "No sdpMid: Android assumes \"0\", iOS drops the candidate.",
        ["CORE-TYPE-001", "PAIR-RTC-003"], msg(with_payload(ice(), candidate__sdpMid=None)), "/payload/candidate/sdpMid", "CORE-TYPE-001",
        flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-mid-null",
        "sdpMid null (W3C allows it when sdpMLineIndex is given): iOS drops the candidate, so this draft requires it.",
        ["CORE-TYPE-002", "PAIR-RTC-003"],
        msg({"type": "ice-candidate", "candidate": {"candidate": CAND, "sdpMid": None, "sdpMLineIndex": 0}}),
        "/payload/candidate/sdpMid", "CORE-TYPE-002", flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-mid-number",
        "sdpMid 0 as a number: Android's optString reads \"0\", iOS's as? String fails and drops the candidate.",
        ["CORE-TYPE-003", "PAIR-RTC-003"], msg(ice(mid=0)), "/payload/candidate/sdpMid", "CORE-TYPE-003", flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-index-fraction",
        "sdpMLineIndex 0.0 is not an integer literal.",
        ["CORE-TYPE-004", "PAIR-RTC-003"], None, "/payload/candidate/sdpMLineIndex", "CORE-TYPE-004",
        text=json.dumps(msg(ice()), separators=(",", ":")).replace('"sdpMLineIndex":0', '"sdpMLineIndex":0.0'))
    reject(
        "webrtc-ice-candidate-index-negative",
        "sdpMLineIndex is an m-line index, 0 to 65535.",
        ["PAIR-RTC-003"], msg(ice(index=-1)), "/payload/candidate/sdpMLineIndex", "PAIR-RTC-003", flags=["boundary"])
    reject(
        "webrtc-ice-candidate-end-of-candidates",
        "The W3C end-of-candidates marker (empty candidate): both phones drop it, so it is not sent.",
        ["PAIR-RTC-003"], msg(ice(candidate="")), "/payload/candidate/candidate", "PAIR-RTC-003", flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-prefix-only",
        "candidate: alone names no candidate (RFC 8839 5.1: a foundation and the rest follow).",
        ["PAIR-RTC-003"], msg(ice(candidate="candidate:")), "/payload/candidate/candidate", "PAIR-RTC-003", flags=["boundary"])
    reject(
        "webrtc-ice-candidate-a-line-prefix",
        "The SDP line form a=candidate:... is not the candidate-attribute the W3C API and both phones pass on.",
        ["PAIR-RTC-003"], msg(ice(candidate="a=" + CAND)), "/payload/candidate/candidate", "PAIR-RTC-003", flags=["interop-trap"])
    reject(
        "webrtc-ice-candidate-missing",
        "An ice-candidate payload without its candidate object.",
        ["CORE-TYPE-001", "PAIR-RTC-003"], msg({"type": "ice-candidate", "sdpMid": "0", "sdpMLineIndex": 0}),
        "/payload/candidate", "CORE-TYPE-001")

    # ---------------------------------------------------------------- echo loop and aliases
    reject(
        "webrtc-offer-to-own-id",
        "An offer addressed to the sender's own id comes straight back: the echo loop seen from the wire.",
        ["PAIR-RTC-004"], msg(offer(), to=PHONE), "/to", "PAIR-RTC-004",
        context={"localPeerId": PHONE}, flags=["interop-trap"])
    reject(
        "webrtc-delivered-candidate-from-self",
        "A delivered candidate whose from is the receiver's own id is its own candidate echoed back and must be dropped.",
        ["PAIR-RTC-004"], msg(ice(), to=None, **{"from": PHONE}), "/from", "PAIR-RTC-004",
        context={"localPeerId": PHONE}, flags=["interop-trap"])
    accept(
        "webrtc-delivered-offer-to-self",
        "A relay's delivery names the original target in to, the receiver's own id: that is the normal case (3.5), not an echo.",
        ["PAIR-RTC-004"], msg(offer(), to=DESK, **{"from": PHONE}), msg(offer(), to=DESK, **{"from": PHONE}), context={"localPeerId": DESK})
    reject(
        "webrtc-delivered-to-and-from-self",
        "A delivery from the receiver's own id is its own signal echoed, whatever its to says: reported at /from.",
        ["PAIR-RTC-004"], msg(offer(), to=DESK, **{"from": DESK}), "/from", "PAIR-RTC-004", context={"localPeerId": DESK}, flags=["interop-trap"])
    accept(
        "webrtc-answer-to-peer-not-self",
        "An answer to the phone sent by the desktop (localPeerId the desktop's id) passes the echo check.",
        ["PAIR-RTC-002", "PAIR-RTC-004"], msg(answer(), to=PHONE), msg(answer(), to=PHONE), context={"localPeerId": DESK})
    reject(
        "webrtc-offer-to-pairing-alias",
        "WebRTC signaling never goes to a pairing-code alias (only a pair-ack does).",
        ["PAIR-SIG-002", "PAIR-RTC-001"], msg(offer(), to="pairing-code:048213"), "/payload/type", "PAIR-SIG-002")


# ---------------------------------------------------------------- relay machine cases
def ev_connected(conn, source):
    return {"event": "connected", "connection": conn, "source": source, "at": 1747300000000}


def ev_received(conn, document):
    return {"event": "received", "connection": conn, "at": 1747300000000, "document": document}


def step(event, registered, actions):
    return {"event": event, "expect": {"state": {"registered": sorted(registered)}, "actions": actions}}


def setup():
    return [
        step(ev_connected(1, "192.0.2.10"), [], []),
        step(ev_received(1, {"type": "register", "peerId": DESK}), [DESK],
             [{"action": "send", "connection": 1, "document": {"type": "registered", "peerId": DESK}}]),
        step(ev_connected(2, "198.51.100.7"), [DESK], []),
        step(ev_received(2, {"type": "register", "peerId": PHONE}), [DESK, PHONE],
             [{"action": "send", "connection": 2, "document": {"type": "registered", "peerId": PHONE}}]),
    ]


def refused(conn):
    return [{"action": "send", "connection": conn,
             "document": {"type": "error", "code": "invalid-message"}, "rule": "PAIR-RTC-005"}]


both = [DESK, PHONE]
bare_answer = {"type": "answer", "to": PHONE, "answer": {"type": "answer", "sdp": SDP_ANSWER}}
bare_ice = dict(ice())
bare_ice["to"] = DESK
bare_batch = {"type": "ice-candidates", "to": PHONE, "candidates": batch["candidates"]}
relay_cases = [
    {
        "id": "pairing/relay/webrtc-bare-frames-refused",
        "comment": "Bare offer, answer, ice-candidate and ice-candidates frames (what Android and the desktop send on LAN) are refused and forwarded to no one.",
        "flags": ["real-implementation", "interop-trap"],
        "rules": ["PAIR-RTC-005", "PAIR-RELAY-001"],
        "triggers": ["PAIR-RTC-005"],
        "steps": setup() + [
            step(ev_received(2, bare_android), both, refused(2)),
            step(ev_received(1, bare_answer), both, refused(1)),
            step(ev_received(2, bare_ice), both, refused(2)),
            step(ev_received(1, bare_batch), both, refused(1)),
        ],
    },
    {
        "id": "pairing/relay/webrtc-wrapped-offer-forwarded",
        "comment": "The same offer inside a message is forwarded like any message, with from set to the sender's id.",
        "flags": ["real-implementation"],
        "rules": ["PAIR-RTC-005", "PAIR-RELAY-001", "PAIR-RTC-001"],
        "triggers": [],
        "steps": setup() + [
            step(ev_received(2, msg(offer())), both,
                 [{"action": "send", "connection": 1,
                   "document": {"type": "message", "to": DESK, "from": PHONE, "payload": offer()}}]),
            step(ev_received(1, msg(answer(), to=PHONE)), both,
                 [{"action": "send", "connection": 2,
                   "document": {"type": "message", "to": PHONE, "from": DESK, "payload": answer()}}]),
        ],
    },
]
