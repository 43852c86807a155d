/*
 * Testee.java: a template testee for the conformance kit, for JVM and Android teams.
 *
 * Run it (Java 17, standard library only, single-file source launch) from the repository root:
 *
 *     conformance run --family pairing --peer "exec:java Conformance/testees/java/Testee.java"
 *
 * It speaks the stdio protocol of Conformance/testee-protocol.md (one JSON object per line on
 * stdin/stdout: hello, validate, run-machine, bye; logs go to stderr only) and implements the
 * pairing family's document kinds (Spec/pairing.md), including the WebRTC signals (offer, answer,
 * ice-candidate; section 3.7) a signaling message carries, as a worked example, on top of a small
 * strict JSON reader for the wire profile of Spec/core.md. It was written from the Spec alone.
 *
 * HOW TO ADAPT IT TO YOUR OWN CODE (Android / Kotlin / Java)
 *
 * The point of a testee is to test YOUR decoders, not this file's. Keep the protocol part
 * (main, answer, hello) and replace the example codecs:
 *
 *  1. Put your code on the class path. A single-file launch accepts one:
 *         java -cp build/libs/pairing-core.jar Conformance/testees/java/Testee.java
 *     Code that needs android.* (org.json, android.net.Uri, Log) does not run on a plain JVM:
 *     test the pure Kotlin/JVM module that holds your payload codecs, or run this loop inside a
 *     Robolectric test that reads requests from a file. (Note that org.json keeps the LAST of two
 *     duplicate members and accepts NaN and comments: it cannot be your wire reader, CORE-JSON-*.)
 *  2. In validate(...), replace the call to the example method of a kind (checkDesktopPairing,
 *     checkPairAck, ...; checkMessage calls checkOffer, checkAnswer and checkIceCandidate for the
 *     WebRTC payloads, never documents of their own) with a call into your decoder on the exact
 *     bytes (`bytes`), and map its
 *     result: success -> the canonical Map (only declared members, optional ones not given
 *     omitted); failure -> throw new Violation(ruleId, jsonPointer). Your decoder must report the
 *     FIRST failing check in the Spec's order (core.md "Order of checks", pairing.md section 1).
 *  3. Narrow what you are asked in hello() (HELLO_FAMILIES, HELLO_KINDS, HELLO_MACHINES): a kind
 *     you leave out is reported "not implemented" instead of failed. By default hello lists the
 *     kinds of PAIRING_KINDS (the kinds this file implements), so a kind the Spec gained after you
 *     copied it is not implemented, not failed. Once you have machines
 *     (flow-a, flow-b, manual, relay, connection, mobile-bridge, webrtc), add them to HELLO_MACHINES and answer run-machine with a
 *     trace (see runMachine).
 *  4. Known JVM traps this file avoids, which your code must avoid too:
 *     - java.util.regex \d, \s and String.trim() are not what the Spec means (PAIR-CODE-001 wants
 *       ASCII digits, blank means Unicode White_Space: U+2007 and U+202F are blank, U+FEFF is not);
 *     - `$` in a regex matches before a final "\n": use Matcher.matches(), never find() with ^$;
 *     - String.equalsIgnoreCase / regionMatches(true, ...) fold non-ASCII letters (U+017F "ſ"
 *       matches "s", U+212A KELVIN SIGN matches "k"): schemes are compared in ASCII only;
 *     - new String(bytes, UTF_8) silently repairs invalid UTF-8 (CORE-JSON-002 wants a reject);
 *     - Long/Double parsing accepts "1.0" -> integer coercions, "+1", "NaN": CORE-TYPE-004, -JSON-001.
 */

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

public class Testee {

    // ------------------------------------------------------------------------------------------
    // Protocol (Conformance/testee-protocol.md)
    // ------------------------------------------------------------------------------------------

    static final String IMPLEMENTATION = "java-template 0.1 (pairing example codecs)";
    static final List<Object> HELLO_FAMILIES = List.of("pairing");
    static final List<Object> HELLO_KINDS = null; // null: PAIRING_KINDS's; e.g. List.of("pair-ack")
    static final List<Object> HELLO_MACHINES = List.of(); // no machines: reported not implemented

