"""A strict reader for the JSON wire profile of Spec/core.md, written from the Spec with the Python
standard library. It reads bytes in document order and raises Violation(rule, path) at the first
failing check: CORE-JSON-004 (size, before parsing), then CORE-JSON-001/-002/-003/-005/-006 as they
are met. Integer literals become `int`, literals with a fraction or exponent `float`, so that the
typed-member rules (CORE-TYPE-004: `1.0` is not an integer) can be checked afterwards.

Used by the migration transfer messages; the earlier package code keeps its own reader."""
import math

from msbk_package import Violation, ptr

MAX_DEPTH = 64
WHITESPACE = b" \t\n\r"


class _Reader:
    def __init__(self, data):
        self.b = data
        self.i = 0

    def fail(self, rule, path):
        raise Violation(rule, path)

    def skip_ws(self):
        while self.i < len(self.b) and self.b[self.i] in WHITESPACE:
            self.i += 1

    def peek(self):
        return self.b[self.i] if self.i < len(self.b) else None

    def unexpected(self, path):
        """An unexpected byte: invalid UTF-8 there is CORE-JSON-002, anything else CORE-JSON-001."""
        c = self.peek()
        if c is not None and c >= 0x80 and _utf8_length(self.b, self.i) is None:
            self.fail("CORE-JSON-002", path)
        self.fail("CORE-JSON-001", path)

    def value(self, path, depth):
        self.skip_ws()
        c = self.peek()
        if c == ord("{"):
            return self.obj(path, depth + 1)
        if c == ord("["):
            return self.arr(path, depth + 1)
        if c == ord('"'):
            return self.string(path)
        if c is not None and (c == ord("-") or ord("0") <= c <= ord("9")):
            return self.number(path)
        for word, v in ((b"true", True), (b"false", False), (b"null", None)):
            if self.b.startswith(word, self.i):
                self.i += len(word)
                return v
        self.unexpected(path)

    def obj(self, path, depth):
        if depth > MAX_DEPTH:
            self.fail("CORE-JSON-005", path)
        self.i += 1
        out = {}
        self.skip_ws()
        if self.peek() == ord("}"):
            self.i += 1
            return out
        while True:
            self.skip_ws()
            if self.peek() != ord('"'):
                self.unexpected(path)
            key = self.string(path)
            at = path + ptr(key)
            if key in out:
                self.fail("CORE-JSON-003", at)
            self.skip_ws()
            if self.peek() != ord(":"):
                self.unexpected(at)
            self.i += 1
            out[key] = self.value(at, depth)
            self.skip_ws()
            c = self.peek()
            if c == ord(","):
                self.i += 1
                continue
            if c == ord("}"):
                self.i += 1
                return out
            self.unexpected(path)

    def arr(self, path, depth):
        if depth > MAX_DEPTH:
            self.fail("CORE-JSON-005", path)
        self.i += 1
        out = []
        self.skip_ws()
        if self.peek() == ord("]"):
            self.i += 1
            return out
        while True:
            out.append(self.value(path + ptr(len(out)), depth))
            self.skip_ws()
            c = self.peek()
            if c == ord(","):
                self.i += 1
                continue
            if c == ord("]"):
                self.i += 1
                return out
            self.unexpected(path)

    def string(self, path):
        self.i += 1
        parts = []
        while True:
            c = self.peek()
            if c is None:
                self.fail("CORE-JSON-001", path)
            if c == ord('"'):
                self.i += 1
                return "".join(parts)
            if c < 0x20:
                self.fail("CORE-JSON-001", path)
            if c == ord("\\"):
                parts.append(self.escape(path))
                continue
            if c < 0x80:
                parts.append(chr(c))
                self.i += 1
                continue
            n = _utf8_length(self.b, self.i)
            if n is None:
                self.fail("CORE-JSON-002", path)
            parts.append(self.b[self.i:self.i + n].decode("utf-8"))
            self.i += n

    def hex4(self, path):
        digits = self.b[self.i:self.i + 4]
        if len(digits) < 4 or any(d not in b"0123456789abcdefABCDEF" for d in digits):
            self.fail("CORE-JSON-001", path)
        self.i += 4
        return int(digits, 16)

    def escape(self, path):
        self.i += 1
        c = self.peek()
        simple = {ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b", ord("f"): "\f",
                  ord("n"): "\n", ord("r"): "\r", ord("t"): "\t"}
        if c in simple:
            self.i += 1
            return simple[c]
        if c != ord("u"):
            self.fail("CORE-JSON-001", path)
        self.i += 1
        u = self.hex4(path)
        if 0xDC00 <= u <= 0xDFFF:
            self.fail("CORE-JSON-002", path)
        if 0xD800 <= u <= 0xDBFF:
            if not self.b.startswith(b"\\u", self.i):
                self.fail("CORE-JSON-002", path)
            self.i += 2
            low = self.hex4(path)
            if not 0xDC00 <= low <= 0xDFFF:
                self.fail("CORE-JSON-002", path)
            return chr(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))
        return chr(u)

    def number(self, path):
        start = self.i
        if self.peek() == ord("-"):
            self.i += 1
        c = self.peek()
        if c == ord("0"):
            self.i += 1
            if self.peek() is not None and ord("0") <= self.peek() <= ord("9"):
                self.fail("CORE-JSON-001", path)
        elif c is not None and ord("1") <= c <= ord("9"):
            self.digits()
        else:
            self.fail("CORE-JSON-001", path)
        integral = True
        if self.peek() == ord("."):
            integral = False
            self.i += 1
            if not self.digits():
                self.fail("CORE-JSON-001", path)
        if self.peek() in (ord("e"), ord("E")):
            integral = False
            self.i += 1
            if self.peek() in (ord("+"), ord("-")):
                self.i += 1
            if not self.digits():
                self.fail("CORE-JSON-001", path)
        literal = self.b[start:self.i].decode("ascii")
        try:
            as_double = float(literal)
        except OverflowError:
            as_double = math.inf
        if not math.isfinite(as_double):
            self.fail("CORE-JSON-006", path)
        return int(literal) if integral else as_double

    def digits(self):
        start = self.i
        while self.peek() is not None and ord("0") <= self.peek() <= ord("9"):
            self.i += 1
        return self.i > start


