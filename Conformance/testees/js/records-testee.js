#!/usr/bin/env node
'use strict';
// A records-family testee for the conformance kit, in JavaScript (Node 20, standard library only).
//
// WHAT THIS IS
//   A template for teams that want their sync code graded by `conformance run`. It speaks the
//   testee protocol (Conformance/testee-protocol.md: one JSON object per line on stdin, one answer
//   per line on stdout, logs on stderr) and implements the whole records family of
//   Spec/records.md: the CloudKit record kinds (Idea, Habit, HabitLog, CD_Card, CD_CardField,
//   CD_CardAttachment), records checked against an app's Core Data model (mirrored-record), the
//   local documents (sync-state, sync-log), conflict resolution (conflict), the model checker
//   (model, xcdatamodel: records-model.js beside this file) and the five sans-I/O machines
//   (idea-sync, log-retention, sync-queue, initial-sync, record-zone). Documents are read under
//   the strict wire profile of Spec/core.md (strict-json.js, shared with the pairing template).
//   It was written from the Spec, the protocol documents and the vectors; see "WHAT THE DOCS DID
//   NOT SAY" below.
//
//   Run it:
//     conformance run --family records --peer "exec:node Conformance/testees/js/records-testee.js"
//
// HOW TO ADAPT IT TO YOUR IMPLEMENTATION
//   1. Keep the protocol part (section 1); change IMPLEMENTATION to your name and version.
//   2. List what you implement in KINDS and MACHINES (names from Conformance/families.json). A
//      kind or machine left out is reported "not implemented", never failed: start with one.
//   3. Replace the checkers with calls into your code. A document kind receives the exact bytes
//      and the request's context and returns the canonical form (plain objects, declared members
//      only, "not given" optionals left out) or throws:
//        - `new Violation(rule, pointer)` (strict-json.js) for one violation: the first failing
//          check (local documents, conflicts);
//        - `new Rejection([violations])` for records and models, which report every independent
//          violation (Spec/core.md "Order of checks"): `Findings` below collects them group by
//          group, the first failing check of each group.
//      Map your own error type to {rule, path} in one adapter; leave the rest of this file alone.
//   4. A machine is a factory (context) → {step(event) → actions, state() → JSON, deadline()?}:
//      wrap your state machine in one, the runner compares each step's state and actions member by
//      member. A machine that keeps time also gives deadline(): when it next needs a tick (an
//      integer, or null for never); it asks for no timer.
//   5. Throw `new InvalidRequest(reason)` when the context lacks what you need (context.model for
//      mirrored-record), `new Unsupported(reason)` for what you have not written yet.
//
// WHAT THE DOCS DID NOT SAY: nothing now. What this file first learned from the vectors is stated
// in Spec/records.md (sections 1, 2, 3, 7 and 8).

const readline = require('node:readline');
const { Violation, parseStrict, pointer, jsonType, toPlain, canonicalText } = require('./strict-json.js');
const {
  XmlError, modelFromJson, modelFromXml, modelFromContext, checkModel, recordTypes,
} = require('./records-model.js');

// ---------------------------------------------------------------------------------------------
// 1. The testee protocol
// ---------------------------------------------------------------------------------------------

const IMPLEMENTATION = 'js records testee template 1.0 (Node ' + process.versions.node + ')';
const FAMILIES = ['records'];
const KINDS = null; // all of them; e.g. ['Idea', 'sync-state'] to narrow
const MACHINES = null; // all of them; e.g. ['idea-sync'] to narrow, [] for none

class Unsupported extends Error {}
class InvalidRequest extends Error {}

/** Every independent violation of one document (records and models), in the Spec's order. */
class Rejection extends Error {
  constructor(violations) {
    super(violations.map((v) => `${v.rule} at "${v.path}"`).join(', '));
    this.violations = violations;
  }
}

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
        protocol: 1, implementation: IMPLEMENTATION, families: FAMILIES,
        ...(KINDS ? { kinds: KINDS } : {}), ...(MACHINES ? { machines: MACHINES } : {}),
      });
    case 'validate':
      return answerValidate(request);
    case 'run-machine':
      return answerMachine(request);
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
    const validate = request.family === 'records' ? RECORD_KINDS[request.kind] : undefined;
    if (!validate) throw new Unsupported(`kind ${request.family}/${request.kind} not implemented`);
    if (typeof request.document !== 'string') throw new InvalidRequest('no document');
    const canonical = validate(Buffer.from(request.document, 'base64'), request.context || {});
    // The canonical form is written as JCS text; the runner compares it as a JSON value.
    process.stdout.write(`{"case":${JSON.stringify(id)},"outcome":"accept","canonical":${canonicalText(canonical)}}\n`);
  } catch (e) {
    const violations = e instanceof Violation ? [e] : e instanceof Rejection ? e.violations : null;
    if (violations) return answer({ case: id, outcome: 'reject', violations: violations.map(({ path, rule }) => ({ path, rule })) });
    return answerFailure(id, e);
  }
}

function answerMachine(request) {
  const id = request.case;
  try {
    const start = request.family === 'records' ? RECORD_MACHINES[request.machine] : undefined;
    if (!start) throw new Unsupported(`machine ${request.family}/${request.machine} not implemented`);
    if (!Array.isArray(request.events)) throw new InvalidRequest('no events');
    const machine = start(request.context || {});
    const steps = request.events.map((event) => {
      const actions = machine.step(event);
      const step = { state: machine.state(), actions };
      if (machine.deadline) step.deadline = machine.deadline();
      return step;
    });
    return answer({ case: id, outcome: 'trace', steps });
  } catch (e) {
    return answerFailure(id, e);
  }
}

function answerFailure(id, e) {
  if (e instanceof InvalidRequest) return answer({ case: id, outcome: 'invalid-request', reason: e.message });
  if (e instanceof Unsupported) return answer({ case: id, outcome: 'unsupported', reason: e.message });
  console.error(`${id}: ${e && e.stack ? e.stack : e}`); // a bug in the testee: say so, don't guess
  return answer({ case: id, outcome: 'unsupported', reason: `internal error: ${e && e.message}` });
}

