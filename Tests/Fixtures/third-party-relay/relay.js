#!/usr/bin/env node
// Stand-in for the ChainlessChain standalone signaling relay (signaling-server/ in
// chainlesschain/chainlesschain), reproduced from its observable wire behaviour so the
// conformance runner can be tested against an implementation that is not ours.
// Dependency-free: the WebSocket server side (RFC 6455) is written here by hand.
// See README.md beside this file for the behaviour table and its evidence.
//
// Usage: node relay.js [--host 127.0.0.1] [--port 0] [--limit NAME=VALUE ...] [--verbose]
// Prints exactly one line "listening PORT" on stdout; everything else goes to stderr,
// and only with --verbose (an undrained stderr pipe must never stall the relay).

"use strict";

const http = require("http");
const crypto = require("crypto");
const { isUtf8 } = require("buffer");

// ---------------------------------------------------------------------------
// Limits: the deployed relay's defaults and hard ceilings (boundaries.js).

const DEFAULTS = {
  maxConnections: 1024,
  maxMessageBytes: 256 * 1024,
  maxBufferedAmount: 1024 * 1024,
  maxPeerIdBytes: 256,
  maxDeviceInfoBytes: 4 * 1024,
  maxQueueSize: 100,
  maxQueuePeers: 2048,
  maxTotalMessages: 10000,
  maxQueueBytes: 2 * 1024 * 1024,
  maxTotalQueueBytes: 64 * 1024 * 1024,
  messageTTL: 24 * 60 * 60 * 1000,
  heartbeatIntervalMs: 30 * 1000,
  cleanupIntervalMs: 60 * 60 * 1000,
  maxMessagesPerWindow: 120,
  maxBytesPerWindow: 4 * 1024 * 1024,
  rateWindowMs: 10000,
  peerListPageSize: 100,
  peerListMaxPageSize: 500,
  retryAfterMs: 1000,
};

const CEILINGS = {
  maxConnections: 10000,
  maxMessageBytes: 1024 * 1024,
  maxBufferedAmount: 16 * 1024 * 1024,
  maxPeerIdBytes: 1024,
  maxDeviceInfoBytes: 64 * 1024,
  maxQueueSize: 1000,
  maxQueuePeers: 10000,
  maxTotalMessages: 50000,
  maxQueueBytes: 16 * 1024 * 1024,
  maxTotalQueueBytes: 256 * 1024 * 1024,
  messageTTL: 7 * 24 * 60 * 60 * 1000,
  heartbeatIntervalMs: 5 * 60 * 1000,
  cleanupIntervalMs: 24 * 60 * 60 * 1000,
  maxMessagesPerWindow: 10000,
  maxBytesPerWindow: 64 * 1024 * 1024,
  rateWindowMs: 60 * 1000,
  peerListPageSize: 500,
  peerListMaxPageSize: 500,
  retryAfterMs: 60 * 1000,
};

function parseArgs(argv) {
  const out = { host: "127.0.0.1", port: 0, verbose: false, overrides: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fatal(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "--host") out.host = value();
    else if (arg === "--port") out.port = Number(value());
    else if (arg === "--verbose") out.verbose = true;
    else if (arg === "--limit") {
      const [name, raw] = value().split("=");
      if (!(name in DEFAULTS)) fatal(`unknown limit ${name}`);
      out.overrides[name] = Number(raw);
    } else fatal(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) fatal("bad --port");
  return out;
}

function resolveLimits(overrides) {
  const limits = {};
  for (const name of Object.keys(DEFAULTS)) {
    const v = name in overrides ? overrides[name] : DEFAULTS[name];
    if (!Number.isSafeInteger(v) || v <= 0) fatal(`${name} must be a positive safe integer`);
    if (v > CEILINGS[name]) fatal(`${name} exceeds hard maximum ${CEILINGS[name]}`);
    limits[name] = v;
  }
  const pairs = [
    ["maxQueueSize", "maxTotalMessages"],
    ["maxQueueBytes", "maxTotalQueueBytes"],
    ["peerListPageSize", "peerListMaxPageSize"],
    ["maxDeviceInfoBytes", "maxMessageBytes"],
  ];
  for (const [small, big] of pairs) {
    if (limits[small] > limits[big]) fatal(`${small} cannot exceed ${big}`);
  }
  return Object.freeze(limits);
}

function fatal(text) {
  process.stderr.write(`relay: ${text}\n`);
  process.exit(2);
}

const jsonBytes = (value) => Buffer.byteLength(JSON.stringify(value), "utf8");

// ---------------------------------------------------------------------------
// RFC 6455 server endpoint. Behaves like the `ws` package (v8) the relay runs on,
// configured as the relay configures it: maxPayload = maxMessageBytes, no
// permessage-deflate, auto-pong, every client frame must be masked.

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const OP_CONT = 0x0, OP_TEXT = 0x1, OP_BINARY = 0x2, OP_CLOSE = 0x8, OP_PING = 0x9, OP_PONG = 0xa;
const CLOSE_WAIT_MS = 30 * 1000; // how long a closing handshake may take before the socket is destroyed

function closeCodeAllowed(code) {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999);
}