    public static void main(String[] args) throws IOException {
        InputStream in = new BufferedInputStream(System.in);
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        byte[] line;
        while ((line = readLine(in)) != null) {
            if (line.length == 0) continue;
            Map<String, Object> request;
            try {
                Object parsed = new JsonReader(line, Integer.MAX_VALUE).readDocument();
                if (!(parsed instanceof Map)) throw new IllegalArgumentException("not an object");
                request = asObject(parsed);
            } catch (RuntimeException e) {
                log("unreadable request line: " + e);
                continue;
            }
            Object op = request.get("op");
            if ("bye".equals(op)) break;
            Map<String, Object> answer;
            try {
                answer = answer(request);
            } catch (RuntimeException e) {
                log("internal error: " + e);
                e.printStackTrace();
                answer = new LinkedHashMap<>();
                answer.put("case", request.get("case"));
                answer.put("outcome", "unsupported");
                answer.put("reason", "internal error: " + e);
            }
            out.write((Json.write(answer) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
        System.exit(0); // bye or end of input
    }

    static Map<String, Object> answer(Map<String, Object> request) {
        Object op = request.get("op");
        if ("hello".equals(op)) return hello(request);
        if ("validate".equals(op)) return validate(request);
        if ("run-machine".equals(op)) return runMachine(request);
        return outcome(request, "invalid-request", "reason", "unknown op " + op);
    }

    static Map<String, Object> hello(Map<String, Object> request) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("protocol", 1L);
        a.put("implementation", IMPLEMENTATION);
        if (HELLO_FAMILIES != null) a.put("families", HELLO_FAMILIES);
        a.put("kinds", HELLO_KINDS != null ? HELLO_KINDS : new ArrayList<Object>(PAIRING_KINDS.keySet()));
        if (HELLO_MACHINES != null) a.put("machines", HELLO_MACHINES);
        if (!Long.valueOf(1).equals(asLongOrNull(request.get("protocol")))) {
            log("runner speaks protocol " + request.get("protocol") + ", this testee speaks 1");
        }
        return a;
    }

    /** Machines are not implemented here; hello's "machines": [] keeps the runner from asking. */
    static Map<String, Object> runMachine(Map<String, Object> request) {
        return outcome(request, "unsupported", "reason", "machine not implemented");
    }

    static Map<String, Object> validate(Map<String, Object> request) {
        Object family = request.get("family");
        Object kind = request.get("kind");
        if (!"pairing".equals(family)) return outcome(request, "unsupported", "reason", "family not implemented");
        if (!(request.get("document") instanceof String)) {
            return outcome(request, "invalid-request", "reason", "no document");
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode((String) request.get("document"));
        } catch (IllegalArgumentException e) {
            return outcome(request, "invalid-request", "reason", "document is not base64");
        }
        Object contextValue = request.get("context");
        Context context = Context.of(contextValue instanceof Map ? asObject(contextValue) : Map.of());
        try {
            Kind check = kind instanceof String ? PAIRING_KINDS.get(kind) : null;
            if (check == null) return outcome(request, "unsupported", "reason", "kind not implemented");
            Map<String, Object> canonical = check.validate(readPairingDocument(bytes), context);
            return outcome(request, "accept", "canonical", canonical);
        } catch (Violation v) {
            Map<String, Object> violation = new LinkedHashMap<>();
            violation.put("path", v.path);
            violation.put("rule", v.rule);
            return outcome(request, "reject", "violations", List.of(violation));
        } catch (InvalidRequest e) {
            return outcome(request, "invalid-request", "reason", e.getMessage());
        }
    }

    /** A kind's check: the parsed document and the context -> the canonical form, or a Violation. */
    interface Kind {
        Map<String, Object> validate(Object document, Context context);
    }

    /** The kinds this file implements (Spec/pairing.md section 3), in the Spec's order: validate()
     * dispatches on it and hello() lists it. Replace each entry's call with your decoder's. */
    static final Map<String, Kind> PAIRING_KINDS = new LinkedHashMap<>();
    static {
        PAIRING_KINDS.put("desktop-pairing", (d, c) -> checkDesktopPairing(d, "", c));
        PAIRING_KINDS.put("pair-ack", (d, c) -> checkPairAck(d, ""));
        PAIRING_KINDS.put("device-pairing", (d, c) -> checkDevicePairing(d, ""));
        PAIRING_KINDS.put("pairing:confirmation", (d, c) -> checkPairingConfirmation(d, ""));
        PAIRING_KINDS.put("register", Testee::checkRegister);
        PAIRING_KINDS.put("message", Testee::checkMessage);
        PAIRING_KINDS.put("registered", (d, c) -> checkRegistered(d));
        PAIRING_KINDS.put("peer-offline", (d, c) -> checkPeerOffline(d));
        PAIRING_KINDS.put("error", (d, c) -> checkError(d));
        PAIRING_KINDS.put("paired-desktop", (d, c) -> checkPairedDesktop(d));
        PAIRING_KINDS.put("ping", (d, c) -> checkKeepalive(d, "ping"));
        PAIRING_KINDS.put("pong", (d, c) -> checkKeepalive(d, "pong"));
        PAIRING_KINDS.put("peer-status", (d, c) -> checkPeerStatus(d));
    }

    static Map<String, Object> outcome(Map<String, Object> request, String outcome, String key, Object value) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("case", request.get("case"));
        a.put("outcome", outcome);
        a.put(key, value);
        return a;
    }

    /** The request's context (Vectors/README.md "Document context members"). */
    record Context(Long now, String activeDid, String localPeerId) {
        static Context of(Map<String, Object> c) {
            Object did = c.get("activeDid");
            Object local = c.get("localPeerId");
            return new Context(asLongOrNull(c.get("now")),
                    did instanceof String ? (String) did : null,
                    local instanceof String ? (String) local : null);
        }

        long requireNow() {
            if (now == null) throw new InvalidRequest("context has no now");
            return now;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Pairing kinds (Spec/pairing.md section 3). One method per kind; members are checked in the
    // order of the kind's table, each member: present, not null, JSON type, then its own rules.
    // Each method returns the canonical form (declared members only) or throws the first Violation.
    // ------------------------------------------------------------------------------------------

    /** CORE-JSON-004 (64 KiB for pairing documents), then the wire profile. */
    static Object readPairingDocument(byte[] bytes) {
        if (bytes.length > 65_536) throw new Violation("CORE-JSON-004", "");
        return new JsonReader(bytes, 64).readDocument();
    }

    /** 3.1 desktop-pairing: the QR a desktop shows in Flow B. */
    static Map<String, Object> checkDesktopPairing(Object document, String base, Context context) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "desktop-pairing"));                  // 1
        String code = requiredString(o, base, "code");                          // 2
        checkCode(code, pointer(base, "code"));
        c.put("code", code);
        String pcPeerId = requiredString(o, base, "pcPeerId");                  // 3
        checkPeerId(pcPeerId, pointer(base, "pcPeerId"));
        c.put("pcPeerId", pcPeerId);
        long timestamp = requiredInteger(o, base, "timestamp");                 // 4
        checkEpochMilliseconds(timestamp, pointer(base, "timestamp"));
        long now = context.requireNow();
        if (now - timestamp > 300_000) throw new Violation("PAIR-TIME-002", pointer(base, "timestamp"));
        if (timestamp - now > 60_000) throw new Violation("PAIR-TIME-003", pointer(base, "timestamp"));
        c.put("timestamp", timestamp);
        if (context.activeDid() == null) throw new Violation("PAIR-DID-002", base); // 5 (context)
        c.put("deviceInfo", checkDesktopDeviceInfo(o, base));                   // 6
        String signalingUrl = optionalString(o, base, "signalingUrl");          // 7
        if (signalingUrl != null && !signalingUrl.isEmpty()) {                  // "" = no LAN URL
            if (!isSignalingUrl(signalingUrl)) throw new Violation("PAIR-URL-001", pointer(base, "signalingUrl"));
            c.put("signalingUrl", signalingUrl);
        }
        String relayUrl = requiredString(o, base, "relayUrl");                  // 8
        if (!isRelayUrl(relayUrl)) throw new Violation("PAIR-URL-002", pointer(base, "relayUrl"));
        c.put("relayUrl", relayUrl);
        List<Object> iceServers = optionalArray(o, base, "iceServers");         // 9
        if (iceServers != null) c.put("iceServers", checkIceServers(iceServers, pointer(base, "iceServers")));
        Long iceExpiry = optionalInteger(o, base, "iceExpiry");                 // 10
        if (iceExpiry != null) {
            checkIceExpiry(iceExpiry, pointer(base, "iceExpiry"));
            c.put("iceExpiry", iceExpiry);
        }
        return c;
    }