function main() {
  // Split on \n only (readline's default): strings may carry U+2028 raw.
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
// 2. Violations, typed members (Spec/core.md) and the shared value rules (Spec/records.md 1-2)
// ---------------------------------------------------------------------------------------------

const SIZE_LIMIT = 1048576; // CORE-JSON-004: 1 MiB, records state no other limit

function fail(rule, path) {
  throw new Violation(rule, path);
}

/** Collects every independent violation: each `group` is one independent check (a metadata
 * member, a field), whose first failing check is recorded and ends that group only. */
class Findings {
  constructor() {
    this.list = [];
  }
  group(check) {
    try {
      return check();
    } catch (e) {
      if (!(e instanceof Violation)) throw e;
      this.list.push(e);
      return undefined;
    }
  }
  get ok() {
    return this.list.length === 0;
  }
  throwIfAny() {
    if (this.list.length > 0) throw new Rejection(this.list);
  }
}

/** A document under the wire profile whose root must be an object (CORE-TYPE-003 at ""). */
function parseDocument(bytes) {
  const doc = parseStrict(bytes, SIZE_LIMIT);
  if (jsonType(doc) !== 'object') fail('CORE-TYPE-003', '');
  return doc;
}

const own = (object, name) => Object.prototype.hasOwnProperty.call(object, name);

/**
 * Member `name` of `object` (the value at pointer `at`): present (CORE-TYPE-001), not null
 * (CORE-TYPE-002), its JSON type (CORE-TYPE-003, -004). `type` is 'string', 'integer', 'number',
 * 'boolean', 'object' or 'array'. Returns the value (numbers as Numbers), or undefined for an
 * optional member not given (absent or null).
 */
function member(object, at, name, type, required) {
  const path = pointer(at, name);
  if (!own(object, name) || object[name] === null) {
    if (required) fail(own(object, name) ? 'CORE-TYPE-002' : 'CORE-TYPE-001', path);
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
  if (actual !== type) fail('CORE-TYPE-003', path);
  return type === 'number' ? value.value : value;
}

/** Drops undefined members, so "not given" optionals are omitted from the canonical form. */
function compact(object) {
  for (const k of Object.keys(object)) if (object[k] === undefined) delete object[k];
  return object;
}

// Unicode White_Space (PropList.txt): "non-blank" means something else than these.
const WHITE_SPACE = /^[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$/;
const isBlank = (s) => WHITE_SPACE.test(s);
/** Section 1: lengths count Unicode scalar values (a string iterates by code point). */
const scalarCount = (s) => [...s].length;
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const isUuid = (s) => /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/.test(s);
/** Printable ASCII, 0x21-0x7E: no space (REC-REC-001, REC-REC-006). */
const isPrintableAscii = (s) => /^[\x21-\x7E]*$/.test(s);

/** REC-REC-001: a record name (also a REFERENCE's, a to-one relationship's, a CDMR part). */
function checkRecordName(name, path) {
  if (!(name.length >= 1 && name.length <= 255 && isPrintableAscii(name) && !name.startsWith('_'))) fail('REC-REC-001', path);
}

/** REC-TIME-001: CloudKit timestamps are epoch milliseconds in [10^12, 10^13). */
function checkEpochMillis(t, path) {
  if (!(t >= 1e12 && t < 1e13)) fail('REC-TIME-001', path);
}

/** REC-TIME-002: `YYYY-MM-DDTHH:MM:SS.sssZ`, a real date and time. Returns epoch ms or null. */
function isoMillis(s) {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})Z$/.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, sec, ms] = m.slice(1).map(Number);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (!(mo >= 1 && mo <= 12 && d >= 1 && d <= days && h < 24 && mi < 60 && sec < 60)) return null;
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, sec, ms));
  date.setUTCFullYear(y); // Date.UTC maps years 0-99 to 1900-1999
  return date.getTime();
}
const iso = (ms) => new Date(ms).toISOString(); // REC-TIME-002's form, as machines write it

/** An ISO time member of a local document (REC-TIME-002). Returns the text, or undefined. */
function isoMember(doc, at, name, required) {
  const s = member(doc, at, name, 'string', required);
  if (s !== undefined && isoMillis(s) === null) fail('REC-TIME-002', pointer(at, name));
  return s;
}

/** Standard base64 (RFC 4648 section 4, padded), as REC-REC-003 requires of BYTES. */
const isBase64 = (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s);

const DAY_MS = 86400000;
const THIRTY_DAYS_MS = 2592000000; // REC-STATE-002, REC-SLOG-002

/** Whether `t` starts a calendar day in IANA zone `zone` (Calendar.startOfDay: the first instant
 * of its date, so a day that starts at 01:00 after a DST gap is right). */
const dayFormats = new Map();
function startsDayIn(t, zone) {
  if (!dayFormats.has(zone)) {
    try {
      dayFormats.set(zone, new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }));
    } catch (e) {
      throw new InvalidRequest(`context.timeZone ${JSON.stringify(zone)} is not an IANA time zone`);
    }
  }
  const format = dayFormats.get(zone);
  const date = (ms) => {
    const p = Object.fromEntries(format.formatToParts(ms).map((x) => [x.type, x.value]));
    return `${p.year.padStart(4, '0')}-${p.month}-${p.day}`;
  };
  return date(t - 1) < date(t); // the instant before is on an earlier date
}

// ---------------------------------------------------------------------------------------------
// 3. The CloudKit record (Spec/records.md section 2)
// ---------------------------------------------------------------------------------------------

// REC-REC-003: CloudKit's field types; ENCRYPTED_ forms for all but references and assets.
const BASE_TYPES = ['STRING', 'INT64', 'DOUBLE', 'TIMESTAMP', 'BYTES', 'REFERENCE', 'ASSETID', 'LOCATION'];
function isCloudKitType(type) {
  const m = /^(ENCRYPTED_)?([A-Z0-9]+?)(_LIST)?$/.exec(type);
  if (!m || !BASE_TYPES.includes(m[2])) return false;
  return !(m[1] && (m[2] === 'REFERENCE' || m[2] === 'ASSETID'));
}

const REFERENCE_ACTIONS = ['NONE', 'DELETE_SELF', 'VALIDATE'];

/** The members CloudKit Web Services defines for each dictionary value: the canonical form keeps
 * those given and drops the rest (CORE-MEMBER-001). */
const DICTIONARY_MEMBERS = {
  REFERENCE: ['recordName', 'action'],
  ASSETID: ['fileChecksum', 'size', 'referenceChecksum', 'wrappingKey', 'receipt', 'downloadURL'],
  LOCATION: ['latitude', 'longitude', 'horizontalAccuracy', 'verticalAccuracy', 'altitude', 'speed', 'course', 'timestamp'],
};
const declaredMembers = (type, value) =>
  Object.fromEntries(DICTIONARY_MEMBERS[type].filter((k) => own(value, k) && value[k] !== null).map((k) => [k, toPlain(value[k])]));

/** REC-REC-003: a value of its field's stated type; returns its canonical (plain) form. JSON
 * type errors are the core rules' (CORE-TYPE-003, CORE-TYPE-004), timestamps REC-TIME-001. */
function checkValue(type, value, path) {
  const base = type.replace(/^ENCRYPTED_/, '');
  if (base.endsWith('_LIST')) {
    if (jsonType(value) !== 'array') fail('CORE-TYPE-003', path);
    return value.map((v, i) => checkScalar(base.slice(0, -5), v, pointer(path, i)));
  }
  return checkScalar(base, value, path);
}

function checkScalar(type, value, path) {
  switch (type) {
    case 'STRING':
      return typed(value, 'string', path);
    case 'INT64':
      return typed(value, 'integer', path); // within ±(2^53 − 1): CORE-TYPE-004
    case 'DOUBLE':
      return typed(value, 'number', path);
    case 'TIMESTAMP': {
      const t = typed(value, 'integer', path);
      checkEpochMillis(t, path);
      return t;
    }
    case 'BYTES':
      if (!isBase64(typed(value, 'string', path))) fail('REC-REC-003', path);
      return value;
    case 'REFERENCE': {
      typed(value, 'object', path);
      const recordName = member(value, path, 'recordName', 'string', true);
      checkRecordName(recordName, pointer(path, 'recordName'));
      const action = member(value, path, 'action', 'string', false);
      if (action !== undefined && !REFERENCE_ACTIONS.includes(action)) fail('REC-REC-003', pointer(path, 'action'));
      return declaredMembers(type, value);
    }
    case 'ASSETID': {
      typed(value, 'object', path);
      member(value, path, 'fileChecksum', 'string', true);
      if (member(value, path, 'size', 'integer', true) < 0) fail('REC-REC-003', pointer(path, 'size'));
      return declaredMembers(type, value);
    }
    case 'LOCATION': {
      typed(value, 'object', path);
      if (Math.abs(member(value, path, 'latitude', 'number', true)) > 90) fail('REC-REC-003', pointer(path, 'latitude'));
      if (Math.abs(member(value, path, 'longitude', 'number', true)) > 180) fail('REC-REC-003', pointer(path, 'longitude'));
      return declaredMembers(type, value);
    }
    default:
      throw new Error(`unreachable type ${type}`);
  }
}