function encodeFrame(opcode, payload) {
  const len = payload.length;
  let header;
  if (len < 126) {
    header = Buffer.from([0x80 | opcode, len]);
  } else if (len < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeUInt32BE(Math.floor(len / 0x100000000), 2);
    header.writeUInt32BE(len >>> 0, 6);
  }
  return Buffer.concat([header, payload]);
}

class Endpoint {
  constructor(socket, maxPayload, handlers, log) {
    this.socket = socket;
    this.maxPayload = maxPayload;
    this.handlers = handlers; // { message(buf, isBinary), close() }
    this.log = log;
    this.state = "open"; // open -> closing -> closed
    this.closeSent = false;
    this.closeReceived = false;
    this.reading = true;
    this.alive = true;
    this.chunks = [];
    this.available = 0;
    this.frame = null; // header of the frame being read
    this.fragments = null; // { opcode, parts, length } while a message is fragmented
    this.closeTimer = null;

    socket.setNoDelay(true);
    socket.setTimeout(0);
    socket.on("data", (chunk) => this.onData(chunk));
    socket.on("error", (err) => this.log(`socket error: ${err.message}`));
    socket.on("end", () => { if (!this.socket.destroyed) this.socket.end(); });
    socket.on("close", () => {
      clearTimeout(this.closeTimer);
      const wasClosed = this.state === "closed";
      this.state = "closed";
      if (!wasClosed) this.handlers.close();
    });
  }

  get bufferedAmount() {
    return this.socket.writableLength;
  }

  sendText(text) {
    if (this.state !== "open") return false;
    this.socket.write(encodeFrame(OP_TEXT, Buffer.from(text, "utf8")));
    return true;
  }

  ping() {
    if (this.state === "open") this.socket.write(encodeFrame(OP_PING, Buffer.alloc(0)));
  }

  // Server-initiated close: send the close frame, wait for the peer's one.
  close(code, reason = "") {
    if (this.state !== "open") return;
    this.state = "closing";
    this.writeClose(code, reason);
    if (this.closeReceived) this.socket.end();
    else this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
  }

  terminate() {
    this.socket.destroy();
  }

  writeClose(code, reason) {
    if (this.closeSent) return;
    this.closeSent = true;
    let payload = Buffer.alloc(0);
    if (code !== undefined) {
      const text = Buffer.from(reason, "utf8");
      payload = Buffer.alloc(2 + text.length);
      payload.writeUInt16BE(code, 0);
      text.copy(payload, 2);
    }
    this.socket.write(encodeFrame(OP_CLOSE, payload));
  }

  // Protocol violation: close with the code and stop reading (as `ws` does).
  fail(code, why) {
    this.log(`protocol error (${code}): ${why}`);
    this.reading = false;
    this.chunks = [];
    this.available = 0;
    if (this.state === "open") this.state = "closing";
    this.writeClose(code, "");
    this.socket.end();
    this.closeTimer = this.closeTimer || setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
  }

  onData(chunk) {
    if (!this.reading) return;
    this.chunks.push(chunk);
    this.available += chunk.length;
    while (this.reading && this.step()) { /* keep parsing */ }
  }

  take(n) {
    if (n === 0) return Buffer.alloc(0);
    let first = this.chunks[0];
    if (first.length < n) {
      first = Buffer.concat(this.chunks, this.available);
      this.chunks = [first];
    }
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.available -= n;
    return out;
  }

