#!/usr/bin/env node
'use strict';
// A testee for the conformance kit, in JavaScript (Node 20, standard library only).
//
// WHAT THIS IS
//   A template for teams that want their own implementation graded by `conformance run`.
//   It speaks the whole testee protocol (Conformance/testee-protocol.md: one JSON object per line
//   on stdin, one answer per line on stdout, logs on stderr) and, as a worked example, implements
//   every document kind of the pairing family (Spec/pairing.md sections 1-3), including the
//   WebRTC signals (`offer`, `answer`, `ice-candidate`, 3.7) a signaling `message` carries, over
//   the strict JSON wire profile of Spec/core.md (strict-json.js, beside this file). It was
//   written from the Spec, the protocol document and the vectors only.
//
//   Run it:
//     conformance run --family pairing --peer "exec:node Conformance/testees/js/testee.js"
//
// HOW TO ADAPT IT TO YOUR IMPLEMENTATION
//   1. Keep the protocol part (section 1) as it is; change IMPLEMENTATION to your name/version.
//   2. In `hello`, list what you implement: FAMILIES, and KINDS (by default the kinds of
//      PAIRING_KINDS, section 3: a kind the Spec gained after you copied this file, or one you
//      leave out, is reported "not implemented", never failed). MACHINES is empty:
//      this template does not drive the flow state machines (flow-a, flow-b, manual, relay, connection, mobile-bridge, webrtc), so
//      those cases are reported not implemented. To add them, list them and answer `run-machine`
//      with {outcome: "trace", steps: [{state, actions}, ...]} (Spec/pairing.md section 4).
//   3. Replace the example codecs (section 3, one function per kind in PAIRING_KINDS) with calls
//      into your own code. (A `message` checks its payload with the functions in PAYLOAD_KINDS;
//      the WebRTC signals live only there, as they are never documents of their own, 3.7.)
//      Each kind receives the exact bytes and the vector's context and must either
//      return the canonical form of the accepted document (plain objects, only declared members,
//      "not given" optionals omitted) or throw `new Violation(rule, jsonPointer)` for the FIRST
//      failing check in the Spec's order. If your decoder returns errors in its own shape, map
//      them to {rule, path} in one place (a small adapter around your call) and leave the rest.
//      Your own parser must be as strict as strict-json.js; if it is not, run parseStrict first
//      and hand your decoder the same bytes only when the wire profile holds.
//   4. Throw `new InvalidRequest(reason)` when the request lacks something your code needs (a
//      context member), and `new Unsupported(reason)` for a kind you have not written yet.
//   5. To rehearse an expected-failure list, FAULT=accept-five-digit-codes makes the code members
//      (code, pairingCode) accept five digits; run it with
//      --expected-failures Conformance/expected-failures/example-accepts-five-digit-codes.txt.

const readline = require('node:readline');
const {
  Violation, parseStrict, pointer, jsonType, toPlain, canonicalText,
} = require('./strict-json.js');

// ---------------------------------------------------------------------------------------------
// 1. The testee protocol
// ---------------------------------------------------------------------------------------------

const IMPLEMENTATION = 'js testee template 1.0 (Node ' + process.versions.node + ')';
const FAMILIES = ['pairing'];
const KINDS = null; // null: the kinds of PAIRING_KINDS (section 3); e.g. ['pair-ack', 'desktop-pairing'] to narrow
const MACHINES = []; // flows and relay are not implemented: those cases are "not implemented"

class Unsupported extends Error {}
class InvalidRequest extends Error {}