/**
 * One field `{value, type}` checked against its FieldSpec, first failing check first (Spec
 * records.md 8.2 "One field"):
 *   {name, types: [accepted CloudKit types], plainTypes?: [types that leak a cloud-encrypted
 *    attribute, REC-ENC-002], required, asset (a `_ckAsset` form exists), sealed (REC-ENC-001),
 *    rules: [(value, path, context) => void], default: {value, type} for an absent field}
 * Returns the canonical {value, type}.
 */
function checkField(field, spec, path, context) {
  const typePath = pointer(path, 'type');
  // REC-ENC-001 before any type rule: an encrypted field whose type is not BYTES (a STRING above
  // all) is plaintext on its way to iCloud.
  const stated = jsonType(field) === 'object' && typeof field.type === 'string' ? field.type : undefined;
  if (spec.sealed && stated !== undefined && !stated.endsWith('BYTES')) fail('REC-ENC-001', typePath);
  if (jsonType(field) !== 'object') fail('CORE-TYPE-003', path);
  const type = member(field, path, 'type', 'string', true);
  if (!isCloudKitType(type)) fail('REC-REC-003', typePath);
  const valuePath = pointer(path, 'value');
  if (!own(field, 'value') || field.value === null) fail(own(field, 'value') ? 'CORE-TYPE-002' : 'CORE-TYPE-001', valuePath);
  const value = checkValue(type, field.value, valuePath); // the value of its own type first ...
  if (!spec.types.includes(type)) { // ... then the type the model declares
    fail(spec.plainTypes && spec.plainTypes.includes(type) ? 'REC-ENC-002' : 'REC-REC-004', typePath);
  }
  for (const rule of spec.rules || []) rule(value, valuePath, context); // ciphertext size, then the model's rules
  return { value, type };
}

/** The `_ckAsset` form of a variable-length field (REC-CD-002): an ASSETID, content unseen. */
const ASSET_SPEC = { types: ['ASSETID'] };

/**
 * A record (section 2) of the type `resolveType(recordType, path)` gives, at pointer `at` (""
 * for a document, "/local" inside a conflict). Order: recordName, recordType (nothing else can
 * be read without them), then each independent group: recordChangeTag, created, modified,
 * deleted, zoneID, each field in declaration order, undeclared fields; then, when all passed and
 * the record is not deleted, the first failing cross-field rule. Returns the canonical form or
 * throws a Rejection (Spec/records.md 8.2).
 */
function checkRecord(doc, at, resolveType, context) {
  if (jsonType(doc) !== 'object') fail('CORE-TYPE-003', at);
  const recordName = member(doc, at, 'recordName', 'string', true);
  checkRecordName(recordName, pointer(at, 'recordName'));
  const recordType = member(doc, at, 'recordType', 'string', true);
  const type = resolveType(recordType, pointer(at, 'recordType')); // REC-REC-002
  const record = { recordName, recordType };
  const findings = new Findings();
  findings.group(() => {
    record.recordChangeTag = member(doc, at, 'recordChangeTag', 'string', false);
    const tag = record.recordChangeTag;
    if (tag !== undefined && !(tag.length >= 1 && tag.length <= 256 && isPrintableAscii(tag))) fail('REC-REC-006', pointer(at, 'recordChangeTag'));
  });
  findings.group(() => { record.created = recordTime(doc, at, 'created'); });
  findings.group(() => {
    record.modified = recordTime(doc, at, 'modified');
    if (record.modified && record.created && record.modified.timestamp < record.created.timestamp) {
      fail('REC-REC-007', pointer(pointer(at, 'modified'), 'timestamp'));
    }
  });
  findings.group(() => { record.deleted = member(doc, at, 'deleted', 'boolean', false); });
  findings.group(() => { record.zoneID = zone(doc, at); });
  const deleted = record.deleted === true; // a tombstone carries no fields (REC-REC-005)
  if (!deleted) delete record.deleted; // the canonical form keeps `deleted` only when true
  findings.group(() => {
    const fields = member(doc, at, 'fields', 'object', !deleted);
    if (fields !== undefined) record.fields = checkFields(fields, pointer(at, 'fields'), type, findings, context, deleted);
  });
  if (findings.ok && record.fields && !deleted) { // cross-field rules: the first failing one
    findings.group(() => (type.crossRules || []).forEach((rule) => rule(record, at, context)));
  }
  findings.throwIfAny();
  return compact(record);
}

/** `created` / `modified`: {timestamp (REC-TIME-001), userRecordName?, deviceID?}. */
function recordTime(doc, at, name) {
  const value = member(doc, at, name, 'object', false);
  if (value === undefined) return undefined;
  const path = pointer(at, name);
  const timestamp = member(value, path, 'timestamp', 'integer', true);
  checkEpochMillis(timestamp, pointer(path, 'timestamp'));
  return compact({
    timestamp,
    userRecordName: member(value, path, 'userRecordName', 'string', false),
    deviceID: member(value, path, 'deviceID', 'string', false),
  });
}

/** `zoneID`: {zoneName (REC-REC-008: 1 to 255 UTF-8 bytes), ownerRecordName?}. */
function zone(doc, at) {
  const value = member(doc, at, 'zoneID', 'object', false);
  if (value === undefined) return undefined;
  const path = pointer(at, 'zoneID');
  const zoneName = member(value, path, 'zoneName', 'string', true);
  const bytes = Buffer.byteLength(zoneName, 'utf8');
  if (bytes < 1 || bytes > 255) fail('REC-REC-008', pointer(path, 'zoneName'));
  return compact({ zoneName, ownerRecordName: member(value, path, 'ownerRecordName', 'string', false) });
}

/** The fields of a record: declared ones in declaration order (each after its `_ckAsset` form
 * when it has one), then the fields the type does not declare (`extraField`: dropped unless the
 * type reports them). A field whose value is `null` is absent. */