  peekByte(i) {
    let offset = i;
    for (const c of this.chunks) {
      if (offset < c.length) return c[offset];
      offset -= c.length;
    }
    return undefined;
  }

  // Parses one header or one payload; returns false when more bytes are needed.
  step() {
    if (this.frame === null) {
      if (this.available < 2) return false;
      const b0 = this.peekByte(0);
      const b1 = this.peekByte(1);
      const fin = (b0 & 0x80) !== 0;
      const opcode = b0 & 0x0f;
      if (b0 & 0x30) { this.fail(1002, "RSV2 and RSV3 must be clear"); return false; }
      if (b0 & 0x40) { this.fail(1002, "RSV1 must be clear"); return false; }
      const control = opcode >= 0x8;
      if (opcode === OP_CONT) {
        if (!this.fragments) { this.fail(1002, "invalid opcode 0"); return false; }
      } else if (opcode === OP_TEXT || opcode === OP_BINARY) {
        if (this.fragments) { this.fail(1002, `invalid opcode ${opcode}`); return false; }
      } else if (opcode === OP_CLOSE || opcode === OP_PING || opcode === OP_PONG) {
        if (!fin) { this.fail(1002, "FIN must be set"); return false; }
        if ((b1 & 0x7f) > 125) { this.fail(1002, `invalid payload length ${b1 & 0x7f}`); return false; }
      } else {
        this.fail(1002, `invalid opcode ${opcode}`);
        return false;
      }
      if ((b1 & 0x80) === 0) { this.fail(1002, "MASK must be set"); return false; }
      const lenCode = b1 & 0x7f;
      const extra = lenCode === 126 ? 2 : lenCode === 127 ? 8 : 0;
      if (this.available < 2 + extra + 4) return false;
      const head = this.take(2 + extra + 4);
      let length = lenCode;
      if (lenCode === 126) length = head.readUInt16BE(2);
      else if (lenCode === 127) {
        const high = head.readUInt32BE(2);
        if (high > 0x1fffff) { this.fail(1009, "payload length > 2^53 - 1"); return false; }
        length = high * 0x100000000 + head.readUInt32BE(6);
      }
      if (!control) {
        const total = (this.fragments ? this.fragments.length : 0) + length;
        if (total > this.maxPayload) { this.fail(1009, "Max payload size exceeded"); return false; }
      }
      this.frame = { fin, opcode, length, mask: head.subarray(2 + extra, 2 + extra + 4) };
      return true;
    }
    const f = this.frame;
    if (this.available < f.length) return false;
    const payload = Buffer.from(this.take(f.length)); // own copy, unmasked in place
    for (let i = 0; i < payload.length; i++) payload[i] ^= f.mask[i & 3];
    this.frame = null;
    this.onFrame(f.fin, f.opcode, payload);
    return true;
  }

  onFrame(fin, opcode, payload) {
    if (opcode === OP_PING) {
      if (this.state === "open") this.socket.write(encodeFrame(OP_PONG, payload));
      return;
    }
    if (opcode === OP_PONG) {
      this.alive = true;
      return;
    }
    if (opcode === OP_CLOSE) {
      this.onCloseFrame(payload);
      return;
    }
    if (opcode !== OP_CONT) this.fragments = { opcode, parts: [], length: 0 };
    const msg = this.fragments;
    msg.parts.push(payload);
    msg.length += payload.length;
    if (!fin) return;
    this.fragments = null;
    const data = Buffer.concat(msg.parts, msg.length);
    if (msg.opcode === OP_TEXT && !isUtf8(data)) {
      this.fail(1007, "invalid UTF-8 sequence");
      return;
    }
    this.handlers.message(data, msg.opcode === OP_BINARY);
  }

  onCloseFrame(payload) {
    let code;
    let reason = "";
    if (payload.length === 1) { this.fail(1002, "invalid payload length 1"); return; }
    if (payload.length >= 2) {
      code = payload.readUInt16BE(0);
      if (!closeCodeAllowed(code)) { this.fail(1002, `invalid status code ${code}`); return; }
      const text = payload.subarray(2);
      if (!isUtf8(text)) { this.fail(1007, "invalid UTF-8 sequence"); return; }
      reason = text.toString("utf8");
    }
    this.closeReceived = true;
    this.reading = false;
    if (this.state === "open") this.state = "closing";
    this.writeClose(code, reason); // echoes the peer's code and reason; empty when none was given
    this.socket.end();
    if (!this.closeTimer) this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
  }
}

