'use strict';
// The JSON wire profile of Spec/core.md ("Wire rules"), as a parser over the exact bytes.
//
// JSON.parse is not strict enough for the profile: it keeps the last of two members with the same
// name (CORE-JSON-003), accepts lone surrogate escapes (CORE-JSON-002), turns 1e400 into Infinity
// (CORE-JSON-006), has no depth bound (CORE-JSON-005), and works on a decoded string, so invalid
// UTF-8 has already been replaced by U+FFFD before it sees it. This parser reads the bytes once,
// in document order, and stops at the first violation, reported with the JSON Pointer (RFC 6901)
// of the member or element being read.
//
// Values: objects are null-prototype objects (so "__proto__" is an ordinary name), arrays are
// arrays, strings are strings, true/false/null are themselves, and numbers are JsonNumber, which
// keeps the literal as written (CORE-TYPE-004 needs it: 1.0 is not an integer literal).

/** A wire or member rule broken at a JSON Pointer: the first failing check of a document. */
class Violation extends Error {
  constructor(rule, path) {
    super(`${rule} at "${path}"`);
    this.rule = rule;
    this.path = path;
  }
}

/** A number as written in the document: `text` is the literal, `value` its IEEE 754 double. */
class JsonNumber {
  constructor(text) {
    this.text = text;
    this.value = Number(text);
  }
  /** CORE-TYPE-004: an integer literal (no fraction, no exponent) within ±(2^53 − 1). */
  isIntegerLiteral() {
    if (!/^-?(0|[1-9][0-9]*)$/.test(this.text)) return false;
    const big = BigInt(this.text);
    return big <= 9007199254740991n && big >= -9007199254740991n;
  }
}

const MAX_DEPTH = 64; // CORE-JSON-005: the root container is level 1.