function checkFields(fields, at, type, findings, context, deleted) {
  const out = {};
  const declared = new Set();
  for (const spec of type.fields) {
    const assetName = spec.asset ? `${spec.name}_ckAsset` : undefined;
    declared.add(spec.name);
    if (assetName) declared.add(assetName);
    const given = own(fields, spec.name) && fields[spec.name] !== null;
    const assetGiven = assetName !== undefined && own(fields, assetName) && fields[assetName] !== null;
    findings.group(() => { // one field: its asset form first, then the value Core Data imports
      if (assetGiven) out[assetName] = checkField(fields[assetName], ASSET_SPEC, pointer(at, assetName), context);
      if (given) out[spec.name] = checkField(fields[spec.name], spec, pointer(at, spec.name), context);
    });
    if (!given && !assetGiven && !deleted) {
      if (spec.required) findings.group(() => fail('REC-REC-005', pointer(at, spec.name)));
      else if (spec.default) out[spec.name] = spec.default; // shown in the canonical form
    }
  }
  for (const name of Object.keys(fields)) {
    // A null field is an absent one (CORE-TYPE-002): nothing to judge.
    if (!declared.has(name) && type.extraField && fields[name] !== null) {
      findings.group(() => {
        const kept = type.extraField(name, fields[name], pointer(at, name), context);
        if (kept !== undefined) out[name] = kept;
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// 4. The record kinds (Spec/records.md section 3): REPLACE THESE with calls into your code
// ---------------------------------------------------------------------------------------------

/** A FieldSpec; `opts` overrides (required: true unless said). */
const field = (name, type, opts = {}) => ({ name, types: [type], required: true, ...opts });

// Field rules: (value, path, context) => void, throwing a Violation. A string's rules run
// non-blank first, then its length (a blank title of 300 spaces is the model's rule).
const nonBlank = (rule) => (s, path) => { if (isBlank(s)) fail(rule, path); };
const maxScalars = (limit) => (s, path) => { if (scalarCount(s) > limit) fail('REC-LEN-001', path); };
const oneOf = (values, rule) => (v, path) => { if (!values.includes(v)) fail(rule, path); };
const atLeast = (min, rule) => (v, path) => { if (v < min) fail(rule, path); };
const uuid = (rule) => (s, path) => { if (!isUuid(s)) fail(rule, path); };
const recordName = (s, path) => checkRecordName(s, path); // a to-one relationship (REC-REC-001)

// Cross-field rules: (record, at, context) => void; they run when every field passed, in order,
// and the first failing one is reported.
/** `later` not before `earlier` (both given), reported at `later`'s value. */
const notBefore = (later, earlier, rule) => (record, at) => {
  const f = record.fields;
  if (f[later] && f[earlier] && f[later].value < f[earlier].value) fail(rule, `${at}/fields/${later}/value`);
};

/** Idea (seed 001 "CloudKit 映射"): REC-IDEA-001, REC-IDEA-002, REC-LEN-001. */
const IDEA = {
  fields: [
    field('id', 'STRING', { rules: [uuid('REC-IDEA-001')] }),
    field('title', 'STRING', { rules: [nonBlank('REC-IDEA-002'), maxScalars(256)] }),
    field('description', 'STRING', { required: false, rules: [maxScalars(4096)] }),
    field('isCompleted', 'INT64', { rules: [oneOf([0, 1], 'REC-IDEA-002')] }),
    field('createdAt', 'TIMESTAMP'),
    field('updatedAt', 'TIMESTAMP'),
    field('deviceId', 'STRING', { rules: [nonBlank('REC-IDEA-002'), maxScalars(256)] }),
    field('version', 'INT64', { rules: [atLeast(0, 'REC-IDEA-002')] }),
    field('lastSyncedAt', 'TIMESTAMP', { required: false }),
  ],
  crossRules: [
    notBefore('updatedAt', 'createdAt', 'REC-IDEA-002'),
    (record, at) => { // REC-IDEA-001: one idea is one record, named by its id (UUID case ignored)
      if (asciiLower(record.recordName) !== asciiLower(record.fields.id.value)) fail('REC-IDEA-001', `${at}/recordName`);
    },
  ],
};

/** REC-HABIT-001: an emoji is 1 to 16 scalars (one emoji, ZWJ sequences included). */
const emoji = (s, path) => { const n = scalarCount(s); if (n < 1 || n > 16) fail('REC-HABIT-001', path); };

/** Habit (seed 004 §3): REC-HABIT-001, REC-LEN-001; maxCheckInCount defaults to 5. */
const HABIT = {
  fields: [
    field('name', 'STRING', { rules: [nonBlank('REC-HABIT-001'), maxScalars(256)] }),
    field('emoji', 'STRING', { rules: [emoji] }),
    field('colorTheme', 'STRING', { rules: [nonBlank('REC-HABIT-001'), maxScalars(64)] }),
    field('habitType', 'STRING', { rules: [oneOf(['Checkbox', 'Count'], 'REC-HABIT-001')] }),
    field('createdAt', 'TIMESTAMP'),
    field('backgroundColor', 'STRING', { required: false, rules: [(s, path) => { if (!/^#[0-9A-Fa-f]{6}$/.test(s)) fail('REC-HABIT-001', path); }] }),
    field('maxCheckInCount', 'INT64', { required: false, default: { value: 5, type: 'INT64' }, rules: [atLeast(1, 'REC-HABIT-001')] }),
    field('updatedAt', 'TIMESTAMP', { required: false }),
    field('isArchived', 'INT64', { required: false, rules: [oneOf([0, 1], 'REC-HABIT-001')] }),
  ],
  crossRules: [notBefore('updatedAt', 'createdAt', 'REC-HABIT-001')],
};

/** REC-HLOG-002, the field's rule: some zone's midnight, a multiple of 900,000 ms (UTC offsets
 * are whole quarter hours, so every such instant is midnight somewhere). */
const quarterHour = (t, path) => { if (t % 900000 !== 0) fail('REC-HLOG-002', path); };

/** REC-HLOG-002, across the record and its context: with the writer's zone (context.timeZone)
 * known, the date is that zone's start of the day, or UTC midnight. */
function dayStartInZone(record, at, context) {
  const t = record.fields.date.value;
  if (context.timeZone === undefined || context.timeZone === null || t % DAY_MS === 0) return;
  if (!startsDayIn(t, context.timeZone)) fail('REC-HLOG-002', `${at}/fields/date/value`);
}

/** HabitLog (seed 004 §3): REC-HLOG-001 (a reference whose action is NONE or DELETE_SELF; a
 * missing action is NONE), REC-HABIT-001 (count ≥ 0), REC-HLOG-002. */
const HABIT_LOG = {
  fields: [
    field('habit', 'REFERENCE', {
      rules: [(ref, path) => { if (ref.action === 'VALIDATE') fail('REC-HLOG-001', pointer(path, 'action')); }],
    }),
    field('date', 'TIMESTAMP', { rules: [quarterHour] }),
    field('count', 'INT64', { rules: [atLeast(0, 'REC-HABIT-001')] }),
    field('createdAt', 'TIMESTAMP', { required: false }),
    field('updatedAt', 'TIMESTAMP', { required: false }),
  ],
  crossRules: [notBefore('updatedAt', 'createdAt', 'REC-HABIT-001'), dayStartInZone],
};

/** QuickVault's mirrored types (seed 003): CD_ names, REC-CD-001 (CD_entityName is the entity,
 * ids UUIDs, titles and file names non-blank, orders ≥ 0), REC-ENC-001 on the encrypted fields
 * (BYTES of at least 28 bytes, or their `_ckAsset` form). Other fields pass unchecked, dropped. */
const entityName = (name) => field('CD_entityName', 'STRING', { rules: [oneOf([name], 'REC-CD-001')] });
const cdId = () => field('CD_id', 'STRING', { rules: [uuid('REC-CD-001')] });
const cdCard = () => field('CD_card', 'STRING', { required: false, rules: [recordName] }); // a to-one relationship
const sealedBytes = (name, required) => field(name, 'BYTES', {
  required, sealed: true, asset: true,
  rules: [(b64, path) => { if (Buffer.from(b64, 'base64').length < 28) fail('REC-ENC-001', path); }], // 12-byte nonce + 16-byte tag
});
const CD_CARD = {
  fields: [
    entityName('Card'), cdId(),
    field('CD_title', 'STRING', { rules: [nonBlank('REC-CD-001'), maxScalars(256)] }),
    field('CD_createdAt', 'TIMESTAMP'), field('CD_updatedAt', 'TIMESTAMP'),
  ],
  crossRules: [notBefore('CD_updatedAt', 'CD_createdAt', 'REC-CD-001')],
};
const CD_CARD_FIELD = {
  fields: [
    entityName('CardField'), cdId(), cdCard(),
    field('CD_label', 'STRING', { rules: [maxScalars(256)] }),
    sealedBytes('CD_encryptedValue', true),
    field('CD_order', 'INT64', { rules: [atLeast(0, 'REC-CD-001')] }),
  ],
};
const CD_CARD_ATTACHMENT = {
  fields: [
    entityName('CardAttachment'), cdId(), cdCard(),
    field('CD_fileName', 'STRING', { rules: [nonBlank('REC-CD-001'), maxScalars(255)] }),
    sealedBytes('CD_encryptedData', false),
    field('CD_fileType', 'STRING', { required: false }),
  ],
};

/** The Spec's own record types (REC-REC-002). */
const BUILT_IN_TYPES = {
  Idea: IDEA, Habit: HABIT, HabitLog: HABIT_LOG, CD_Card: CD_CARD, CD_CardField: CD_CARD_FIELD, CD_CardAttachment: CD_CARD_ATTACHMENT,
};

/** REC-REC-002 for a document checked as kind `kind`: its type MUST be that kind. */
const asKind = (kind) => (recordType, path) => {
  if (recordType !== kind) fail('REC-REC-002', path);
  return BUILT_IN_TYPES[kind];
};

/** REC-REC-002 for a record of any of the Spec's types (a conflict's sides). */
function anyBuiltInType(recordType, path) {
  if (!own(BUILT_IN_TYPES, recordType)) fail('REC-REC-002', path);
  return BUILT_IN_TYPES[recordType];
}

/** context.timeZone, when given, must be a zone identifier: else the request is unusable. */
function checkTimeZoneContext(context) {
  if (context.timeZone !== undefined && context.timeZone !== null) startsDayIn(DAY_MS, String(context.timeZone));
}

function recordKind(kind) {
  return (bytes, context) => {
    checkTimeZoneContext(context);
    return checkRecord(parseDocument(bytes), '', asKind(kind), context);
  };
}

// --- mirrored-record: types derived from the app's Core Data model (records-model.js) ---------

const CDMR_FIELDS = ['CD_entityNames', 'CD_recordNames', 'CD_relationships'];

/** mirrored-record: a CD_ record checked against context.model (REC-REC-002, REC-CD-001..003,
 * REC-ENC-002); context.strictFields reports fields the model lacks (REC-CD-002). */
function mirroredRecord(bytes, context) {
  checkTimeZoneContext(context);
  if (context.model === undefined || context.model === null) throw new InvalidRequest('context has no model (the app\'s Core Data model)');
  let types;
  try {
    types = recordTypes(modelFromContext(context.model));
  } catch (e) {
    if (e instanceof Violation || e instanceof XmlError) throw new InvalidRequest(`context.model is not a model: ${e.message}`);
    throw e;
  }
  const strict = context.strictFields === true;
  const resolve = (recordType, path) => {
    const derived = types.get(recordType);
    if (!derived) fail('REC-REC-002', path); // not CD_<root> of a mirrored entity, nor CDMR
    return derived.kind === 'cdmr' ? cdmrType(derived, strict) : entityType(derived, strict);
  };
  return checkRecord(parseDocument(bytes), '', resolve, context);
}

/** CD_moveReceipt: Core Data's zone-move receipt, on every entity's type, BYTES or an asset
 * (REC-CD-002), declared last. */
const MOVE_RECEIPT = field('CD_moveReceipt', 'BYTES', { required: false, asset: true });

/** A CD_<root> type: the model's fields (records-model.js describeFields), CD_entityName naming
 * an entity of the hierarchy (REC-CD-001), CD_moveReceipt last, and REC-CD-002 for the rest. */
function entityType(derived, strict) {
  const fields = derived.fields.map((f) => {
    if (f.name === 'CD_entityName') return { ...f, rules: [oneOf(derived.entityNames, 'REC-CD-001')] };
    return f.recordName ? { ...f, rules: [recordName] } : f;
  });
  return { fields: [...fields, MOVE_RECEIPT], extraField: coreDataExtraField(derived.properties, strict) };
}

/**
 * REC-CD-002 for a field the type does not declare. Always reported: a name without CD_, the
 * CDMR fields, a to-many relationship, the `_ckAsset` of a property that is not a variable-length
 * attribute. A CD_ name that is no property may be a newer app version's field: ignored and left
 * out of the canonical form, or reported when the model is the writer's newest (strict).
 */
function coreDataExtraField(properties, strict) {
  return (name, value, path) => {
    if (!name.startsWith('CD_') || CDMR_FIELDS.includes(name)) fail('REC-CD-002', path);
    const asset = name.endsWith('_ckAsset');
    const kind = properties.get(name.slice(3, asset ? -'_ckAsset'.length : undefined));
    if (kind === undefined) { // no property of the hierarchy: perhaps a newer version's attribute
      if (strict) fail('REC-CD-002', path);
      return undefined; // ignored, left out of the canonical form
    }
    if (asset || kind === 'to-many') fail('REC-CD-002', path); // Core Data never writes these
    return undefined; // (a declared field or asset never gets here)
  };
}

/** REC-CD-003: two non-empty parts joined by one `:`. */
function twoParts(s, path) {
  const parts = s.split(':');
  if (parts.length !== 2 || parts.some((p) => p === '')) fail('REC-CD-003', path);
  return parts;
}

/**
 * CDMR (REC-CD-003): the three link fields, required STRINGs whose values are two parts:
 * entity names CloudKit mirrors, record names (REC-REC-001); then, across fields, for each i a
 * to-many relationship r_i of E_i (declared or inherited), r2 the inverse of r1.
 */
function cdmrType(derived, strict) {
  const entities = (s, path) => { if (!twoParts(s, path).every((p) => derived.mirrored.has(p))) fail('REC-CD-003', path); };
  const records = (s, path) => twoParts(s, path).forEach((p) => checkRecordName(p, path));
  const relationshipPair = (record, at) => {
    const [e1, e2] = record.fields.CD_entityNames.value.split(':');
    const [r1, r2] = record.fields.CD_relationships.value.split(':');
    const rel1 = derived.toMany(derived.mirrored.get(e1), r1);
    const rel2 = derived.toMany(derived.mirrored.get(e2), r2);
    if (!rel1 || !rel2 || rel1.inverse !== r2) fail('REC-CD-003', `${at}/fields/CD_relationships/value`);
  };
  return {
    fields: [
      field('CD_entityNames', 'STRING', { rules: [entities] }),
      field('CD_recordNames', 'STRING', { rules: [records] }),
      field('CD_relationships', 'STRING', { rules: [twoParts] }),
    ], // "and no other field" (REC-CD-003): CDMR has exactly these three in every version
    crossRules: [relationshipPair],
    extraField: (name, value, path) => fail('REC-CD-002', path),
  };
}

// ---------------------------------------------------------------------------------------------
// 5. Local documents (Spec/records.md section 4): the first failing check is reported
// ---------------------------------------------------------------------------------------------

/** sync-state: members in the Spec's order, then REC-SYNC-002's consistency. */
function syncState(doc, at = '') {
  const ideaId = member(doc, at, 'ideaId', 'string', true);
  if (!isUuid(ideaId)) fail('REC-SYNC-001', pointer(at, 'ideaId'));
  const version = (name, required) => {
    const v = member(doc, at, name, 'integer', required);
    if (v !== undefined && v < 0) fail('REC-SYNC-001', pointer(at, name));
    return v;
  };
  const state = { ideaId, localVersion: version('localVersion', true), remoteVersion: version('remoteVersion', false) };
  state.cloudKitRecordName = member(doc, at, 'cloudKitRecordName', 'string', false);
  if (state.cloudKitRecordName !== undefined) checkRecordName(state.cloudKitRecordName, pointer(at, 'cloudKitRecordName'));
  state.lastSyncedAt = isoMember(doc, at, 'lastSyncedAt', false);
  state.lastConflictAt = isoMember(doc, at, 'lastConflictAt', false);
  state.lastModifiedAt = isoMember(doc, at, 'lastModifiedAt', true);
  state.isPendingSync = member(doc, at, 'isPendingSync', 'boolean', true);
  state.isObsolete = member(doc, at, 'isObsolete', 'boolean', true);
  state.conflictResolutionStrategy = member(doc, at, 'conflictResolutionStrategy', 'string', true);
  if (state.conflictResolutionStrategy !== 'lastWrite') fail('REC-SYNC-001', pointer(at, 'conflictResolutionStrategy'));
  // REC-SYNC-002: a successful sync sets all three; reported at the first one missing.
  const results = ['remoteVersion', 'cloudKitRecordName', 'lastSyncedAt'];
  const synced = results.some((k) => state[k] !== undefined);
  if (synced) results.forEach((k) => { if (state[k] === undefined) fail('REC-SYNC-002', pointer(at, k)); });
  if (!synced && !state.isPendingSync) fail('REC-SYNC-002', pointer(at, 'isPendingSync'));
  if (synced && state.remoteVersion > state.localVersion) fail('REC-SYNC-002', pointer(at, 'remoteVersion'));
  return compact(state);
}

const EVENT_TYPES = ['sync_success', 'sync_failure', 'conflict', 'retry'];

/** sync-log: REC-SLOG-001 (UUIDs, the four event types, details as JSON text, deviceId
 * non-blank), REC-TIME-002. Also log-retention's check of each appended entry. */
function syncLog(doc, at = '') {
  const uuidMember = (name) => {
    const s = member(doc, at, name, 'string', true);
    if (!isUuid(s)) fail('REC-SLOG-001', pointer(at, name));
    return s;
  };
  const entry = { id: uuidMember('id'), ideaId: uuidMember('ideaId') };
  entry.eventType = member(doc, at, 'eventType', 'string', true);
  if (!EVENT_TYPES.includes(entry.eventType)) fail('REC-SLOG-001', pointer(at, 'eventType'));
  entry.timestamp = isoMember(doc, at, 'timestamp', true);
  entry.details = member(doc, at, 'details', 'string', false);
  if (entry.details !== undefined) {
    try {
      parseStrict(Buffer.from(entry.details, 'utf8'), SIZE_LIMIT); // JSON text under the wire profile
    } catch (e) {
      if (e instanceof Violation) fail('REC-SLOG-001', pointer(at, 'details'));
      throw e;
    }
  }
  entry.deviceId = member(doc, at, 'deviceId', 'string', true);
  if (isBlank(entry.deviceId)) fail('REC-SLOG-001', pointer(at, 'deviceId'));
  entry.errorCode = member(doc, at, 'errorCode', 'integer', false);
  return compact(entry);
}

const localDocument = (check) => (bytes) => check(parseDocument(bytes));

// ---------------------------------------------------------------------------------------------
// 6. Conflicts (Spec/records.md section 6): {strategy, ancestor?, local, server} → the record to
//    save. The first failing check is reported.
// ---------------------------------------------------------------------------------------------

const STRATEGIES = ['lastWrite', 'keepLocal', 'keepServer', 'merge'];

function conflict(bytes) {
  const doc = parseDocument(bytes);
  const strategy = member(doc, '', 'strategy', 'string', true);
  if (!STRATEGIES.includes(strategy)) fail('REC-CONF-003', '/strategy');
  const sides = {};
  for (const side of ['ancestor', 'local', 'server']) { // each side is a record of its own type
    const value = member(doc, '', side, 'object', side !== 'ancestor');
    if (value === undefined) continue;
    try { // against the Spec's types, without the writer's zone (Spec/records.md 8.5)
      sides[side] = checkRecord(value, `/${side}`, anyBuiltInType, {});
    } catch (e) {
      if (e instanceof Rejection) throw e.violations[0];
      throw e;
    }
  }
  const { ancestor, local, server } = sides;
  // REC-CONF-001: the three records are the same record (name and type).
  const sameRecord = (a, b, at) => {
    if (a.recordName !== b.recordName || a.recordType !== b.recordType) fail('REC-CONF-001', `${at}/recordName`);
  };
  sameRecord(local, server, '/server');
  if (ancestor) sameRecord(local, ancestor, '/ancestor');
  let winner, record;
  if (strategy === 'lastWrite') {
    winner = lastWriteWinner(local, server);
    record = winner === 'local' ? local : server;
  } else if (strategy === 'keepLocal') { // REC-CONF-003: a forced save of the local fields
    [winner, record] = ['local', local];
  } else if (strategy === 'keepServer') { // REC-CONF-003: the local change is dropped
    [winner, record] = ['server', server];
  } else {
    if (!ancestor) fail('REC-CONF-004', '/ancestor'); // a merge needs the ancestor
    [winner, record] = ['merged', { ...local, fields: mergeFields(ancestor.fields, local.fields, server.fields) }];
  }
  // The save carries the server's change tag, so that it succeeds.
  record = compact({ ...record, recordChangeTag: server.recordChangeTag });
  return { record, winner, events: [{ eventType: 'conflict', winner }] };
}

/** REC-CONF-002: the later write wins (`updatedAt`, else `modified.timestamp`); equal times: the
 * greater JCS text of the fields, byte by byte, so both devices pick the same one. */
function lastWriteWinner(local, server) {
  const writeTime = (r, side) => {
    const t = r.fields && r.fields.updatedAt ? r.fields.updatedAt.value : r.modified ? r.modified.timestamp : undefined;
    if (t === undefined) fail('REC-CONF-002', `/${side}/modified`); // cannot be ordered
    return t;
  };
  const [tl, ts] = [writeTime(local, 'local'), writeTime(server, 'server')];
  if (tl !== ts) return tl > ts ? 'local' : 'server';
  const text = (r) => Buffer.from(canonicalText(r.fields || {}), 'utf8');
  return Buffer.compare(text(local), text(server)) > 0 ? 'local' : 'server';
}

/** REC-CONF-004 (NSMergeByPropertyObjectTrumpMergePolicy): a field the client changed since the
 * ancestor (removal included) keeps the client's value; every other field takes the server's. */
function mergeFields(ancestor = {}, local = {}, server = {}) {
  const same = (a, b) => (a === undefined ? b === undefined : b !== undefined && canonicalText(a) === canonicalText(b));
  const merged = {};
  for (const name of new Set([...Object.keys(ancestor), ...Object.keys(local), ...Object.keys(server)])) {
    const value = same(local[name], ancestor[name]) ? server[name] : local[name];
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// 7. Models (Spec/records.md section 7): every finding, through records-model.js
// ---------------------------------------------------------------------------------------------

/** context.previous: the previous version, Xcode's XML as a string or the JSON form. */
function previousModel(context) {
  if (context.previous === undefined || context.previous === null) return undefined;
  try {
    return modelFromContext(context.previous);
  } catch (e) {
    if (e instanceof Violation || e instanceof XmlError) throw new InvalidRequest(`context.previous is not a model: ${e.message}`);
    throw e;
  }
}

/** The verdict on a model: every finding, or the canonical {entities: [names in model order]}. */
function modelVerdict(model, context) {
  const findings = checkModel(model, previousModel(context));
  if (findings.length > 0) throw new Rejection(findings);
  return { entities: model.entities.map((e) => e.name) };
}

/** model: the JSON form (a type error in it is a CORE-TYPE violation of the document). */
function modelKind(bytes, context) {
  return modelVerdict(modelFromJson(parseDocument(bytes)), context);
}

/** xcdatamodel: Xcode's `contents` XML; a file that is not such XML is a usage error. */
function xcdatamodelKind(bytes, context) {
  let model;
  try {
    model = modelFromXml(new TextDecoder('utf-8', { fatal: true }).decode(bytes)); // invalid UTF-8: a TypeError
  } catch (e) {
    if (e instanceof XmlError || e instanceof TypeError) throw new InvalidRequest(e instanceof XmlError ? e.message : `not an Xcode model: ${e.message}`);
    throw e;
  }
  return modelVerdict(model, context);
}

/** Each document kind: exact bytes + context → canonical form, or a Violation / Rejection. */
const RECORD_KINDS = {
  Idea: recordKind('Idea'),
  Habit: recordKind('Habit'),
  HabitLog: recordKind('HabitLog'),
  CD_Card: recordKind('CD_Card'),
  CD_CardField: recordKind('CD_CardField'),
  CD_CardAttachment: recordKind('CD_CardAttachment'),
  'mirrored-record': mirroredRecord,
  'sync-state': localDocument(syncState),
  'sync-log': localDocument(syncLog),
  conflict,
  model: modelKind,
  xcdatamodel: xcdatamodelKind,
};

// ---------------------------------------------------------------------------------------------
// 8. The machines (Spec/records.md sections 5, 6 and 8.7): sans-I/O, events in, state and actions
//    out. Each factory takes the context and returns {step(event) → actions, state() → JSON}; the
//    first state is never shown, each step's state is the one after its event.
// ---------------------------------------------------------------------------------------------

/** The events a machine knows and the members each needs, with their JavaScript types: another
 * event, or one lacking such a member, makes the request unusable (invalid-request). */
function checkEvent(e, known) {
  const needs = e !== null && typeof e === 'object' ? known[e.event] : undefined;
  if (!needs) throw new InvalidRequest(`unknown event ${JSON.stringify(e && e.event)}`);
  for (const [name, type] of Object.entries(needs)) {
    if (typeof e[name] !== type || e[name] === null) throw new InvalidRequest(`event ${e.event} without ${type} ${name}`);
  }
}

/** idea-sync (001 §2): the sync-state document through REC-STATE-001 and REC-STATE-002. */
const IDEA_SYNC_EVENTS = {
  'local-change': { at: 'number' },
  'sync-succeeded': { at: 'number', remoteVersion: 'number', recordName: 'string' },
  'sync-failed': { at: 'number', errorCode: 'number' },
  retry: { at: 'number' },
  conflict: { at: 'number' },
  tick: { at: 'number' },
};
function ideaSync(context) {
  if (typeof context.ideaId !== 'string' || typeof context.createdAt !== 'number') throw new InvalidRequest('context needs ideaId and createdAt');
  // REC-STATE-001: a new idea is pending at version 0, last modified when it was created.
  const s = {
    ideaId: context.ideaId, localVersion: 0, lastModifiedAt: iso(context.createdAt),
    isPendingSync: true, isObsolete: false, conflictResolutionStrategy: 'lastWrite',
  };
  let lastSynced; // epoch ms of lastSyncedAt
  const log = (eventType, at, extra = {}) => [{ action: 'log', eventType, timestamp: iso(at), ...extra }];
  const handlers = {
    'local-change': (e) => {
      Object.assign(s, { localVersion: s.localVersion + 1, isPendingSync: true, lastModifiedAt: iso(e.at) });
      return [];
    },
    'sync-succeeded': (e) => {
      // A version not yet made, or older than the last one synced, is dropped.
      const lastVersion = s.remoteVersion !== undefined ? s.remoteVersion : 0;
      if (e.remoteVersion > s.localVersion || e.remoteVersion < lastVersion) return [{ action: 'drop', rule: 'REC-STATE-001' }];
      Object.assign(s, { remoteVersion: e.remoteVersion, cloudKitRecordName: e.recordName, lastSyncedAt: iso(e.at), isPendingSync: false, isObsolete: false });
      lastSynced = e.at;
      return log('sync_success', e.at);
    },
    'sync-failed': (e) => log('sync_failure', e.at, { errorCode: e.errorCode }),
    retry: (e) => log('retry', e.at),
    conflict: (e) => {
      s.lastConflictAt = iso(e.at);
      return log('conflict', e.at);
    },
    tick: (e) => { // REC-STATE-002: pending for more than 30 days since the last sync, else creation
      const since = lastSynced !== undefined ? lastSynced : context.createdAt;
      if (!s.isPendingSync || s.isObsolete || e.at - since <= THIRTY_DAYS_MS) return [];
      s.isObsolete = true;
      return [{ action: 'obsolete', rule: 'REC-STATE-002' }];
    },
  };
  return {
    step(e) {
      checkEvent(e, IDEA_SYNC_EVENTS);
      return handlers[e.event](e);
    },
    deadline() { // REC-STATE-002: when a pending change turns obsolete; nothing else waits
      if (!s.isPendingSync || s.isObsolete) return null;
      return (lastSynced !== undefined ? lastSynced : context.createdAt) + THIRTY_DAYS_MS + 1;
    },
    state() { // the sync-state document's members, in section 4's order
      return compact({
        ideaId: s.ideaId, localVersion: s.localVersion, remoteVersion: s.remoteVersion, cloudKitRecordName: s.cloudKitRecordName,
        lastSyncedAt: s.lastSyncedAt, lastConflictAt: s.lastConflictAt, lastModifiedAt: s.lastModifiedAt,
        isPendingSync: s.isPendingSync, isObsolete: s.isObsolete, conflictResolutionStrategy: s.conflictResolutionStrategy,
      });
    },
  };
}

/** log-retention (001 §3): entries checked as sync-log (a bad one dropped with its first
 * violation), pruned at launch when more than 30 days old (REC-SLOG-002). */
const LOG_RETENTION_EVENTS = { append: { document: 'object' }, launch: { at: 'number' } };
function logRetention() {
  const entries = []; // {id, at}
  return {
    step(e) {
      checkEvent(e, LOG_RETENTION_EVENTS);
      if (e.event === 'append') {
        let entry;
        try {
          entry = syncLog(parseDocument(Buffer.from(JSON.stringify(e.document), 'utf8')));
        } catch (err) {
          if (err instanceof Violation) return [{ action: 'drop', rule: err.rule, path: err.path }];
          throw err;
        }
        entries.push({ id: entry.id, at: isoMillis(entry.timestamp) });
        return [];
      }
      const expired = entries.filter((x) => e.at - x.at > THIRTY_DAYS_MS); // exactly 30 days stays
      if (expired.length === 0) return [];
      expired.forEach((x) => entries.splice(entries.indexOf(x), 1));
      return [{ action: 'prune', ids: expired.map((x) => x.id), rule: 'REC-SLOG-002' }];
    },
    state: () => ({ entries: entries.map((x) => x.id) }),
  };
}

const BATCH_SIZE = 100; // REC-BATCH-001: changed ideas per save
const PAGE_SIZE = 50; // REC-BATCH-001: records per downloaded page

/** sync-queue (001 批量操作): REC-BATCH-001. An idea is pending from its change until a save
 * that started after its latest change succeeds; one save is in flight at a time. */
const SYNC_QUEUE_EVENTS = {
  change: { ideaId: 'string', at: 'number' }, flush: {}, uploaded: {}, 'upload-failed': {}, download: { total: 'number' },
};
function syncQueue() {
  const pending = new Map(); // ideaId → its latest change time
  let inFlight = new Map(); // ideaId → the change time the save in flight carries
  const nextBatch = () => {
    if (inFlight.size > 0) return []; // one save at a time
    // Oldest change first; equal times by ideaId in code point order (UTF-8 byte order is that
    // order; JavaScript's `<` compares UTF-16 units, which differs above U+FFFF).
    const order = [...pending].sort(([a, ta], [b, tb]) => ta - tb || Buffer.compare(Buffer.from(a), Buffer.from(b)));
    if (order.length === 0) return [];
    inFlight = new Map(order.slice(0, BATCH_SIZE));
    const deferred = order.length - inFlight.size;
    const upload = { action: 'upload', ideaIds: [...inFlight.keys()] };
    return [deferred > 0 ? { ...upload, deferred, rule: 'REC-BATCH-001' } : upload];
  };
  const handlers = {
    change: (e) => {
      pending.set(e.ideaId, Math.max(e.at, pending.has(e.ideaId) ? pending.get(e.ideaId) : -Infinity));
      return [];
    },
    flush: () => nextBatch(),
    uploaded: () => { // saved, unless changed again (later) while in flight
      inFlight.forEach((at, id) => { if (pending.get(id) <= at) pending.delete(id); });
      inFlight = new Map();
      return nextBatch();
    },
    'upload-failed': () => { // still pending, sent again on the next flush
      inFlight = new Map();
      return [];
    },
    download: (e) => {
      const pages = [];
      for (let offset = 0; offset < e.total; offset += PAGE_SIZE) pages.push({ action: 'fetch-page', offset, limit: Math.min(PAGE_SIZE, e.total - offset) });
      return pages;
    },
  };
  return {
    step(e) {
      checkEvent(e, SYNC_QUEUE_EVENTS);
      return handlers[e.event](e);
    },
    state: () => ({ pending: pending.size, inFlight: inFlight.size }),
  };
}

/** initial-sync's operations (004 §4.1, §5) and the state that performs each one. */
const OPERATIONS = {
  checkingPurchase: 'restore-purchases',
  checkingAccount: 'fetch-account-status',
  querying: 'query-records',
  restoring: 'fetch-all-records',
  deletingCloud: 'delete-cloud-records',
};
const MAX_FAILURES = 6; // REC-INIT-002: retried after 1, 2, 4, 8, 16 s; the sixth failure ends it
const INITIAL_SYNC_EVENTS = {
  launched: { at: 'number', reinstall: 'boolean' }, 'pro-purchased': { at: 'number' }, 'purchase-restored': { at: 'number', pro: 'boolean' },
  'account-status': { at: 'number', available: 'boolean' }, 'query-result': { at: 'number', found: 'boolean' },
  'user-choice': { at: 'number', choice: 'string' }, succeeded: { at: 'number' }, failed: { at: 'number' }, tick: { at: 'number' },
};

/** initial-sync (004 §4.1, §5, §7): REC-INIT-001's order and REC-INIT-002's backoff. `failures`
 * counts the failures of the operation under way; another operation starts it again at 0. */
function initialSync() {
  let name = 'start';
  let failures = 0;
  let operation; // the last operation performed
  const perform = (next) => {
    if (OPERATIONS[next] !== operation) failures = 0;
    operation = OPERATIONS[next];
    name = next;
    return [{ action: 'perform', operation }];
  };
  const go = (next, actions = []) => { name = next; return actions; };
  const drop = () => [{ action: 'drop', rule: 'REC-INIT-001' }]; // out of order
  let retrying; // the state a retry goes back to
  let retryAt = null; // when, while waitingRetry
  const failed = (e) => { // REC-INIT-002: delay = min(60 s, 1 s · 2^(n−1)) after the n-th failure
    failures += 1;
    if (failures >= MAX_FAILURES) return go('failed', [{ action: 'show-error', code: 'sync-unavailable', rule: 'REC-INIT-002' }]);
    retrying = name;
    retryAt = e.at + Math.min(60000, 1000 * 2 ** (failures - 1));
    return go('waitingRetry');
  };
  const choose = (choices) => (e) => (choices[e.choice] || drop)();
  // Each state's events; any other event is out of order. `ready` and `failed` take none.
  const table = {
    start: { launched: (e) => (e.reinstall ? perform('checkingPurchase') : go('localOnly')) },
    localOnly: { 'pro-purchased': () => perform('checkingAccount') }, // a first install asks iCloud nothing
    checkingPurchase: { 'purchase-restored': (e) => (e.pro ? perform('checkingAccount') : go('localOnly')), failed },
    checkingAccount: {
      'account-status': (e) => (e.available ? perform('querying') : go('failed', [{ action: 'show-error', code: 'icloud-account-unavailable' }])),
      failed,
    },
    querying: { 'query-result': (e) => (e.found ? go('awaitingChoice', [{ action: 'prompt-restore' }]) : go('ready', [{ action: 'upload-local' }])), failed },
    awaitingChoice: { 'user-choice': choose({ restore: () => perform('restoring'), discard: () => perform('deletingCloud') }) },
    restoring: { succeeded: () => go('ready'), failed: () => go('restoreFailed', [{ action: 'prompt-retry-or-delete' }]) },
    restoreFailed: { 'user-choice': choose({ retry: () => perform('restoring'), delete: () => perform('deletingCloud') }) },
    deletingCloud: { succeeded: () => go('ready', [{ action: 'upload-local' }]), failed },
    waitingRetry: { tick: (e) => (e.at >= retryAt ? perform(retrying) : []) },
  };
  return {
    step(e) {
      checkEvent(e, INITIAL_SYNC_EVENTS);
      const handler = (table[name] || {})[e.event];
      if (handler) return handler(e);
      return e.event === 'tick' ? [] : drop(); // a tick with nothing due changes nothing
    },
    state: () => ({ name, failures }),
    deadline: () => (name === 'waitingRetry' ? retryAt : null),
  };
}

/** record-zone (section 6): the server's optimistic concurrency, REC-CONF-001. It stores what it
 * is sent, unchecked; saved versions are kept by tag, so a conflict can name the ancestor. */
const RECORD_ZONE_EVENTS = { save: { document: 'object' }, 'save-forced': { document: 'object' } };
function recordZone() {
  const current = new Map(); // recordName → its tag
  const versions = new Map(); // tag → the document saved with it
  let counter = 0;
  const save = (doc) => {
    const tag = `t${++counter}`; // t1, t2, … counting every save of the zone
    versions.set(tag, { ...doc, recordChangeTag: tag });
    current.set(doc.recordName, tag);
    return [{ action: 'saved', recordChangeTag: tag }];
  };
  return {
    step(e) {
      checkEvent(e, RECORD_ZONE_EVENTS);
      const doc = e.document;
      const tag = current.get(doc.recordName);
      // A new record, the current tag, or a forced save (004 §6 "设置 force 选项") is saved.
      if (e.event === 'save-forced' || tag === undefined || doc.recordChangeTag === tag) return save(doc);
      // The ancestor is this record's version the client's tag names: none for no tag, a tag the
      // zone never issued, or one it issued to another record.
      const named = typeof doc.recordChangeTag === 'string' ? versions.get(doc.recordChangeTag) : undefined;
      const ancestor = named && named.recordName === doc.recordName ? named : undefined;
      return [{ action: 'server-record-changed', client: doc, server: versions.get(tag), ancestor: ancestor || null, rule: 'REC-CONF-001' }];
    },
    state: () => ({ tags: Object.fromEntries(current) }),
  };
}

const RECORD_MACHINES = {
  'idea-sync': ideaSync,
  'log-retention': logRetention,
  'sync-queue': syncQueue,
  'initial-sync': initialSync,
  'record-zone': recordZone,
};

main();