function rejectHandshake(socket, status, message, extraHeaders = {}) {
  const body = message || http.STATUS_CODES[status];
  const headers = {
    Connection: "close",
    "Content-Type": "text/html",
    "Content-Length": Buffer.byteLength(body),
    ...extraHeaders,
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${lines.join("\r\n")}\r\n\r\n${body}`);
  socket.destroy();
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// Returns the chosen subprotocol ("" when none was offered), or null after rejecting.
function checkHandshake(req, socket) {
  const key = req.headers["sec-websocket-key"];
  const upgrade = req.headers.upgrade;
  const version = Number(req.headers["sec-websocket-version"]);
  if (req.method !== "GET") { rejectHandshake(socket, 405, "Invalid HTTP method"); return null; }
  if (!upgrade || upgrade.toLowerCase() !== "websocket") {
    rejectHandshake(socket, 400, "Invalid Upgrade header");
    return null;
  }
  if (!key || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    rejectHandshake(socket, 400, "Missing or invalid Sec-WebSocket-Key header");
    return null;
  }
  if (version !== 8 && version !== 13) {
    rejectHandshake(socket, 400, "Missing or invalid Sec-WebSocket-Version header", {
      "Sec-WebSocket-Version": "13, 8",
    });
    return null;
  }
  const offered = req.headers["sec-websocket-protocol"];
  if (offered === undefined) return "";
  const names = offered.split(",").map((s) => s.trim());
  if (names.some((n) => !TOKEN.test(n)) || new Set(names).size !== names.length) {
    rejectHandshake(socket, 400, "Invalid Sec-WebSocket-Protocol header");
    return null;
  }
  return names[0]; // no protocol handler configured: the first offered one is echoed
}

// ---------------------------------------------------------------------------
// Offline store (offline-message-store.js): bounded per peer and in total, never
// evicts an older message to admit a new one, delivered on the target's register.

class OfflineStore {
  constructor(limits) {
    this.limits = limits;
    this.queues = new Map(); // peerId -> [{ messageId, message, storedAt, size }]
    this.count = 0;
    this.bytes = 0;
    this.sequence = 0;
  }

  overloaded(reason) {
    return { ok: false, code: "OVERLOADED", reason, retryAfterMs: this.limits.retryAfterMs };
  }

  add(peerId, message, now = Date.now()) {
    const L = this.limits;
    if (typeof peerId !== "string" || peerId === "" || Buffer.byteLength(peerId) > L.maxPeerIdBytes) {
      return { ok: false, code: "INVALID_MESSAGE", reason: "INVALID_TARGET_PEER" };
    }
    const size = jsonBytes(message);
    const queue = this.queues.get(peerId);
    const queued = queue ? queue.reduce((sum, e) => sum + e.size, 0) : 0;
    if (!queue && this.queues.size >= L.maxQueuePeers) return this.overloaded("OFFLINE_PEER_LIMIT");
    if (queue && queue.length >= L.maxQueueSize) return this.overloaded("PEER_MESSAGE_LIMIT");
    if (this.count >= L.maxTotalMessages) return this.overloaded("TOTAL_MESSAGE_LIMIT");
    if (queued + size > L.maxQueueBytes) return this.overloaded("PEER_BYTE_LIMIT");
    if (this.bytes + size > L.maxTotalQueueBytes) return this.overloaded("TOTAL_BYTE_LIMIT");
    const entry = { messageId: `offline_${now}_${++this.sequence}`, message, storedAt: now, size };
    if (queue) queue.push(entry);
    else this.queues.set(peerId, [entry]);
    this.count++;
    this.bytes += size;
    return { ok: true, messageId: entry.messageId };
  }

  pending(peerId) {
    return [...(this.queues.get(peerId) || [])];
  }

  remove(peerId, messageId) {
    const queue = this.queues.get(peerId);
    if (!queue) return;
    const at = queue.findIndex((e) => e.messageId === messageId);
    if (at < 0) return;
    const [gone] = queue.splice(at, 1);
    this.count--;
    this.bytes -= gone.size;
    if (queue.length === 0) this.queues.delete(peerId);
  }

  expire(now = Date.now()) {
    for (const [peerId, queue] of [...this.queues]) {
      for (const e of queue.filter((x) => now - x.storedAt >= this.limits.messageTTL)) {
        this.remove(peerId, e.messageId);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The relay (index.js, class SignalingServer).

const FORWARDED_AS_IS = new Set([
  "offer", "answer", "ice-candidate", "ice-candidates",
  "pairing:request", "pairing:confirmation", "pairing:reject",
]);

class Relay {
  constructor(limits, log) {
    this.limits = limits;
    this.log = log;
    this.connections = new Set(); // admitted connections
    this.every = new Set(); // every upgraded connection, admitted or not (heartbeat)
    this.peers = new Map(); // peerId -> { conn, deviceType, deviceInfo, connectedAt }
    this.store = new OfflineStore(limits);
    this.nextConnection = 0;
  }

  accept(endpoint, remote) {
    const conn = {
      id: ++this.nextConnection,
      endpoint,
      peerId: null,
      window: { startedAt: Date.now(), messages: 0, bytes: 0 },
    };
    this.every.add(conn);
    if (this.connections.size >= this.limits.maxConnections) {
      this.log(`#${conn.id} from ${remote} refused: at capacity`);
      endpoint.handlers = { message: () => {}, close: () => this.every.delete(conn) };
      this.overload(conn, "CONNECTION_LIMIT");
      endpoint.close(1013, "Server at capacity");
      return;
    }
    this.connections.add(conn);
    this.log(`#${conn.id} connected from ${remote}`);
    endpoint.handlers = {
      message: (data) => this.onFrame(conn, data),
      close: () => this.onGone(conn),
    };
  }

  // --- outbound

  send(conn, message) {
    const ep = conn.endpoint;
    if (ep.state !== "open") return false;
    if (ep.bufferedAmount > this.limits.maxBufferedAmount) {
      ep.close(1013, "Slow consumer");
      return false;
    }
    const text = JSON.stringify(message);
    if (Buffer.byteLength(text, "utf8") > this.limits.maxMessageBytes) {
      this.log(`dropped an outbound ${message.type} over the byte limit`);
      return false;
    }
    return ep.sendText(text);
  }

  error(conn, error, details = {}) {
    return this.send(conn, { type: "error", error, ...details, timestamp: Date.now() });
  }

  overload(conn, reason, retryAfterMs = this.limits.retryAfterMs) {
    return this.error(conn, "Signaling server is overloaded", { code: "OVERLOADED", reason, retryAfterMs });
  }

  // --- inbound

  onFrame(conn, data) {
    try {
      if (data.length > this.limits.maxMessageBytes) {
        this.error(conn, "Signaling message exceeds the byte limit", { code: "MESSAGE_TOO_LARGE" });
        conn.endpoint.close(1009, "Message too large");
        return;
      }
      if (!this.withinRate(conn, data.length)) return;
      this.dispatch(conn, JSON.parse(data.toString("utf8")));
    } catch (err) {
      this.log(`#${conn.id} unreadable frame: ${err.message}`);
      this.error(conn, "Invalid message format", { code: "INVALID_MESSAGE" });
    }
  }

  withinRate(conn, bytes) {
    const w = conn.window;
    const now = Date.now();
    if (now - w.startedAt >= this.limits.rateWindowMs) {
      w.startedAt = now;
      w.messages = 0;
      w.bytes = 0;
    }
    w.messages++;
    w.bytes += bytes;
    if (w.messages <= this.limits.maxMessagesPerWindow && w.bytes <= this.limits.maxBytesPerWindow) {
      return true;
    }
    this.overload(conn, "RATE_LIMIT");
    conn.endpoint.close(1013, "Rate limit exceeded");
    return false;
  }

  dispatch(conn, msg) {
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      this.error(conn, "Signaling message must be an object", { code: "INVALID_MESSAGE" });
      return;
    }
    if (msg.type === "register") return this.register(conn, msg);
    if (msg.type === "ping") return this.send(conn, { type: "pong", timestamp: Date.now() });
    if (!conn.peerId) {
      this.error(conn, "Register before sending signaling messages", { code: "REGISTRATION_REQUIRED" });
      return;
    }
    if (msg.to !== undefined &&
        (typeof msg.to !== "string" || Buffer.byteLength(msg.to, "utf8") > this.limits.maxPeerIdBytes)) {
      this.error(conn, "Target peerId is invalid or exceeds the byte limit", { code: "INVALID_MESSAGE" });
      return;
    }
    if (FORWARDED_AS_IS.has(msg.type)) return this.relaySignal(conn, msg);
    if (msg.type === "message") return this.relayMessage(conn, msg);
    if (msg.type === "get-peers") return this.listPeers(conn, msg);
    this.error(conn, `Unknown message type: ${msg.type}`, { code: "UNKNOWN_MESSAGE_TYPE" });
  }

  register(conn, msg) {
    const { peerId } = msg;
    const deviceInfo = msg.deviceInfo === undefined ? {} : msg.deviceInfo;
    const deviceType = msg.deviceType === undefined ? "unknown" : msg.deviceType;
    const refuse = (why) => this.error(conn, why, { code: "INVALID_REGISTRATION" });
    if (typeof peerId !== "string" || peerId.length === 0) return refuse("peerId is required");
    if (Buffer.byteLength(peerId, "utf8") > this.limits.maxPeerIdBytes) return refuse("peerId exceeds the byte limit");
    if (typeof deviceType !== "string") return refuse("deviceType must be a string");
    if (jsonBytes({ deviceInfo, deviceType }) > this.limits.maxDeviceInfoBytes) {
      return refuse("device metadata exceeds the byte limit");
    }
    if (conn.peerId && conn.peerId !== peerId) return refuse("A connection cannot change peerId");

    const previous = this.peers.get(peerId);
    conn.peerId = peerId;
    this.peers.set(peerId, { conn, deviceInfo, deviceType, connectedAt: Date.now() });
    if (previous && previous.conn !== conn) previous.conn.endpoint.close(1000, "Replaced by reconnect");
    this.log(`#${conn.id} registered ${peerId}${previous ? " (again)" : ""}`);

    this.send(conn, { type: "registered", peerId, serverTime: Date.now(), isReconnect: Boolean(previous) });
    this.flushOffline(peerId);
    this.announce(peerId, "online", { deviceType, deviceInfo });
  }

  relaySignal(conn, msg) {
    if (typeof msg.to !== "string" || msg.to.length === 0) {
      this.error(conn, 'Missing "to" field', { code: "INVALID_MESSAGE" });
      return;
    }
    this.deliver(conn, msg.to, { ...msg, from: conn.peerId, timestamp: Date.now() });
  }

  relayMessage(conn, msg) {
    if (typeof msg.to !== "string" || msg.to.length === 0 || msg.payload === undefined) {
      this.error(conn, 'Missing "to" or "payload" field', { code: "INVALID_MESSAGE" });
      return;
    }
    this.deliver(conn, msg.to, { type: "message", from: conn.peerId, payload: msg.payload, timestamp: Date.now() });
  }

  deliver(sender, to, outbound) {
    const target = this.peers.get(to);
    if (target && target.conn.endpoint.state === "open") {
      this.send(target.conn, outbound); // no acknowledgement to the sender
      return;
    }
    const stored = this.store.add(to, outbound);
    if (!stored.ok) {
      if (stored.code === "OVERLOADED") this.overload(sender, stored.reason, stored.retryAfterMs);
      else this.error(sender, "Invalid signaling message", { code: stored.code, reason: stored.reason });
      return;
    }
    this.send(sender, { type: "peer-offline", peerId: to, messageId: stored.messageId, timestamp: Date.now() });
  }

  listPeers(conn, msg) {
    const L = this.limits;
    const wantCursor = Number(msg.cursor || 0);
    const cursor = Number.isSafeInteger(wantCursor) && wantCursor >= 0 ? wantCursor : 0;
    const wantLimit = Number(msg.limit || L.peerListPageSize);
    const limit = Number.isSafeInteger(wantLimit) && wantLimit > 0
      ? Math.min(wantLimit, L.peerListMaxPageSize)
      : L.peerListPageSize;
    const others = [];
    for (const [peerId, p] of this.peers) {
      if (peerId !== conn.peerId) {
        others.push({ peerId, deviceType: p.deviceType, deviceInfo: p.deviceInfo, connectedAt: p.connectedAt });
      }
    }
    const page = [];
    for (let i = cursor; i < others.length && page.length < limit; i++) {
      if (jsonBytes({ type: "peers-list", peers: [...page, others[i]] }) > L.maxMessageBytes) break;
      page.push(others[i]);
    }
    const next = cursor + page.length < others.length ? cursor + page.length : null;
    this.send(conn, {
      type: "peers-list", peers: page, count: page.length, total: others.length,
      cursor, nextCursor: next, timestamp: Date.now(),
    });
  }

  flushOffline(peerId) {
    const p = this.peers.get(peerId);
    if (!p || p.conn.endpoint.state !== "open") return;
    for (const entry of this.store.pending(peerId)) {
      const sent = this.send(p.conn, {
        type: "offline-message", originalMessage: entry.message,
        storedAt: entry.storedAt, deliveredAt: Date.now(),
      });
      if (!sent) break; // kept for the next registration
      this.store.remove(peerId, entry.messageId);
    }
  }

  announce(peerId, status, extra = {}) {
    const note = { type: "peer-status", peerId, status, ...extra, timestamp: Date.now() };
    for (const [other, p] of this.peers) {
      if (other !== peerId) this.send(p.conn, note);
    }
  }

  onGone(conn) {
    this.every.delete(conn);
    if (!this.connections.delete(conn)) return;
    this.log(`#${conn.id} closed${conn.peerId ? ` (${conn.peerId})` : ""}`);
    const current = conn.peerId && this.peers.get(conn.peerId);
    if (current && current.conn === conn) {
      this.peers.delete(conn.peerId);
      this.announce(conn.peerId, "offline");
    }
  }

  heartbeat() {
    for (const conn of this.every) {
      const ep = conn.endpoint;
      if (!ep.alive) {
        ep.terminate();
        continue;
      }
      ep.alive = false;
      ep.ping();
    }
  }
}