function answer(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

function handle(request) {
  switch (request.op) {
    case 'hello':
      if (request.protocol !== 1) {
        console.error(`unsupported protocol ${request.protocol}`);
        process.exit(2);
      }
      return answer({
        protocol: 1, implementation: IMPLEMENTATION, families: FAMILIES, kinds: KINDS ?? Object.keys(PAIRING_KINDS), machines: MACHINES,
      });
    case 'validate':
      return answerValidate(request);
    case 'run-machine':
      return answer({ case: request.case, outcome: 'unsupported', reason: `machine ${request.machine} not implemented` });
    case 'bye':
      return process.exit(0); // no answer
    default:
      console.error(`unknown op ${JSON.stringify(request.op)}`);
      return answer({ case: request.case, outcome: 'invalid-request', reason: `unknown op ${request.op}` });
  }
}

function answerValidate(request) {
  const id = request.case;
  try {
    const validate = request.family === 'pairing' ? PAIRING_KINDS[request.kind] : undefined;
    if (!validate) throw new Unsupported(`kind ${request.family}/${request.kind} not implemented`);
    if (typeof request.document !== 'string') throw new InvalidRequest('no document');
    const bytes = Buffer.from(request.document, 'base64');
    const canonical = validate(bytes, request.context || {});
    // The canonical form is written as JCS text; the runner compares it as a JSON value.
    process.stdout.write(`{"case":${JSON.stringify(id)},"outcome":"accept","canonical":${canonicalText(canonical)}}\n`);
  } catch (e) {
    if (e instanceof Violation) return answer({ case: id, outcome: 'reject', violations: [{ path: e.path, rule: e.rule }] });
    if (e instanceof InvalidRequest) return answer({ case: id, outcome: 'invalid-request', reason: e.message });
    if (e instanceof Unsupported) return answer({ case: id, outcome: 'unsupported', reason: e.message });
    console.error(`${id}: ${e && e.stack ? e.stack : e}`); // a bug in the testee: say so, don't guess
    return answer({ case: id, outcome: 'unsupported', reason: `internal error: ${e && e.message}` });
  }
}

function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let request;
    try {
      request = JSON.parse(line); // the runner's own requests: plain JSON is enough here
    } catch (e) {
      console.error(`request is not JSON: ${line.slice(0, 200)}`);
      process.exit(2);
    }
    handle(request);
  });
  lines.on('close', () => process.exit(0)); // end of input: as `bye`
}

// ---------------------------------------------------------------------------------------------
// 2. Typed members (Spec/core.md "Typed members") and shared pairing rules (Spec/pairing.md 2)
// ---------------------------------------------------------------------------------------------

const PAIRING_SIZE_LIMIT = 65536; // CORE-JSON-004 for pairing documents

function fail(rule, path) {
  throw new Violation(rule, path);
}

/**
 * Reads member `name` of `object` (the value at pointer `at`) and checks, in the Spec's order:
 * present (CORE-TYPE-001), not null (CORE-TYPE-002), JSON type (CORE-TYPE-003, CORE-TYPE-004).
 * `type` is 'string', 'integer', 'object', 'array' or 'string|array'. Returns the value (an
 * integer as a Number), or undefined for an optional member that is absent or null.
 */
function member(object, at, name, type, required) {
  const path = pointer(at, name);
  const present = Object.prototype.hasOwnProperty.call(object, name);
  if (!present || object[name] === null) {
    if (required) fail(present ? 'CORE-TYPE-002' : 'CORE-TYPE-001', path);
    return undefined;
  }
  return typed(object[name], type, path);
}

/** CORE-TYPE-003 / CORE-TYPE-004 for one value (a member or an array element). */
function typed(value, type, path) {
  const actual = jsonType(value);
  if (type === 'integer') {
    if (actual !== 'number') fail('CORE-TYPE-003', path);
    if (!value.isIntegerLiteral()) fail('CORE-TYPE-004', path);
    return value.value === 0 ? 0 : value.value; // -0 is the integer 0
  }
  if (!type.split('|').includes(actual)) fail('CORE-TYPE-003', path);
  return value;
}