    /** 3.2 pair-ack: the phone's answer in Flow B and the manual flow. */
    static Map<String, Object> checkPairAck(Object document, String base) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "pair-ack"));
        String pairingCode = requiredString(o, base, "pairingCode");
        checkCode(pairingCode, pointer(base, "pairingCode"));
        c.put("pairingCode", pairingCode);
        String mobileDid = requiredString(o, base, "mobileDid");
        checkDid(mobileDid, pointer(base, "mobileDid"));
        c.put("mobileDid", mobileDid);
        c.put("deviceInfo", checkPhoneDeviceInfo(o, base));
        long timestamp = requiredInteger(o, base, "timestamp");
        checkEpochMilliseconds(timestamp, pointer(base, "timestamp"));
        c.put("timestamp", timestamp);
        return c;
    }

    /** 3.3 device-pairing: the QR a phone shows in Flow A. */
    static Map<String, Object> checkDevicePairing(Object document, String base) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "device-pairing"));
        String code = requiredString(o, base, "code");
        checkCode(code, pointer(base, "code"));
        c.put("code", code);
        String did = requiredString(o, base, "did");
        checkDid(did, pointer(base, "did"));
        c.put("did", did);
        c.put("deviceInfo", checkPhoneDeviceInfo(o, base));
        long timestamp = requiredInteger(o, base, "timestamp");
        checkEpochMilliseconds(timestamp, pointer(base, "timestamp"));
        c.put("timestamp", timestamp);
        return c;
    }

    /** 3.4 pairing:confirmation: the desktop's answer in Flow A and the manual flow. */
    static Map<String, Object> checkPairingConfirmation(Object document, String base) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "pairing:confirmation"));
        String pairingCode = requiredString(o, base, "pairingCode");
        checkCode(pairingCode, pointer(base, "pairingCode"));
        c.put("pairingCode", pairingCode);
        String pcPeerId = requiredString(o, base, "pcPeerId");
        checkPeerId(pcPeerId, pointer(base, "pcPeerId"));
        c.put("pcPeerId", pcPeerId);
        c.put("deviceInfo", checkDesktopDeviceInfo(o, base));
        long timestamp = requiredInteger(o, base, "timestamp");
        checkEpochMilliseconds(timestamp, pointer(base, "timestamp"));
        c.put("timestamp", timestamp);
        return c;
    }

    /** 3.5 register (client -> relay), with PAIR-SIG-001 when the context names the sender. */
    static Map<String, Object> checkRegister(Object document, Context context) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, "", "register"));
        String peerId = requiredString(o, "", "peerId");
        checkPeerId(peerId, "/peerId");
        boolean alias = peerId.startsWith(ALIAS_PREFIX); // valid alias: PAIR-PEER-002 passed
        if (context.localPeerId() != null && !alias && !peerId.equals(context.localPeerId())) {
            throw new Violation("PAIR-SIG-001", "/peerId");
        }
        c.put("peerId", peerId);
        return c;
    }

    /**
     * 3.5 message (client -> relay -> client). A payload that is a pairing kind (3.1-3.4) or a
     * WebRTC signal (3.7) is checked as that kind, paths under /payload; PAIR-RTC-004 comes last.
     */
    static Map<String, Object> checkMessage(Object document, Context context) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, "", "message"));                             // 1
        boolean carriesFrom = o.get("from") != null && o.get("from") != Json.NULL;
        String to = carriesFrom ? optionalString(o, "", "to") : requiredString(o, "", "to"); // 2
        if (to != null) {
            checkPeerId(to, "/to");
            c.put("to", to);
        }
        String from = optionalString(o, "", "from");                            // 3
        if (from != null) {
            checkPeerId(from, "/from");
            c.put("from", from);
        }
        Map<String, Object> payload = requiredObject(o, "", "payload");         // 4
        Object payloadType = payload.get("type");
        Map<String, Object> canonicalPayload;
        if ("desktop-pairing".equals(payloadType)) canonicalPayload = checkDesktopPairing(payload, "/payload", context);
        else if ("pair-ack".equals(payloadType)) canonicalPayload = checkPairAck(payload, "/payload");
        else if ("device-pairing".equals(payloadType)) canonicalPayload = checkDevicePairing(payload, "/payload");
        else if ("pairing:confirmation".equals(payloadType)) canonicalPayload = checkPairingConfirmation(payload, "/payload");
        else if ("offer".equals(payloadType)) canonicalPayload = checkOffer(payload, "/payload");
        else if ("answer".equals(payloadType)) canonicalPayload = checkAnswer(payload, "/payload");
        else if ("ice-candidate".equals(payloadType)) canonicalPayload = checkIceCandidate(payload, "/payload");
        else canonicalPayload = payload; // any other payload (OFFER, ice-candidates) is kept exactly as received
        c.put("payload", canonicalPayload);
        if (to != null && to.startsWith(ALIAS_PREFIX)) {                        // 5: PAIR-SIG-002
            // A WebRTC signal to an alias fails here too: only a pair-ack goes to an alias.
            if (!"pair-ack".equals(payloadType)) throw new Violation("PAIR-SIG-002", "/payload/type");
            if (!to.substring(ALIAS_PREFIX.length()).equals(canonicalPayload.get("pairingCode"))) {
                throw new Violation("PAIR-SIG-002", "/payload/pairingCode");
            }
        }
        if (WEBRTC_SIGNALS.contains(payloadType)) checkEcho(to, from, context); // 6: PAIR-RTC-004
        return c;
    }

    /**
     * PAIR-RTC-004, the echo loop seen on the wire (seed 6.2): sending a signal must not change the
     * ids a client holds, so a client never addresses a signal to itself (the relay would deliver
     * it straight back) and drops a delivered signal whose from is its own id (its own signal
     * echoed; applying it breaks the negotiation). localPeerId is the own id of the client that
     * sends or receives the document; without it there is nothing to compare. A message with from
     * is a relay's delivery (3.5), whose to, when present, names the receiver itself: only a
     * client's message (no from) is checked on to, a delivery on from.
     */
    static void checkEcho(String to, String from, Context context) {
        String own = context.localPeerId();
        if (own == null) return;
        if (from == null && own.equals(to)) throw new Violation("PAIR-RTC-004", "/to");
        if (from != null && own.equals(from)) throw new Violation("PAIR-RTC-004", "/from");
    }

    // ---- WebRTC signals (3.7): only ever the payload of a message -----------------------------

    /** The payload types that are WebRTC signals, compared exactly (PAIR-TYPE-001): OFFER is opaque. */
    static final Set<String> WEBRTC_SIGNALS = Set.of("offer", "answer", "ice-candidate");

    /** 3.7 offer (offerer -> answerer): PAIR-RTC-001. */
    static Map<String, Object> checkOffer(Object document, String base) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "offer"));                             // 1
        c.put("offer", checkSessionDescription(o, base, "offer", "PAIR-RTC-001")); // 2
        return c;
    }

    /** 3.7 answer (answerer -> offerer): PAIR-RTC-002, an offer's form with answer in its place
     *  (pranswer and rollback are not part of the protocol). */
    static Map<String, Object> checkAnswer(Object document, String base) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "answer"));                            // 1
        c.put("answer", checkSessionDescription(o, base, "answer", "PAIR-RTC-002")); // 2
        return c;
    }

    /**
     * The session description of an offer or answer, nested under the payload's own type (kind):
     * {type: kind, sdp}. Only the nested form is accepted, the one every real sender writes and
     * every real receiver reads: a flat sdp string or a description under sdp leaves kind missing
     * (CORE-TYPE-001), a description serialized to a string is CORE-TYPE-003. The inner type must
     * equal kind because the desktop passes it to setRemoteDescription. The SDP must begin with
     * "v=0" (RFC 8866 5: the v= line comes first), which also catches "" and a description
     * serialized into sdp. Other members (iceRestart, a second sdp) are dropped; the SDP text is
     * kept exactly as received (no line-ending change).
     */
    static Map<String, Object> checkSessionDescription(Map<String, Object> o, String base, String kind, String rule) {
        Map<String, Object> d = requiredObject(o, base, kind);
        String at = pointer(base, kind);
        Map<String, Object> c = new LinkedHashMap<>();
        String type = requiredString(d, at, "type");                            // 2.1
        if (!type.equals(kind)) throw new Violation(rule, pointer(at, "type"));
        c.put("type", type);
        String sdp = requiredString(d, at, "sdp");                              // 2.2
        if (!sdp.startsWith("v=0\r\n") && !sdp.startsWith("v=0\n")) throw new Violation(rule, pointer(at, "sdp"));
        c.put("sdp", sdp);
        return c;
    }

    /**
     * 3.7 ice-candidate (both ways): PAIR-RTC-003, one candidate nested under candidate. A flat
     * candidate (a string beside sdpMid) is CORE-TYPE-003 at candidate. Both sdpMid and
     * sdpMLineIndex are required although W3C lets either be null: the phones read a missing mid
     * or a string index differently (Android "0" and 1, iOS a dropped candidate and 0), so neither
     * is coerced. usernameFragment and other members are dropped.
     */
    static Map<String, Object> checkIceCandidate(Object document, String base) {
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, base, "ice-candidate"));                     // 1
        Map<String, Object> k = requiredObject(o, base, "candidate");           // 2
        String at = pointer(base, "candidate");
        Map<String, Object> ck = new LinkedHashMap<>();
        // 2.1 the RFC 8839 candidate-attribute, without the SDP line's "a="; the empty
        // end-of-candidates is not sent (both phones drop it).
        String candidate = requiredString(k, at, "candidate");
        if (!candidate.startsWith("candidate:") || candidate.length() == "candidate:".length()) throw new Violation("PAIR-RTC-003", pointer(at, "candidate"));
        ck.put("candidate", candidate);
        String sdpMid = requiredString(k, at, "sdpMid");                        // 2.2 non-empty
        if (sdpMid.isEmpty()) throw new Violation("PAIR-RTC-003", pointer(at, "sdpMid"));
        ck.put("sdpMid", sdpMid);
        long sdpMLineIndex = requiredInteger(k, at, "sdpMLineIndex");           // 2.3 W3C unsigned short
        if (sdpMLineIndex < 0 || sdpMLineIndex > 65_535) throw new Violation("PAIR-RTC-003", pointer(at, "sdpMLineIndex"));
        ck.put("sdpMLineIndex", sdpMLineIndex);
        c.put("candidate", ck);
        return c;
    }

    /** 3.5 registered (relay -> client). */
    static Map<String, Object> checkRegistered(Object document) {
        return checkTypeAndPeerId(document, "registered");
    }

    /** 3.5 peer-offline (relay -> client): the target of a message is not registered. */
    static Map<String, Object> checkPeerOffline(Object document) {
        return checkTypeAndPeerId(document, "peer-offline");
    }

    static Map<String, Object> checkTypeAndPeerId(Object document, String kind) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, "", kind));
        String peerId = requiredString(o, "", "peerId");
        checkPeerId(peerId, "/peerId");
        c.put("peerId", peerId);
        return c;
    }

    /** 3.5 peer-status (relay -> client): a presence broadcast, which never names an alias
     *  (PAIR-SEC-006: announcing one hands a live manual code to every client). */
    static Map<String, Object> checkPeerStatus(Object document) {
        Map<String, Object> c = checkTypeAndPeerId(document, "peer-status");
        if (((String) c.get("peerId")).startsWith(ALIAS_PREFIX)) throw new Violation("PAIR-SEC-006", "/peerId");
        c.put("status", requiredString(rootObject(document, ""), "", "status"));
        return c;
    }

    /** 3.5 ping and pong (PAIR-RELAY-002): the type alone; other members are ignored. */
    static Map<String, Object> checkKeepalive(Object document, String kind) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, "", kind));
        return c;
    }

    static final Set<String> ERROR_CODES = Set.of(
            "invalid-message", "not-registered", "rate-limited", "alias-taken", "alias-expired", "too-large");

    /** 3.5 error (relay -> client). */
    static Map<String, Object> checkError(Object document) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", checkType(o, "", "error"));
        String code = requiredString(o, "", "code");
        if (!ERROR_CODES.contains(code)) throw new Violation("PAIR-SIG-003", "/code");
        c.put("code", code);
        String message = optionalString(o, "", "message");
        if (message != null) c.put("message", message);
        return c;
    }

    /** 3.6 paired-desktop: the record a phone stores after Flow B (no type member). */
    static Map<String, Object> checkPairedDesktop(Object document) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        String pcPeerId = requiredString(o, "", "pcPeerId");                    // 1
        checkPeerId(pcPeerId, "/pcPeerId");
        c.put("pcPeerId", pcPeerId);
        String deviceName = requiredString(o, "", "deviceName");                // 2
        checkDeviceName(deviceName, "/deviceName");
        c.put("deviceName", deviceName);
        String platform = requiredString(o, "", "platform");                    // 3
        checkPlatform(platform, "/platform", DESKTOP_PLATFORMS);
        c.put("platform", platform);
        String lanSignalingUrl = optionalString(o, "", "lanSignalingUrl");      // 4 ("" = none)
        if (lanSignalingUrl != null && !lanSignalingUrl.isEmpty()) {
            if (!isSignalingUrl(lanSignalingUrl)) throw new Violation("PAIR-URL-001", "/lanSignalingUrl");
            c.put("lanSignalingUrl", lanSignalingUrl);
        }
        String relayUrl = optionalString(o, "", "relayUrl");                    // 5 ("" = none)
        if (relayUrl != null && !relayUrl.isEmpty()) {
            if (!isRelayUrl(relayUrl)) throw new Violation("PAIR-URL-002", "/relayUrl");
            c.put("relayUrl", relayUrl);
        }
        String iceServersJson = optionalString(o, "", "iceServersJson");        // 6
        if (iceServersJson != null) {
            checkIceServersJson(iceServersJson, "/iceServersJson");
            c.put("iceServersJson", iceServersJson); // stored as received
        }
        long iceExpiry = requiredInteger(o, "", "iceExpiry");                   // 7
        checkIceExpiry(iceExpiry, "/iceExpiry");
        c.put("iceExpiry", iceExpiry);
        long pairedAt = requiredInteger(o, "", "pairedAt");                     // 8
        checkEpochMilliseconds(pairedAt, "/pairedAt");
        c.put("pairedAt", pairedAt);
        long lastSeenAt = requiredInteger(o, "", "lastSeenAt");                 // 9
        checkEpochMilliseconds(lastSeenAt, "/lastSeenAt");
        if (lastSeenAt < pairedAt) throw new Violation("PAIR-STORE-002", "/lastSeenAt");
        c.put("lastSeenAt", lastSeenAt);
        return c;
    }

    // ---- deviceInfo -------------------------------------------------------------------------

    static final Set<String> DESKTOP_PLATFORMS = Set.of("win32", "darwin", "linux");
    static final Set<String> PHONE_PLATFORMS = Set.of("ios", "android");

    /** A desktop's deviceInfo (3.1 row 6): name, platform, version?. */
    static Map<String, Object> checkDesktopDeviceInfo(Map<String, Object> o, String base) {
        Map<String, Object> info = requiredObject(o, base, "deviceInfo");
        String at = pointer(base, "deviceInfo");
        Map<String, Object> c = new LinkedHashMap<>();
        String name = requiredString(info, at, "name");
        checkDeviceName(name, pointer(at, "name"));
        c.put("name", name);
        String platform = requiredString(info, at, "platform");
        checkPlatform(platform, pointer(at, "platform"), DESKTOP_PLATFORMS);
        c.put("platform", platform);
        String version = optionalString(info, at, "version");
        if (version != null) c.put("version", version);
        return c;
    }

    /** A phone's deviceInfo (3.2 row 4): deviceId, name, platform. */
    static Map<String, Object> checkPhoneDeviceInfo(Map<String, Object> o, String base) {
        Map<String, Object> info = requiredObject(o, base, "deviceInfo");
        String at = pointer(base, "deviceInfo");
        Map<String, Object> c = new LinkedHashMap<>();
        String deviceId = requiredString(info, at, "deviceId");
        if (isBlank(deviceId)) throw new Violation("PAIR-INFO-003", pointer(at, "deviceId"));
        c.put("deviceId", deviceId); // opaque: never case-folded
        String name = requiredString(info, at, "name");
        checkDeviceName(name, pointer(at, "name"));
        c.put("name", name);
        String platform = requiredString(info, at, "platform");
        checkPlatform(platform, pointer(at, "platform"), PHONE_PLATFORMS);
        c.put("platform", platform);
        return c;
    }

    // ---- shared member rules (Spec/pairing.md section 2) -------------------------------------

    /** PAIR-TYPE-001: `type` equals the kind exactly. */
    static String checkType(Map<String, Object> o, String base, String kind) {
        String type = requiredString(o, base, "type");
        if (!type.equals(kind)) throw new Violation("PAIR-TYPE-001", pointer(base, "type"));
        return type;
    }

    /** PAIR-CODE-001: exactly six ASCII digits (not \d, no trimming). */
    static void checkCode(String code, String path) {
        if (!isSixAsciiDigits(code)) throw new Violation("PAIR-CODE-001", path);
    }

    static boolean isSixAsciiDigits(String s) {
        if (s.length() != 6) return false;
        for (int i = 0; i < 6; i++) if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
        return true;
    }

    static final String ALIAS_PREFIX = "pairing-code:";

    /** PAIR-PEER-001 then PAIR-PEER-002. */
    static void checkPeerId(String peerId, String path) {
        if (isBlank(peerId) || peerId.getBytes(StandardCharsets.UTF_8).length > 256) {
            throw new Violation("PAIR-PEER-001", path);
        }
        for (int i = 0; i < peerId.length(); i++) {
            char ch = peerId.charAt(i);
            if (ch <= 0x1F || (ch >= 0x7F && ch <= 0x9F)) throw new Violation("PAIR-PEER-001", path);
        }
        // "pairing-code:" is ASCII, so a UTF-16 prefix test is a code-point prefix test.
        if (peerId.startsWith(ALIAS_PREFIX) && !isSixAsciiDigits(peerId.substring(ALIAS_PREFIX.length()))) {
            throw new Violation("PAIR-PEER-002", path);
        }
    }

    /** PAIR-TIME-001: epoch milliseconds in [10^12, 10^13). */
    static void checkEpochMilliseconds(long value, String path) {
        if (value < 1_000_000_000_000L || value >= 10_000_000_000_000L) throw new Violation("PAIR-TIME-001", path);
    }

    static final String DID_SEGMENT = "(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+";
    static final Pattern DID = Pattern.compile("did:([a-z0-9]+):(" + DID_SEGMENT + "(?::" + DID_SEGMENT + ")*)");
    static final Pattern BASE58BTC_MULTIBASE = Pattern.compile("z[1-9A-HJ-NP-Za-km-z]+");

    /** PAIR-DID-001: a W3C DID, at most 256 characters; did:key carries z + base58btc. */
    static void checkDid(String did, String path) {
        var m = DID.matcher(did);
        if (did.length() > 256 || !m.matches()) throw new Violation("PAIR-DID-001", path);
        if (m.group(1).equals("key") && !BASE58BTC_MULTIBASE.matcher(m.group(2)).matches()) {
            throw new Violation("PAIR-DID-001", path);
        }
    }

    /** PAIR-INFO-001: a device name is not blank. */
    static void checkDeviceName(String name, String path) {
        if (isBlank(name)) throw new Violation("PAIR-INFO-001", path);
    }

    /** PAIR-INFO-002: the platform is one of its side's values, case-sensitive. */
    static void checkPlatform(String platform, String path, Set<String> allowed) {
        if (!allowed.contains(platform)) throw new Violation("PAIR-INFO-002", path);
    }

    /** PAIR-ICE-001: iceServers, element by element, each completely before the next. */
    static List<Object> checkIceServers(List<Object> servers, String path) {
        List<Object> canonical = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            String at = path + "/" + i;
            if (!(servers.get(i) instanceof Map)) throw new Violation("CORE-TYPE-003", at);
            Map<String, Object> server = asObject(servers.get(i));
            Map<String, Object> c = new LinkedHashMap<>();
            Object urls = server.get("urls");
            String urlsAt = pointer(at, "urls");
            if (urls == null) throw new Violation("CORE-TYPE-001", urlsAt);
            if (urls == Json.NULL) throw new Violation("CORE-TYPE-002", urlsAt);
            if (urls instanceof String) {
                if (!isIceUrl((String) urls)) throw new Violation("PAIR-ICE-001", urlsAt);
            } else if (urls instanceof List) {
                List<Object> list = asArray(urls);
                if (list.isEmpty()) throw new Violation("PAIR-ICE-001", urlsAt);
                for (int j = 0; j < list.size(); j++) {
                    if (!(list.get(j) instanceof String)) throw new Violation("CORE-TYPE-003", urlsAt + "/" + j);
                    if (!isIceUrl((String) list.get(j))) throw new Violation("PAIR-ICE-001", urlsAt + "/" + j);
                }
            } else {
                throw new Violation("CORE-TYPE-003", urlsAt);
            }
            c.put("urls", urls); // as received: a string or an array of strings
            String username = optionalString(server, at, "username");
            if (username != null) c.put("username", username);
            String credential = optionalString(server, at, "credential");
            if (credential != null) c.put("credential", credential);
            canonical.add(c);
        }
        return canonical;
    }

    static boolean isIceUrl(String url) {
        for (String scheme : new String[] {"stun:", "stuns:", "turn:", "turns:"}) {
            if (startsWithAsciiIgnoreCase(url, scheme)) return url.length() > scheme.length();
        }
        return false;
    }

    /** PAIR-ICE-002: epoch seconds in [10^9, 10^11), or 0 (no ICE credentials). */
    static void checkIceExpiry(long value, String path) {
        if (value != 0 && (value < 1_000_000_000L || value >= 100_000_000_000L)) {
            throw new Violation("PAIR-ICE-002", path);
        }
    }

    /** PAIR-STORE-001: the text of a JSON array under the wire profile that satisfies PAIR-ICE-001. */
    static void checkIceServersJson(String text, String path) {
        try {
            Object value = new JsonReader(text.getBytes(StandardCharsets.UTF_8), 64).readDocument();
            if (!(value instanceof List)) throw new Violation("PAIR-STORE-001", path);
            checkIceServers(asArray(value), "");
        } catch (Violation v) {
            throw new Violation("PAIR-STORE-001", path);
        }
    }

    // ---- URLs (PAIR-URL-001, PAIR-URL-002) ----------------------------------------------------

    /** A parsed ws/wss URL: scheme lower-cased, host as written (IPv6 without brackets). */
    record WsUrl(String scheme, String host, boolean ipv6, int[] ipv4) {}

    static boolean isSignalingUrl(String url) {
        return parseWsUrl(url) != null;
    }

    /** PAIR-URL-002: a PAIR-URL-001 URL with wss, or ws on loopback (localhost, 127/8, [::1]). */
    static boolean isRelayUrl(String url) {
        WsUrl u = parseWsUrl(url);
        if (u == null) return false;
        if (u.scheme().equals("wss")) return true;
        if (u.ipv4() != null) return u.ipv4()[0] == 127;
        if (u.ipv6()) return u.host().equals("::1"); // the Spec names the text [::1], not every spelling of it
        return u.host().length() == 9 && startsWithAsciiIgnoreCase(u.host(), "localhost");
    }

    /** PAIR-URL-001 as a parser: null when the text is not a valid ws/wss URL. */
    static WsUrl parseWsUrl(String url) {
        for (int i = 0; i < url.length(); i++) {
            char ch = url.charAt(i);
            // no whitespace or control characters; and a URL is ASCII text (RFC 3986): the Spec does
            // not say whether a path or query may hold non-ASCII characters, this reads it as no
            if (ch <= 0x20 || ch >= 0x7F) return null;
        }
        int sep = url.indexOf("://");
        if (sep < 0) return null;
        String scheme = url.substring(0, sep);
        if (scheme.length() == 2 && startsWithAsciiIgnoreCase(scheme, "ws")) scheme = "ws";
        else if (scheme.length() == 3 && startsWithAsciiIgnoreCase(scheme, "wss")) scheme = "wss";
        else return null;
        String rest = url.substring(sep + 3);
        if (rest.indexOf('#') >= 0) return null; // no fragment
        int end = rest.length();
        for (int i = 0; i < rest.length(); i++) {
            if (rest.charAt(i) == '/' || rest.charAt(i) == '?') { end = i; break; }
        }
        String authority = rest.substring(0, end);
        if (authority.indexOf('@') >= 0) return null; // no user-info
        String host;
        String port = null;
        byte[] v6 = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) return null;
            host = authority.substring(1, close);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (after.charAt(0) != ':') return null;
                port = after.substring(1);
            }
            v6 = parseIpv6(host);
            if (v6 == null) return null;
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            if (colon >= 0) port = authority.substring(colon + 1);
        }
        if (port != null) {
            if (port.isEmpty() || port.length() > 5 || !isAsciiDigits(port)) return null;
            int value = Integer.parseInt(port);
            if (value < 1 || value > 65535) return null;
        }
        if (host.isEmpty()) return null;
        int[] v4 = null;
        if (v6 == null) {
            String[] labels = host.split("\\.", -1);
            String last = labels[labels.length - 1];
            if (!last.isEmpty() && isAsciiDigits(last)) {
                v4 = parseIpv4(labels);
                if (v4 == null) return null;
            } else if (!isDnsName(host, labels)) {
                return null;
            }
        }
        return new WsUrl(scheme, host, v6 != null, v4);
    }

    /** Exactly four decimal octets 0-255 without leading zeros. */
    static int[] parseIpv4(String[] labels) {
        if (labels.length != 4) return null;
        int[] octets = new int[4];
        for (int i = 0; i < 4; i++) {
            String l = labels[i];
            if (l.isEmpty() || l.length() > 3 || !isAsciiDigits(l) || (l.length() > 1 && l.charAt(0) == '0')) return null;
            octets[i] = Integer.parseInt(l);
            if (octets[i] > 255) return null;
        }
        return octets;
    }

    /** RFC 1123 name: labels of 1-63 letters, digits, hyphens, no edge hyphen; 253 bytes at most. */
    static boolean isDnsName(String host, String[] labels) {
        if (host.length() > 253) return false;
        for (String l : labels) {
            if (l.isEmpty() || l.length() > 63 || l.charAt(0) == '-' || l.charAt(l.length() - 1) == '-') return false;
            for (int i = 0; i < l.length(); i++) {
                char ch = l.charAt(i);
                boolean ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-';
                if (!ok) return false;
            }
        }
        return true;
    }

    /** An RFC 4291 text address (hex groups, one "::", optional dotted IPv4 tail) to 16 bytes. */
    static byte[] parseIpv6(String s) {
        if (s.isEmpty()) return null;
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) return null;
        List<Integer> head = new ArrayList<>();
        List<Integer> tail = new ArrayList<>();
        if (gap >= 0) {
            if (!ipv6Groups(s.substring(0, gap), head, false)) return null;
            if (!ipv6Groups(s.substring(gap + 2), tail, true)) return null;
            if (head.size() + tail.size() > 7) return null;
        } else {
            if (!ipv6Groups(s, head, true) || head.size() != 8) return null;
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < head.size(); i++) {
            bytes[2 * i] = (byte) (head.get(i) >> 8);
            bytes[2 * i + 1] = (byte) (int) head.get(i);
        }
        int offset = 8 - tail.size();
        for (int i = 0; i < tail.size(); i++) {
            bytes[2 * (offset + i)] = (byte) (tail.get(i) >> 8);
            bytes[2 * (offset + i) + 1] = (byte) (int) tail.get(i);
        }
        return bytes;
    }

    static boolean ipv6Groups(String s, List<Integer> groups, boolean allowIpv4Tail) {
        if (s.isEmpty()) return true;
        String[] parts = s.split(":", -1);
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (i == parts.length - 1 && allowIpv4Tail && p.indexOf('.') >= 0) {
                int[] v4 = parseIpv4(p.split("\\.", -1));
                if (v4 == null) return false;
                groups.add((v4[0] << 8) | v4[1]);
                groups.add((v4[2] << 8) | v4[3]);
                return true;
            }
            if (p.isEmpty() || p.length() > 4) return false;
            for (int j = 0; j < p.length(); j++) if (Character.digit(p.charAt(j), 16) < 0 || p.charAt(j) > 'f') return false;
            groups.add(Integer.parseInt(p, 16));
        }
        return true;
    }

    // ---- text helpers --------------------------------------------------------------------------

    /** Unicode White_Space (PropList.txt), which is neither Character.isWhitespace nor trim(). */
    static boolean isWhiteSpace(char ch) {
        return (ch >= 0x09 && ch <= 0x0D) || ch == 0x20 || ch == 0x85 || ch == 0xA0 || ch == 0x1680
                || (ch >= 0x2000 && ch <= 0x200A) || ch == 0x2028 || ch == 0x2029 || ch == 0x202F
                || ch == 0x205F || ch == 0x3000;
    }

    /** Blank: nothing left after removing White_Space from both ends (Kotlin's isBlank). */
    static boolean isBlank(String s) {
        for (int i = 0; i < s.length(); i++) if (!isWhiteSpace(s.charAt(i))) return false;
        return true;
    }

    static boolean isAsciiDigits(String s) {
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
        return true;
    }

    /** Case-insensitive in ASCII only (String.regionMatches(true, ...) also folds U+017F, U+212A). */
    static boolean startsWithAsciiIgnoreCase(String s, String lowerPrefix) {
        if (s.length() < lowerPrefix.length()) return false;
        for (int i = 0; i < lowerPrefix.length(); i++) {
            char ch = s.charAt(i);
            if (ch >= 'A' && ch <= 'Z') ch = (char) (ch + 32);
            if (ch != lowerPrefix.charAt(i)) return false;
        }
        return true;
    }

    // ---- typed members (Spec/core.md CORE-TYPE-001..004) ----------------------------------------

    /** The root (or a nested payload) must be an object: CORE-TYPE-003 at its pointer. */
    static Map<String, Object> rootObject(Object document, String path) {
        if (!(document instanceof Map)) throw new Violation("CORE-TYPE-003", path);
        return asObject(document);
    }

    /** Present (CORE-TYPE-001) and not null (CORE-TYPE-002); returns the value. */
    static Object required(Map<String, Object> o, String base, String name) {
        Object v = o.get(name);
        if (v == null) throw new Violation("CORE-TYPE-001", pointer(base, name));
        if (v == Json.NULL) throw new Violation("CORE-TYPE-002", pointer(base, name));
        return v;
    }

    /** Absent or null: not given (Java null). */
    static Object optional(Map<String, Object> o, String name) {
        Object v = o.get(name);
        return v == Json.NULL ? null : v;
    }

    static String requiredString(Map<String, Object> o, String base, String name) {
        return asString(required(o, base, name), pointer(base, name));
    }

    static String optionalString(Map<String, Object> o, String base, String name) {
        Object v = optional(o, name);
        return v == null ? null : asString(v, pointer(base, name));
    }

    static long requiredInteger(Map<String, Object> o, String base, String name) {
        return asInteger(required(o, base, name), pointer(base, name));
    }

    static Long optionalInteger(Map<String, Object> o, String base, String name) {
        Object v = optional(o, name);
        return v == null ? null : asInteger(v, pointer(base, name));
    }

    static Map<String, Object> requiredObject(Map<String, Object> o, String base, String name) {
        Object v = required(o, base, name);
        if (!(v instanceof Map)) throw new Violation("CORE-TYPE-003", pointer(base, name));
        return asObject(v);
    }

    static List<Object> optionalArray(Map<String, Object> o, String base, String name) {
        Object v = optional(o, name);
        if (v == null) return null;
        if (!(v instanceof List)) throw new Violation("CORE-TYPE-003", pointer(base, name));
        return asArray(v);
    }

    static String asString(Object v, String path) {
        if (!(v instanceof String)) throw new Violation("CORE-TYPE-003", path);
        return (String) v;
    }

    static final BigInteger MAX_SAFE = BigInteger.valueOf((1L << 53) - 1);

    /** CORE-TYPE-003 (a number), CORE-TYPE-004 (an integer literal within +-(2^53 - 1)). */
    static long asInteger(Object v, String path) {
        if (!(v instanceof Json.Number)) throw new Violation("CORE-TYPE-003", path);
        String literal = ((Json.Number) v).literal();
        if (literal.indexOf('.') >= 0 || literal.indexOf('e') >= 0 || literal.indexOf('E') >= 0) {
            throw new Violation("CORE-TYPE-004", path);
        }
        BigInteger value = new BigInteger(literal);
        if (value.abs().compareTo(MAX_SAFE) > 0) throw new Violation("CORE-TYPE-004", path);
        return value.longValueExact(); // "-0" is 0
    }

    static Long asLongOrNull(Object v) {
        if (!(v instanceof Json.Number)) return null;
        try {
            return new BigDecimal(((Json.Number) v).literal()).longValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** RFC 6901: a member's pointer under base (~ as ~0, / as ~1). */
    static String pointer(String base, String name) {
        return base + "/" + name.replace("~", "~0").replace("/", "~1");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asObject(Object v) {
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asArray(Object v) {
        return (List<Object>) v;
    }

    /** The first failing check: a rule id and an RFC 6901 pointer into the document. */
    static final class Violation extends RuntimeException {
        final String rule;
        final String path;

        Violation(String rule, String path) {
            super(rule + " at \"" + path + "\"", null, false, false);
            this.rule = rule;
            this.path = path;
        }
    }

    static final class InvalidRequest extends RuntimeException {
        InvalidRequest(String reason) {
            super(reason);
        }
    }

    // ------------------------------------------------------------------------------------------
    // The wire profile (Spec/core.md): a strict reader on the exact bytes. Checks, in document
    // order: CORE-JSON-001 (syntax), -002 (UTF-8 and \\u escapes), -003 (duplicate names after
    // unescaping), -005 (depth), -006 (finite numbers). CORE-JSON-004 (size) is the caller's.
    // Values: Map (LinkedHashMap), List, String, Json.Number, Boolean, Json.NULL.
    // ------------------------------------------------------------------------------------------

    static final class JsonReader {
        final byte[] b;
        final int maxDepth;
        int i;

        JsonReader(byte[] bytes, int maxDepth) {
            this.b = bytes;
            this.maxDepth = maxDepth;
        }

        Object readDocument() {
            skipWhitespace();
            Object value = readValue("", 0);
            skipWhitespace();
            if (i < b.length) throw new Violation("CORE-JSON-001", ""); // trailing data
            return value;
        }

        void skipWhitespace() {
            while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
        }

        /** A value at `path`, inside containers nested `depth` deep. */
        Object readValue(String path, int depth) {
            if (i >= b.length) throw new Violation("CORE-JSON-001", path);
            switch (b[i]) {
                case '{': return readObject(path, depth + 1);
                case '[': return readArray(path, depth + 1);
                case '"': return readString(path);
                case 't': return readLiteral("true", Boolean.TRUE, path);
                case 'f': return readLiteral("false", Boolean.FALSE, path);
                case 'n': return readLiteral("null", Json.NULL, path);
                default:
                    if (b[i] == '-' || (b[i] >= '0' && b[i] <= '9')) return readNumber(path);
                    throw new Violation("CORE-JSON-001", path);
            }
        }

        Object readLiteral(String word, Object value, String path) {
            for (int k = 0; k < word.length(); k++) {
                if (i + k >= b.length || b[i + k] != word.charAt(k)) throw new Violation("CORE-JSON-001", path);
            }
            i += word.length();
            return value;
        }

        Map<String, Object> readObject(String path, int level) {
            if (level > maxDepth) throw new Violation("CORE-JSON-005", path);
            i++; // {
            Map<String, Object> members = new LinkedHashMap<>();
            skipWhitespace();
            if (i < b.length && b[i] == '}') {
                i++;
                return members;
            }
            while (true) {
                // between members: errors are reported at the enclosing object's pointer
                if (i >= b.length || b[i] != '"') throw new Violation("CORE-JSON-001", path);
                String name = readString(path);
                String memberPath = pointer(path, name);
                if (members.containsKey(name)) throw new Violation("CORE-JSON-003", memberPath);
                skipWhitespace();
                if (i >= b.length || b[i] != ':') throw new Violation("CORE-JSON-001", memberPath);
                i++;
                skipWhitespace();
                members.put(name, readValue(memberPath, level));
                skipWhitespace();
                if (i < b.length && b[i] == ',') {
                    i++;
                    skipWhitespace();
                    continue;
                }
                if (i < b.length && b[i] == '}') {
                    i++;
                    return members;
                }
                throw new Violation("CORE-JSON-001", path);
            }
        }

        List<Object> readArray(String path, int level) {
            if (level > maxDepth) throw new Violation("CORE-JSON-005", path);
            i++; // [
            List<Object> elements = new ArrayList<>();
            skipWhitespace();
            if (i < b.length && b[i] == ']') {
                i++;
                return elements;
            }
            while (true) {
                // the element being read is known by its index, even at a trailing comma: "[1,]" is /1
                elements.add(readValue(path + "/" + elements.size(), level));
                skipWhitespace();
                if (i < b.length && b[i] == ',') {
                    i++;
                    skipWhitespace();
                    continue;
                }
                if (i < b.length && b[i] == ']') {
                    i++;
                    return elements;
                }
                throw new Violation("CORE-JSON-001", path);
            }
        }

        /** A string token; `path` is where its violations are reported. */
        String readString(String path) {
            i++; // opening quote
            StringBuilder s = new StringBuilder();
            while (true) {
                if (i >= b.length) throw new Violation("CORE-JSON-001", path); // unterminated
                int c = b[i] & 0xFF;
                if (c == '"') {
                    i++;
                    return s.toString();
                }
                if (c < 0x20) throw new Violation("CORE-JSON-001", path); // raw control character
                if (c == '\\') {
                    readEscape(s, path);
                } else if (c < 0x80) {
                    s.append((char) c);
                    i++;
                } else {
                    s.appendCodePoint(readUtf8(path));
                }
            }
        }

        void readEscape(StringBuilder s, String path) {
            if (i + 1 >= b.length) throw new Violation("CORE-JSON-001", path);
            byte e = b[i + 1];
            i += 2;
            switch (e) {
                case '"': s.append('"'); return;
                case '\\': s.append('\\'); return;
                case '/': s.append('/'); return;
                case 'b': s.append('\b'); return;
                case 'f': s.append('\f'); return;
                case 'n': s.append('\n'); return;
                case 'r': s.append('\r'); return;
                case 't': s.append('\t'); return;
                case 'u': break;
                default: throw new Violation("CORE-JSON-001", path);
            }
            int unit = readHex4(path);
            if (unit >= 0xDC00 && unit <= 0xDFFF) throw new Violation("CORE-JSON-002", path); // lone low
            if (unit >= 0xD800 && unit <= 0xDBFF) {
                if (i + 1 >= b.length || b[i] != '\\' || b[i + 1] != 'u') throw new Violation("CORE-JSON-002", path);
                i += 2;
                int low = readHex4(path);
                if (low < 0xDC00 || low > 0xDFFF) throw new Violation("CORE-JSON-002", path);
                s.append((char) unit).append((char) low);
                return;
            }
            s.append((char) unit);
        }

        int readHex4(String path) {
            if (i + 4 > b.length) throw new Violation("CORE-JSON-001", path);
            int v = 0;
            for (int k = 0; k < 4; k++) {
                int d = Character.digit((char) (b[i + k] & 0xFF), 16);
                if (d < 0 || (b[i + k] & 0xFF) > 'f') throw new Violation("CORE-JSON-001", path);
                v = v * 16 + d;
            }
            i += 4;
            return v;
        }

        /** One multi-byte UTF-8 sequence, strictly (RFC 3629 table 3-7): no overlong, surrogate, > U+10FFFF. */
        int readUtf8(String path) {
            int c = b[i] & 0xFF;
            int count;
            int min;
            int lo = 0x80;
            int hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) { count = 1; min = 0x80; }
            else if (c >= 0xE0 && c <= 0xEF) {
                count = 2; min = 0x800;
                if (c == 0xE0) lo = 0xA0;
                if (c == 0xED) hi = 0x9F; // no UTF-16 surrogates (CESU-8)
            } else if (c >= 0xF0 && c <= 0xF4) {
                count = 3; min = 0x10000;
                if (c == 0xF0) lo = 0x90;
                if (c == 0xF4) hi = 0x8F;
            } else {
                throw new Violation("CORE-JSON-002", path);
            }
            int cp = c & (0x3F >> count);
            for (int k = 1; k <= count; k++) {
                if (i + k >= b.length) throw new Violation("CORE-JSON-002", path);
                int cont = b[i + k] & 0xFF;
                int low = k == 1 ? lo : 0x80;
                int high = k == 1 ? hi : 0xBF;
                if (cont < low || cont > high) throw new Violation("CORE-JSON-002", path);
                cp = (cp << 6) | (cont & 0x3F);
            }
            if (cp < min) throw new Violation("CORE-JSON-002", path);
            i += count + 1;
            return cp;
        }

        /** RFC 8259 number grammar; a literal that is infinite as a double is CORE-JSON-006. */
        Json.Number readNumber(String path) {
            int start = i;
            if (b[i] == '-') i++;
            if (i >= b.length) throw new Violation("CORE-JSON-001", path);
            if (b[i] == '0') {
                i++;
                if (i < b.length && isDigit(b[i])) throw new Violation("CORE-JSON-001", path); // leading zero
            } else if (isDigit(b[i])) {
                while (i < b.length && isDigit(b[i])) i++;
            } else {
                throw new Violation("CORE-JSON-001", path);
            }
            if (i < b.length && b[i] == '.') {
                i++;
                if (i >= b.length || !isDigit(b[i])) throw new Violation("CORE-JSON-001", path);
                while (i < b.length && isDigit(b[i])) i++;
            }
            if (i < b.length && (b[i] == 'e' || b[i] == 'E')) {
                i++;
                if (i < b.length && (b[i] == '+' || b[i] == '-')) i++;
                if (i >= b.length || !isDigit(b[i])) throw new Violation("CORE-JSON-001", path);
                while (i < b.length && isDigit(b[i])) i++;
            }
            String literal = new String(b, start, i - start, StandardCharsets.US_ASCII);
            if (Double.isInfinite(Double.parseDouble(literal))) throw new Violation("CORE-JSON-006", path);
            return new Json.Number(literal);
        }

        static boolean isDigit(byte c) {
            return c >= '0' && c <= '9';
        }
    }

    // ------------------------------------------------------------------------------------------
    // JSON values and the writer (answers and canonical forms): members sorted by UTF-16 code
    // units and numbers in ECMAScript form, as RFC 8785 lays them out (core.md "Canonical form").
    // ------------------------------------------------------------------------------------------

    static final class Json {
        static final Object NULL = new Object() {
            @Override public String toString() { return "null"; }
        };

        /** A number as written; integers are checked on the literal (CORE-TYPE-004). */
        record Number(String literal) {}

        static String write(Object value) {
            StringBuilder sb = new StringBuilder();
            write(sb, value);
            return sb.toString();
        }

        static void write(StringBuilder sb, Object v) {
            if (v == null || v == NULL) {
                sb.append("null");
            } else if (v instanceof String) {
                writeString(sb, (String) v);
            } else if (v instanceof Boolean || v instanceof Long || v instanceof Integer) {
                sb.append(v);
            } else if (v instanceof Number) {
                sb.append(ecmaScriptNumber(Double.parseDouble(((Number) v).literal())));
            } else if (v instanceof Map) {
                sb.append('{');
                boolean first = true;
                for (var e : new TreeMap<>(asObject(v)).entrySet()) { // String order = UTF-16 code units
                    if (!first) sb.append(',');
                    first = false;
                    writeString(sb, e.getKey());
                    sb.append(':');
                    write(sb, e.getValue());
                }
                sb.append('}');
            } else if (v instanceof List) {
                sb.append('[');
                List<Object> list = asArray(v);
                for (int k = 0; k < list.size(); k++) {
                    if (k > 0) sb.append(',');
                    write(sb, list.get(k));
                }
                sb.append(']');
            } else {
                throw new IllegalArgumentException("not a JSON value: " + v.getClass());
            }
        }

        static void writeString(StringBuilder sb, String s) {
            sb.append('"');
            for (int k = 0; k < s.length(); k++) {
                char ch = s.charAt(k);
                switch (ch) {
                    case '"': sb.append("\\\""); break;
                    case '\\': sb.append("\\\\"); break;
                    case '\b': sb.append("\\b"); break;
                    case '\f': sb.append("\\f"); break;
                    case '\n': sb.append("\\n"); break;
                    case '\r': sb.append("\\r"); break;
                    case '\t': sb.append("\\t"); break;
                    default:
                        if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
                        else sb.append(ch);
                }
            }
            sb.append('"');
        }

        /** ECMAScript Number::toString (shortest round-trip digits, as JCS requires). */
        static String ecmaScriptNumber(double d) {
            if (d == 0) return "0"; // also -0
            BigDecimal bd = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
            String digits = bd.unscaledValue().toString();
            int k = digits.length();
            int n = k - bd.scale();
            StringBuilder sb = new StringBuilder(d < 0 ? "-" : "");
            if (k <= n && n <= 21) {
                sb.append(digits).append("0".repeat(n - k));
            } else if (0 < n && n <= 21) {
                sb.append(digits, 0, n).append('.').append(digits.substring(n));
            } else if (-6 < n && n <= 0) {
                sb.append("0.").append("0".repeat(-n)).append(digits);
            } else {
                int e = n - 1;
                sb.append(digits.charAt(0));
                if (k > 1) sb.append('.').append(digits.substring(1));
                sb.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
            }
            return sb.toString();
        }
    }

    // ---- I/O helpers ---------------------------------------------------------------------------

    /** One request line (without its \n), or null at end of input. */
    static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') return line.toByteArray();
            line.write(c);
        }
        return line.size() > 0 ? line.toByteArray() : null;
    }

    static void log(String message) {
        System.err.println("testee: " + message);
    }
}