// ---------------------------------------------------------------------------

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const limits = resolveLimits(opts.overrides);
  const log = opts.verbose ? (text) => process.stderr.write(`[relay] ${text}\n`) : () => {};
  const relay = new Relay(limits, log);

  const server = http.createServer((req, res) => {
    const body = http.STATUS_CODES[426];
    res.writeHead(426, { "Content-Length": body.length, "Content-Type": "text/plain" });
    res.end(body);
  });
  server.on("clientError", (err, socket) => {
    log(`client error: ${err.message}`);
    socket.destroy();
  });
  server.on("upgrade", (req, socket, head) => {
    socket.on("error", () => {});
    if (!socket.readable || !socket.writable) {
      socket.destroy();
      return;
    }
    const protocol = checkHandshake(req, socket);
    if (protocol === null) return;
    const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + GUID).digest("base64");
    const lines = [
      "HTTP/1.1 101 Switching Protocols",
      "Upgrade: websocket",
      "Connection: Upgrade",
      `Sec-WebSocket-Accept: ${accept}`,
    ];
    if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    const endpoint = new Endpoint(socket, limits.maxMessageBytes, { message() {}, close() {} }, log);
    relay.accept(endpoint, `${socket.remoteAddress}:${socket.remotePort}`);
    if (head && head.length) endpoint.onData(head);
  });
  server.on("error", (err) => fatal(`listen failed: ${err.message}`));

  const heartbeat = setInterval(() => relay.heartbeat(), limits.heartbeatIntervalMs);
  const cleanup = setInterval(() => relay.store.expire(), limits.cleanupIntervalMs);

  server.listen(opts.port, opts.host, () => {
    process.stdout.write(`listening ${server.address().port}\n`);
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearInterval(heartbeat);
    clearInterval(cleanup);
    server.close();
    for (const conn of relay.every) conn.endpoint.close(1001, "Server shutdown");
    // Give the close frames a moment to leave, then go.
    setTimeout(() => process.exit(0), 100).unref();
    setImmediate(() => {
      if ([...relay.every].every((c) => c.endpoint.socket.writableLength === 0)) process.exit(0);
    });
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main();