/** JSON Pointer of member `name` (or element index) of the value at `path`. */
function pointer(path, name) {
  return path + '/' + String(name).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Parses `bytes` (a Buffer) under the wire profile. `sizeLimit` is the family's limit in bytes
 * (CORE-JSON-004: 65,536 for pairing). Returns the value or throws a Violation.
 */
function parseStrict(bytes, sizeLimit) {
  if (bytes.length > sizeLimit) throw new Violation('CORE-JSON-004', ''); // before parsing
  const p = new Parser(bytes);
  p.skipWhitespace();
  const value = p.readValue('', 1);
  p.skipWhitespace();
  if (p.i < bytes.length) p.fail('CORE-JSON-001', ''); // trailing data after the root
  return value;
}

class Parser {
  constructor(bytes) {
    this.b = bytes;
    this.i = 0;
  }

  fail(rule, path) {
    throw new Violation(rule, path);
  }

  skipWhitespace() {
    const b = this.b;
    while (this.i < b.length) {
      const c = b[this.i];
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }

  /** A value at `path`; `depth` is the level a container opened here would have. */
  readValue(path, depth) {
    const c = this.b[this.i]; // undefined at the end of input
    if (c === 0x7b) return this.readObject(path, depth); // {
    if (c === 0x5b) return this.readArray(path, depth); // [
    if (c === 0x22) return this.readString(path); // "
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber(path);
    if (c === 0x74) return this.readLiteral('true', true, path);
    if (c === 0x66) return this.readLiteral('false', false, path);
    if (c === 0x6e) return this.readLiteral('null', null, path);
    // BOM, NaN, '+1', single quotes, comments, a byte that is not JSON syntax, end of input.
    return this.fail('CORE-JSON-001', path);
  }

  readObject(path, depth) {
    if (depth > MAX_DEPTH) this.fail('CORE-JSON-005', path);
    this.i++; // {
    const object = Object.create(null);
    this.skipWhitespace();
    if (this.b[this.i] === 0x7d) { this.i++; return object; }
    for (;;) {
      // Between members, errors are reported at the enclosing object's pointer.
      if (this.b[this.i] !== 0x22) this.fail('CORE-JSON-001', path); // e.g. after a trailing comma
      const name = this.readString(path);
      const memberPath = pointer(path, name);
      if (Object.prototype.hasOwnProperty.call(object, name)) this.fail('CORE-JSON-003', memberPath);
      this.skipWhitespace();
      if (this.b[this.i] !== 0x3a) this.fail('CORE-JSON-001', memberPath); // :
      this.i++;
      this.skipWhitespace();
      object[name] = this.readValue(memberPath, depth + 1);
      this.skipWhitespace();
      const c = this.b[this.i];
      if (c === 0x2c) { this.i++; this.skipWhitespace(); continue; } // ,
      if (c === 0x7d) { this.i++; return object; } // }
      this.fail('CORE-JSON-001', path);
    }
  }

  readArray(path, depth) {
    if (depth > MAX_DEPTH) this.fail('CORE-JSON-005', path);
    this.i++; // [
    const array = [];
    this.skipWhitespace();
    if (this.b[this.i] === 0x5d) { this.i++; return array; }
    for (;;) {
      if (this.b[this.i] === 0x5d) this.fail('CORE-JSON-001', path); // trailing comma
      array.push(this.readValue(pointer(path, array.length), depth + 1));
      this.skipWhitespace();
      const c = this.b[this.i];
      if (c === 0x2c) { this.i++; this.skipWhitespace(); continue; } // ,
      if (c === 0x5d) { this.i++; return array; } // ]
      this.fail('CORE-JSON-001', path);
    }
  }

  /** A string at `path`: raw control characters and bad escapes are CORE-JSON-001, invalid
   * UTF-8 and escapes that do not form Unicode scalar values CORE-JSON-002. */
  readString(path) {
    const b = this.b;
    this.i++; // opening quote
    const units = [];
    for (;;) {
      if (this.i >= b.length) this.fail('CORE-JSON-001', path); // unterminated
      const c = b[this.i];
      if (c === 0x22) { this.i++; break; }
      if (c === 0x5c) { this.readEscape(units, path); continue; }
      if (c < 0x20) this.fail('CORE-JSON-001', path); // unescaped control character
      if (c < 0x80) { units.push(c); this.i++; continue; }
      const cp = this.readUtf8(path);
      if (cp > 0xffff) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
      else units.push(cp);
    }
    let s = '';
    for (let k = 0; k < units.length; k += 8192) s += String.fromCharCode.apply(null, units.slice(k, k + 8192));
    return s;
  }

  readEscape(units, path) {
    const b = this.b;
    const e = b[this.i + 1];
    const simple = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };
    if (e !== undefined && simple[e] !== undefined) { units.push(simple[e]); this.i += 2; return; }
    if (e !== 0x75) this.fail('CORE-JSON-001', path); // not one of JSON's escapes
    const unit = this.readHex4(this.i + 2, path);
    this.i += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) this.fail('CORE-JSON-002', path); // lone low surrogate
    if (unit >= 0xd800 && unit <= 0xdbff) {
      // A high surrogate escape must be followed by a low surrogate escape.
      if (b[this.i] !== 0x5c || b[this.i + 1] !== 0x75) this.fail('CORE-JSON-002', path);
      const low = this.readHex4(this.i + 2, path);
      if (low < 0xdc00 || low > 0xdfff) this.fail('CORE-JSON-002', path);
      this.i += 6;
      units.push(unit, low);
      return;
    }
    units.push(unit);
  }

  readHex4(at, path) {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.b[at + k];
      let d;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else this.fail('CORE-JSON-001', path);
      v = v * 16 + d;
    }
    return v;
  }

  /** One UTF-8 sequence (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF. */
  readUtf8(path) {
    const b = this.b;
    const c = b[this.i];
    let n, cp, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) { n = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2; cp = c & 0x0f;
      if (c === 0xe0) lo = 0xa0; // overlong
      if (c === 0xed) hi = 0x9f; // surrogates (CESU-8)
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3; cp = c & 0x07;
      if (c === 0xf0) lo = 0x90; // overlong
      if (c === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return this.fail('CORE-JSON-002', path);
    for (let k = 1; k <= n; k++) {
      const t = b[this.i + k];
      const min = k === 1 ? lo : 0x80, max = k === 1 ? hi : 0xbf;
      if (t === undefined || t < min || t > max) this.fail('CORE-JSON-002', path);
      cp = (cp << 6) | (t & 0x3f);
    }
    this.i += n + 1;
    return cp;
  }

  /** RFC 8259 number grammar; leading zeros and a bare '-' are CORE-JSON-001 at the number's
   * pointer, a literal that is infinite as a double CORE-JSON-006. */
  readNumber(path) {
    const b = this.b, start = this.i;
    const digit = (c) => c >= 0x30 && c <= 0x39;
    if (b[this.i] === 0x2d) this.i++;
    if (b[this.i] === 0x30) {
      this.i++;
      if (digit(b[this.i])) this.fail('CORE-JSON-001', path); // leading zero: 0123
    } else if (digit(b[this.i])) {
      while (digit(b[this.i])) this.i++;
    } else this.fail('CORE-JSON-001', path);
    if (b[this.i] === 0x2e) { // .
      this.i++;
      if (!digit(b[this.i])) this.fail('CORE-JSON-001', path);
      while (digit(b[this.i])) this.i++;
    }
    if (b[this.i] === 0x65 || b[this.i] === 0x45) { // e E
      this.i++;
      if (b[this.i] === 0x2b || b[this.i] === 0x2d) this.i++;
      if (!digit(b[this.i])) this.fail('CORE-JSON-001', path);
      while (digit(b[this.i])) this.i++;
    }
    const number = new JsonNumber(b.toString('latin1', start, this.i));
    if (!Number.isFinite(number.value)) this.fail('CORE-JSON-006', path);
    return number;
  }

  readLiteral(word, value, path) {
    for (let k = 0; k < word.length; k++) {
      if (this.b[this.i + k] !== word.charCodeAt(k)) this.fail('CORE-JSON-001', path);
    }
    this.i += word.length;
    return value;
  }
}

/** The JSON type of a parsed value, as the Spec's member tables name them. */
function jsonType(v) {
  if (v === null) return 'null';
  if (v instanceof JsonNumber) return 'number';
  if (Array.isArray(v)) return 'array';
  return typeof v; // 'string', 'boolean', 'object'
}

/** A parsed value as plain JavaScript (numbers by value), for a member kept as received. */
function toPlain(v) {
  if (v instanceof JsonNumber) return v.value === 0 ? 0 : v.value;
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === 'object') {
    const out = Object.create(null);
    for (const k of Object.keys(v)) out[k] = toPlain(v[k]);
    return out;
  }
  return v;
}

/** RFC 8785 (JCS) text of a plain value: members sorted by UTF-16 code units, no whitespace,
 * numbers in ECMAScript form (which is what JSON.stringify writes for a finite number). */
function canonicalText(v) {
  if (Array.isArray(v)) return '[' + v.map(canonicalText).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    const names = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return '{' + names.map((k) => JSON.stringify(k) + ':' + canonicalText(v[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

module.exports = { Violation, JsonNumber, parseStrict, pointer, jsonType, toPlain, canonicalText };