def _utf8_length(b, i):
    """The length of the well-formed UTF-8 sequence at b[i] (RFC 3629 table), or None."""
    c = b[i]
    if 0xC2 <= c <= 0xDF:
        n, lo, hi = 2, 0x80, 0xBF
    elif c == 0xE0:
        n, lo, hi = 3, 0xA0, 0xBF
    elif 0xE1 <= c <= 0xEC or 0xEE <= c <= 0xEF:
        n, lo, hi = 3, 0x80, 0xBF
    elif c == 0xED:
        n, lo, hi = 3, 0x80, 0x9F  # no surrogates
    elif c == 0xF0:
        n, lo, hi = 4, 0x90, 0xBF
    elif 0xF1 <= c <= 0xF3:
        n, lo, hi = 4, 0x80, 0xBF
    elif c == 0xF4:
        n, lo, hi = 4, 0x80, 0x8F  # nothing above U+10FFFF
    else:
        return None
    if i + n > len(b) or not lo <= b[i + 1] <= hi:
        return None
    if any(not 0x80 <= b[i + k] <= 0xBF for k in range(2, n)):
        return None
    return n


def parse(data, max_bytes=1 << 20):
    """One JSON document under core.md's profile (1 MiB unless a chapter says more)."""
    if len(data) > max_bytes:
        raise Violation("CORE-JSON-004", "")
    if data.startswith(b"\xef\xbb\xbf"):
        raise Violation("CORE-JSON-001", "")
    r = _Reader(data)
    v = r.value("", 0)
    r.skip_ws()
    if r.i != len(data):
        r.unexpected("")
    return v