// Unicode White_Space (PropList.txt): what Kotlin's isNotBlank trims. Not U+FEFF, not U+200B.
const WHITE_SPACE = /^[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$/;
const isBlank = (s) => WHITE_SPACE.test(s);
const utf8Length = (s) => Buffer.byteLength(s, 'utf8');
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const ALIAS_PREFIX = 'pairing-code:';

/** PAIR-TYPE-001: `type` equals the kind exactly. */
function checkType(doc, at, kind) {
  const type = member(doc, at, 'type', 'string', true);
  if (type !== kind) fail('PAIR-TYPE-001', pointer(at, 'type'));
}

/** PAIR-CODE-001: exactly six ASCII digits, no trimming. */
const isPairingCode = (s) => /^[0-9]{6}$/.test(s);
function checkCode(code, path) {
  // FAULT: a deliberate bug in the code members (not the alias suffix), to rehearse the kit's
  // expected-failure list Conformance/expected-failures/example-accepts-five-digit-codes.txt.
  if (process.env.FAULT === 'accept-five-digit-codes' && /^[0-9]{5}$/.test(code)) return;
  if (!isPairingCode(code)) fail('PAIR-CODE-001', path);
}

/** PAIR-PEER-001 (non-blank, no control characters, at most 256 UTF-8 bytes), then
 * PAIR-PEER-002 (a `pairing-code:` alias carries a valid code; prefix compared by code points). */
function checkPeerId(id, path) {
  if (isBlank(id) || /[\u0000-\u001F\u007F-\u009F]/.test(id) || utf8Length(id) > 256) fail('PAIR-PEER-001', path);
  if (id.startsWith(ALIAS_PREFIX) && !isPairingCode(id.slice(ALIAS_PREFIX.length))) fail('PAIR-PEER-002', path);
}

/** PAIR-TIME-001: epoch milliseconds in [10^12, 10^13). */
function checkEpochMillis(t, path) {
  if (!(t >= 1e12 && t < 1e13)) fail('PAIR-TIME-001', path);
}

/** PAIR-DID-001: W3C DID syntax as the Spec narrows it, at most 256 characters; did:key carries
 * a base58btc multibase value (z + base58btc characters). */
const DID_SEGMENT = '(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+';
const DID_SYNTAX = new RegExp(`^did:([a-z0-9]+):(${DID_SEGMENT}(?::${DID_SEGMENT})*)$`);
function checkDid(did, path) {
  const m = DID_SYNTAX.exec(did);
  if (!m || did.length > 256) fail('PAIR-DID-001', path);
  if (m[1] === 'key' && !/^z[1-9A-HJ-NP-Za-km-z]+$/.test(m[2])) fail('PAIR-DID-001', path);
}

/** PAIR-DID-002: the receiver has an active DID (context `activeDid`; absent or null: none). */
function checkActiveDid(context, path) {
  if (context.activeDid === undefined || context.activeDid === null) fail('PAIR-DID-002', path);
}

/** PAIR-INFO-001: a device name is non-blank (kept as received). */
function checkDeviceName(name, path) {
  if (isBlank(name)) fail('PAIR-INFO-001', path);
}

/** PAIR-INFO-002: the platform values of each side, case-sensitive. */
const PLATFORMS = { desktop: ['win32', 'darwin', 'linux'], phone: ['ios', 'android'] };
function checkPlatform(platform, side, path) {
  if (!PLATFORMS[side].includes(platform)) fail('PAIR-INFO-002', path);
}

/** PAIR-INFO-003: a phone's deviceId is non-blank; opaque (case kept). */
function checkDeviceId(id, path) {
  if (isBlank(id)) fail('PAIR-INFO-003', path);
}

/**
 * The URL syntax of PAIR-URL-001: ws/wss (case-insensitive), non-empty host (bracketed IPv6,
 * IPv4 when the last label is all digits, else an RFC 1123 DNS name), optional port of 1-5
 * digits in 1-65535, optional path and query, no user-info, fragment or whitespace.
 * Returns {scheme, host} or null.
 */
function parseSignalingUrl(s) {
  if (/[\u0000-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/.test(s)) return null;
  if (s.includes('#')) return null; // fragment
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?]*)(.*)$/.exec(s);
  if (!m) return null;
  const scheme = asciiLower(m[1]);
  if (scheme !== 'ws' && scheme !== 'wss') return null;
  const authority = m[2];
  if (authority.includes('@')) return null; // user-info
  let host, port, ipv6 = null;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return null;
    host = authority.slice(0, close + 1);
    ipv6 = parseIPv6(authority.slice(1, close));
    if (!ipv6) return null;
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return null;
    port = after === '' ? undefined : after.slice(1);
  } else {
    const colon = authority.indexOf(':');
    host = colon < 0 ? authority : authority.slice(0, colon);
    port = colon < 0 ? undefined : authority.slice(colon + 1);
    if (host === '') return null;
    const labels = host.split('.');
    if (/^[0-9]+$/.test(labels[labels.length - 1])) {
      // IPv4: exactly four decimal octets 0-255 without leading zeros.
      if (labels.length !== 4 || !labels.every((l) => /^(0|[1-9][0-9]{0,2})$/.test(l) && Number(l) <= 255)) return null;
    } else {
      if (host.length > 253) return null;
      if (!labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l))) return null;
    }
  }
  if (port !== undefined && !(/^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return null;
  return { scheme, host, ipv6 };
}

/** An IPv6 literal (RFC 4291 text form, no zone) as eight 16-bit groups, or null. */
function parseIPv6(text) {
  let head = text, tail = '';
  const dbl = text.indexOf('::');
  if (dbl >= 0) {
    if (text.indexOf('::', dbl + 1) >= 0) return null;
    head = text.slice(0, dbl);
    tail = text.slice(dbl + 2);
  }
  const groups = (part) => {
    if (part === '') return [];
    const out = [];
    const pieces = part.split(':');
    for (let k = 0; k < pieces.length; k++) {
      const p = pieces[k];
      if (k === pieces.length - 1 && p.includes('.')) { // embedded IPv4
        const o = p.split('.');
        if (o.length !== 4 || !o.every((x) => /^(0|[1-9][0-9]{0,2})$/.test(x) && Number(x) <= 255)) return null;
        out.push(Number(o[0]) * 256 + Number(o[1]), Number(o[2]) * 256 + Number(o[3]));
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return null;
    }
    return out;
  };
  const h = groups(head), t = groups(tail);
  if (!h || !t) return null;
  if (dbl < 0) return h.length === 8 ? h : null;
  if (h.length + t.length > 7) return null;
  return [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
}

/** PAIR-URL-001: a signaling (LAN) URL. */
function checkSignalingUrl(url, path) {
  if (!parseSignalingUrl(url)) fail('PAIR-URL-001', path);
}

/** PAIR-URL-002: a relay URL: PAIR-URL-001's syntax and wss, or ws on loopback only. */
function checkRelayUrl(url, path) {
  const u = parseSignalingUrl(url);
  if (!u) fail('PAIR-URL-002', path);
  if (u.scheme === 'wss') return;
  const loopback =
    asciiLower(u.host) === 'localhost' ||
    /^127\.[0-9.]+$/.test(u.host) || // an IPv4 address (already validated) in 127.0.0.0/8
    (u.ipv6 !== null && u.ipv6.every((g, k) => g === (k === 7 ? 1 : 0))); // [::1]
  if (!loopback) fail('PAIR-URL-002', path);
}

/** PAIR-ICE-001: the ICE server list, element by element, each completely before the next.
 * Returns the canonical list: {urls as received, username?, credential?}. */
function checkIceServers(list, path) {
  return list.map((server, i) => {
    const at = pointer(path, i);
    if (jsonType(server) !== 'object') fail('CORE-TYPE-003', at);
    const urls = member(server, at, 'urls', 'string|array', true);
    const urlsPath = pointer(at, 'urls');
    if (typeof urls === 'string') {
      checkIceUrl(urls, urlsPath);
    } else {
      if (urls.length === 0) fail('PAIR-ICE-001', urlsPath);
      urls.forEach((u, j) => checkIceUrl(typed(u, 'string', pointer(urlsPath, j)), pointer(urlsPath, j)));
    }
    const canonical = { urls: toPlain(urls) };
    const username = member(server, at, 'username', 'string', false);
    if (username !== undefined) canonical.username = username;
    const credential = member(server, at, 'credential', 'string', false);
    if (credential !== undefined) canonical.credential = credential;
    return canonical;
  });
}
function checkIceUrl(url, path) {
  const scheme = ['stun:', 'stuns:', 'turn:', 'turns:'].find((p) => asciiLower(url.slice(0, p.length)) === p);
  if (!scheme || url.length === scheme.length) fail('PAIR-ICE-001', path);
}

/** PAIR-ICE-002: epoch seconds in [10^9, 10^11), or 0 (no ICE credentials, no expiry). */
function checkIceExpiry(t, path) {
  if (!(t === 0 || (t >= 1e9 && t < 1e11))) fail('PAIR-ICE-002', path);
}

/** `deviceInfo` of a desktop (3.1): name, platform (desktop), version? in that order. */
function desktopDeviceInfo(doc, at) {
  const info = member(doc, at, 'deviceInfo', 'object', true);
  const infoAt = pointer(at, 'deviceInfo');
  const name = member(info, infoAt, 'name', 'string', true);
  checkDeviceName(name, pointer(infoAt, 'name'));
  const platform = member(info, infoAt, 'platform', 'string', true);
  checkPlatform(platform, 'desktop', pointer(infoAt, 'platform'));
  const version = member(info, infoAt, 'version', 'string', false);
  return version === undefined ? { name, platform } : { name, platform, version };
}

/** `deviceInfo` of a phone (3.2): deviceId, name, platform (phone) in that order. */
function phoneDeviceInfo(doc, at) {
  const info = member(doc, at, 'deviceInfo', 'object', true);
  const infoAt = pointer(at, 'deviceInfo');
  const deviceId = member(info, infoAt, 'deviceId', 'string', true);
  checkDeviceId(deviceId, pointer(infoAt, 'deviceId'));
  const name = member(info, infoAt, 'name', 'string', true);
  checkDeviceName(name, pointer(infoAt, 'name'));
  const platform = member(info, infoAt, 'platform', 'string', true);
  checkPlatform(platform, 'phone', pointer(infoAt, 'platform'));
  return { deviceId, name, platform };
}

/** A required pairing code member (PAIR-CODE-001). */
function codeMember(doc, at, name) {
  const code = member(doc, at, name, 'string', true);
  checkCode(code, pointer(at, name));
  return code;
}

/** A peer id member (PAIR-PEER-001, PAIR-PEER-002). */
function peerIdMember(doc, at, name, required) {
  const id = member(doc, at, name, 'string', required);
  if (id !== undefined) checkPeerId(id, pointer(at, name));
  return id;
}

/** An epoch-milliseconds member (PAIR-TIME-001). */
function epochMillisMember(doc, at, name) {
  const t = member(doc, at, name, 'integer', true);
  checkEpochMillis(t, pointer(at, name));
  return t;
}

/** A URL member where absent, null and "" all mean "no URL" (3.1 signalingUrl, 3.6). */
function optionalUrlMember(doc, at, name, check) {
  const url = member(doc, at, name, 'string', false);
  if (url === undefined || url === '') return undefined;
  check(url, pointer(at, name));
  return url;
}

/** Drops undefined members, so "not given" optionals are omitted from the canonical form. */
function compact(object) {
  for (const k of Object.keys(object)) if (object[k] === undefined) delete object[k];
  return object;
}

// ---------------------------------------------------------------------------------------------
// 3. The pairing kinds (Spec/pairing.md section 3), one function per kind: REPLACE THESE with
//    calls into your implementation. Each checks `doc` (the object at pointer `at`: "" for a
//    document, "/payload" inside a message) in its table's order and returns the canonical form.
// ---------------------------------------------------------------------------------------------

/** 3.1 desktop-pairing (desktop → phone, QR, Flow B). */
function desktopPairing(doc, at, context) {
  checkType(doc, at, 'desktop-pairing'); // 1
  const code = codeMember(doc, at, 'code'); // 2
  const pcPeerId = peerIdMember(doc, at, 'pcPeerId', true); // 3
  const timestamp = epochMillisMember(doc, at, 'timestamp'); // 4
  if (typeof context.now !== 'number') throw new InvalidRequest('context has no now');
  if (context.now - timestamp > 300000) fail('PAIR-TIME-002', pointer(at, 'timestamp'));
  if (timestamp - context.now > 60000) fail('PAIR-TIME-003', pointer(at, 'timestamp'));
  checkActiveDid(context, at); // 5
  const deviceInfo = desktopDeviceInfo(doc, at); // 6
  const signalingUrl = optionalUrlMember(doc, at, 'signalingUrl', checkSignalingUrl); // 7
  const relayUrl = member(doc, at, 'relayUrl', 'string', true); // 8
  checkRelayUrl(relayUrl, pointer(at, 'relayUrl'));
  const iceServers = member(doc, at, 'iceServers', 'array', false); // 9
  const iceList = iceServers === undefined ? undefined : checkIceServers(iceServers, pointer(at, 'iceServers'));
  const iceExpiry = member(doc, at, 'iceExpiry', 'integer', false); // 10
  if (iceExpiry !== undefined) checkIceExpiry(iceExpiry, pointer(at, 'iceExpiry'));
  return compact({
    type: 'desktop-pairing', code, pcPeerId, deviceInfo, timestamp, signalingUrl, relayUrl,
    iceServers: iceList, iceExpiry,
  });
}

/** 3.2 pair-ack (phone → desktop, in a signaling message). Not age-checked. */
function pairAck(doc, at) {
  checkType(doc, at, 'pair-ack'); // 1
  const pairingCode = codeMember(doc, at, 'pairingCode'); // 2
  const mobileDid = member(doc, at, 'mobileDid', 'string', true); // 3
  checkDid(mobileDid, pointer(at, 'mobileDid'));
  const deviceInfo = phoneDeviceInfo(doc, at); // 4
  const timestamp = epochMillisMember(doc, at, 'timestamp'); // 5
  return { type: 'pair-ack', pairingCode, mobileDid, deviceInfo, timestamp };
}

/** 3.3 device-pairing (phone → desktop, QR, Flow A). */
function devicePairing(doc, at) {
  checkType(doc, at, 'device-pairing'); // 1
  const code = codeMember(doc, at, 'code'); // 2
  const did = member(doc, at, 'did', 'string', true); // 3
  checkDid(did, pointer(at, 'did'));
  const deviceInfo = phoneDeviceInfo(doc, at); // 4
  const timestamp = epochMillisMember(doc, at, 'timestamp'); // 5
  return { type: 'device-pairing', code, did, deviceInfo, timestamp };
}

/** 3.4 pairing:confirmation (desktop → phone, in a signaling message). Not age-checked. */
function pairingConfirmation(doc, at) {
  checkType(doc, at, 'pairing:confirmation'); // 1
  const pairingCode = codeMember(doc, at, 'pairingCode'); // 2
  const pcPeerId = peerIdMember(doc, at, 'pcPeerId', true); // 3
  const deviceInfo = desktopDeviceInfo(doc, at); // 4
  const timestamp = epochMillisMember(doc, at, 'timestamp'); // 5
  return { type: 'pairing:confirmation', pairingCode, pcPeerId, deviceInfo, timestamp };
}

/** 3.5 register (client → relay): PAIR-SIG-001 when the context names the sender's own id. */
function register(doc, at, context) {
  checkType(doc, at, 'register');
  const peerId = peerIdMember(doc, at, 'peerId', true);
  const own = context.localPeerId;
  if (typeof own === 'string' && !peerId.startsWith(ALIAS_PREFIX) && peerId !== own) {
    fail('PAIR-SIG-001', pointer(at, 'peerId'));
  }
  return { type: 'register', peerId };
}

/** 3.7 offer (offerer → answerer, only as a `message` payload): PAIR-RTC-001. */
function offer(doc, at) {
  checkType(doc, at, 'offer'); // 1
  const description = sessionDescription(doc, at, 'offer', 'PAIR-RTC-001'); // 2
  return { type: 'offer', offer: description };
}

/** 3.7 answer (answerer → offerer, only as a `message` payload): PAIR-RTC-002, the form of an
 * offer with `answer` in its place. `pranswer` and `rollback` are not part of the protocol.
 * (Named answerSignal: `answer` is the protocol writer in section 1.) */
function answerSignal(doc, at) {
  checkType(doc, at, 'answer'); // 1
  const description = sessionDescription(doc, at, 'answer', 'PAIR-RTC-002'); // 2
  return { type: 'answer', answer: description };
}

/**
 * The session description of an offer or answer, nested under the payload's own type (`kind`):
 * {type: kind, sdp}. Only the nested form is accepted, the one every real sender writes and every
 * real receiver reads: a flat `sdp` string or a description under `sdp` leaves `kind` missing
 * (CORE-TYPE-001), a description serialized to a string is CORE-TYPE-003. The inner `type` must
 * equal `kind` because the desktop passes it to setRemoteDescription. The SDP must begin with
 * `v=0` (RFC 8866 §5: the v= line comes first), which also catches "" and a description
 * serialized into `sdp`. Other members (`iceRestart`, a second `sdp`) are dropped; the SDP text is
 * kept exactly as received (no line-ending change).
 */
function sessionDescription(doc, at, kind, rule) {
  const description = member(doc, at, kind, 'object', true);
  const descriptionAt = pointer(at, kind);
  const type = member(description, descriptionAt, 'type', 'string', true); // 2.1
  if (type !== kind) fail(rule, pointer(descriptionAt, 'type'));
  const sdp = member(description, descriptionAt, 'sdp', 'string', true); // 2.2
  if (!sdp.startsWith('v=0\r\n') && !sdp.startsWith('v=0\n')) fail(rule, pointer(descriptionAt, 'sdp'));
  return { type, sdp };
}

/**
 * 3.7 ice-candidate (both ways, only as a `message` payload): PAIR-RTC-003, one candidate nested
 * under `candidate`. A flat candidate (a string beside `sdpMid`) is CORE-TYPE-003 at `candidate`.
 * Both `sdpMid` and `sdpMLineIndex` are required although W3C lets either be null: the phones
 * read a missing mid or a string index differently (Android "0" and 1, iOS a dropped candidate
 * and 0), so neither is coerced. `usernameFragment` and other members are dropped.
 */
function iceCandidate(doc, at) {
  checkType(doc, at, 'ice-candidate'); // 1
  const c = member(doc, at, 'candidate', 'object', true); // 2
  const cAt = pointer(at, 'candidate');
  // 2.1 the RFC 8839 candidate-attribute, without the SDP line's `a=`; the empty
  // end-of-candidates is not sent (both phones drop it).
  const candidate = member(c, cAt, 'candidate', 'string', true);
  if (!candidate.startsWith('candidate:') || candidate.length === 'candidate:'.length) fail('PAIR-RTC-003', pointer(cAt, 'candidate'));
  const sdpMid = member(c, cAt, 'sdpMid', 'string', true); // 2.2 non-empty
  if (sdpMid === '') fail('PAIR-RTC-003', pointer(cAt, 'sdpMid'));
  const sdpMLineIndex = member(c, cAt, 'sdpMLineIndex', 'integer', true); // 2.3 W3C unsigned short
  if (!(sdpMLineIndex >= 0 && sdpMLineIndex <= 65535)) fail('PAIR-RTC-003', pointer(cAt, 'sdpMLineIndex'));
  return { type: 'ice-candidate', candidate: { candidate, sdpMid, sdpMLineIndex } };
}

/** The WebRTC signals of 3.7, compared exactly (PAIR-TYPE-001): `OFFER` is an opaque payload.
 * The batch `ice-candidates` is not one of them: inside a `message` it is kept as received. */
const WEBRTC_SIGNALS = {
  offer,
  answer: answerSignal,
  'ice-candidate': iceCandidate,
};

/** What a `message` payload is checked as: the pairing message kinds (3.1-3.4) and the WebRTC
 * signals (3.7). Any other payload type is kept exactly as received. */
const PAYLOAD_KINDS = {
  'desktop-pairing': desktopPairing,
  'pair-ack': pairAck,
  'device-pairing': devicePairing,
  'pairing:confirmation': pairingConfirmation,
  ...WEBRTC_SIGNALS,
};
/** A kind checker for a payload `type`, or undefined; own keys only, so a payload typed
 * `constructor` or `toString` is an opaque payload, not Object.prototype's method. */
const payloadKind = (type) => (typeof type === 'string' && Object.hasOwn(PAYLOAD_KINDS, type) ? PAYLOAD_KINDS[type] : undefined);

/** 3.5 message (client → relay → client). `to` is required unless the relay set `from`.
 * A payload that is a pairing kind or a WebRTC signal is checked as that kind, paths under
 * /payload; the echo-loop rule PAIR-RTC-004 comes last (row 6). */
function message(doc, at, context) {
  checkType(doc, at, 'message'); // 1
  const fromGiven = Object.prototype.hasOwnProperty.call(doc, 'from') && doc.from !== null;
  const to = peerIdMember(doc, at, 'to', !fromGiven); // 2
  const from = peerIdMember(doc, at, 'from', false); // 3
  const payload = member(doc, at, 'payload', 'object', true); // 4
  const payloadAt = pointer(at, 'payload');
  const kindCheck = payloadKind(payload.type);
  const canonicalPayload = kindCheck ? kindCheck(payload, payloadAt, context) : toPlain(payload);
  // 5: PAIR-SIG-002, a message to a pairing-code alias carries the pair-ack of that code (a
  // WebRTC signal to an alias fails at /payload/type like any other payload).
  if (to !== undefined && to.startsWith(ALIAS_PREFIX)) {
    if (payload.type !== 'pair-ack') fail('PAIR-SIG-002', pointer(payloadAt, 'type'));
    if (payload.pairingCode !== to.slice(ALIAS_PREFIX.length)) fail('PAIR-SIG-002', pointer(payloadAt, 'pairingCode'));
  }
  // 6: PAIR-RTC-004, for a WebRTC signal, when the context names the client's own id.
  if (Object.hasOwn(WEBRTC_SIGNALS, payload.type)) checkEcho(to, from, at, context);
  return compact({ type: 'message', to, from, payload: canonicalPayload });
}

/**
 * PAIR-RTC-004, the echo loop seen on the wire (§6.2): sending a signal must not change the ids a
 * client holds, so a client never addresses a signal to itself (the relay would deliver it
 * straight back) and drops a delivered signal whose `from` is its own id (its own signal echoed;
 * applying it breaks the negotiation). `localPeerId` is the own id of the client that sends or
 * receives the document; without it there is nothing to compare. A message with `from` is a
 * relay's delivery (3.5), whose `to`, when present, names the receiver itself: only a client's
 * message (no `from`) is checked on `to`, a delivery on `from`.
 */
function checkEcho(to, from, at, context) {
  const own = context.localPeerId;
  if (typeof own !== 'string') return;
  if (from === undefined && to === own) fail('PAIR-RTC-004', pointer(at, 'to'));
  if (from !== undefined && from === own) fail('PAIR-RTC-004', pointer(at, 'from'));
}

/** 3.5 registered (relay → client). */
function registered(doc, at) {
  checkType(doc, at, 'registered');
  const peerId = peerIdMember(doc, at, 'peerId', true);
  return { type: 'registered', peerId };
}

/** 3.5 peer-offline (relay → client): the unreachable target. */
function peerOffline(doc, at) {
  checkType(doc, at, 'peer-offline');
  const peerId = peerIdMember(doc, at, 'peerId', true);
  return { type: 'peer-offline', peerId };
}

/** 3.5 error (relay → client): PAIR-SIG-003, clients act on the code only. */
const ERROR_CODES = ['invalid-message', 'not-registered', 'rate-limited', 'alias-taken', 'alias-expired', 'too-large'];
function error(doc, at) {
  checkType(doc, at, 'error');
  const code = member(doc, at, 'code', 'string', true);
  if (!ERROR_CODES.includes(code)) fail('PAIR-SIG-003', pointer(at, 'code'));
  const text = member(doc, at, 'message', 'string', false);
  return compact({ type: 'error', code, message: text });
}

/** 3.5 peer-status (relay → client): a presence broadcast, which never names an alias
 * (PAIR-SEC-006: announcing one hands a live manual code to every client). */
function peerStatus(doc, at) {
  checkType(doc, at, 'peer-status');
  const peerId = peerIdMember(doc, at, 'peerId', true);
  if (peerId.startsWith(ALIAS_PREFIX)) fail('PAIR-SEC-006', pointer(at, 'peerId'));
  const status = member(doc, at, 'status', 'string', true);
  return { type: 'peer-status', peerId, status };
}

/** 3.5 ping and pong (PAIR-RELAY-002): the type alone; other members are ignored. */
const keepalive = (kind) => (doc, at) => {
  checkType(doc, at, kind);
  return { type: kind };
};

/** 3.6 paired-desktop (the phone's stored record; no `type` member). */
function pairedDesktop(doc, at) {
  const pcPeerId = peerIdMember(doc, at, 'pcPeerId', true); // 1
  const deviceName = member(doc, at, 'deviceName', 'string', true); // 2
  checkDeviceName(deviceName, pointer(at, 'deviceName'));
  const platform = member(doc, at, 'platform', 'string', true); // 3
  checkPlatform(platform, 'desktop', pointer(at, 'platform'));
  const lanSignalingUrl = optionalUrlMember(doc, at, 'lanSignalingUrl', checkSignalingUrl); // 4
  const relayUrl = optionalUrlMember(doc, at, 'relayUrl', checkRelayUrl); // 5
  const iceServersJson = member(doc, at, 'iceServersJson', 'string', false); // 6
  if (iceServersJson !== undefined) checkIceServersJson(iceServersJson, pointer(at, 'iceServersJson'));
  const iceExpiry = member(doc, at, 'iceExpiry', 'integer', true); // 7
  checkIceExpiry(iceExpiry, pointer(at, 'iceExpiry'));
  const pairedAt = epochMillisMember(doc, at, 'pairedAt'); // 8
  const lastSeenAt = epochMillisMember(doc, at, 'lastSeenAt'); // 9
  if (lastSeenAt < pairedAt) fail('PAIR-STORE-002', pointer(at, 'lastSeenAt'));
  return compact({
    pcPeerId, deviceName, platform, lanSignalingUrl, relayUrl, iceServersJson, iceExpiry, pairedAt, lastSeenAt,
  });
}

/** PAIR-STORE-001: the text of a JSON array under the wire profile that satisfies PAIR-ICE-001.
 * Any failure inside is reported as PAIR-STORE-001 at the member; the text is kept as received. */
function checkIceServersJson(text, path) {
  try {
    const list = parseStrict(Buffer.from(text, 'utf8'), PAIRING_SIZE_LIMIT);
    if (!Array.isArray(list)) fail('PAIR-STORE-001', path);
    checkIceServers(list, '');
  } catch (e) {
    if (e instanceof Violation) fail('PAIR-STORE-001', path);
    throw e;
  }
}

/** Each document kind: exact bytes + context → canonical form, or throws a Violation. */
function pairingDocument(kindCheck) {
  return (bytes, context) => {
    const doc = parseStrict(bytes, PAIRING_SIZE_LIMIT); // size, then the wire rules
    if (jsonType(doc) !== 'object') fail('CORE-TYPE-003', ''); // the root must be an object
    return kindCheck(doc, '', context);
  };
}

const PAIRING_KINDS = {
  'desktop-pairing': pairingDocument(desktopPairing),
  'pair-ack': pairingDocument(pairAck),
  'device-pairing': pairingDocument(devicePairing),
  'pairing:confirmation': pairingDocument(pairingConfirmation),
  register: pairingDocument(register),
  message: pairingDocument(message),
  registered: pairingDocument(registered),
  'peer-offline': pairingDocument(peerOffline),
  error: pairingDocument(error),
  'paired-desktop': pairingDocument(pairedDesktop),
  ping: pairingDocument(keepalive('ping')),
  pong: pairingDocument(keepalive('pong')),
  'peer-status': pairingDocument(peerStatus),
};

main();
