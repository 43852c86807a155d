"""An independent implementation of the migration envelope (Spec/migration.md, "The encrypted
envelope"), written from the Spec with Python's `cryptography` only. It shares no code with the
Swift reference; where the two disagree, the Spec was ambiguous."""
import hashlib
import hmac
import struct
import unicodedata

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

MAGIC = bytes([0x89, 0x4D, 0x53, 0x42, 0x4B, 0x0D, 0x0A, 0x1A])
HEADER_LENGTH = 97
OVERHEAD = 20
STANDARD_ITERATIONS = (600_000, 10_000_000)


class EnvelopeError(Exception):
    def __init__(self, code, rule, path, detail):
        super().__init__(f"{code} at {path}: {detail}")
        self.code, self.rule, self.path = code, rule, path


def _keys(password, salt, iterations):
    pw = unicodedata.normalize("NFC", password).encode("utf-8")
    master = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=iterations).derive(pw)

    def expand(info, n):
        return HKDFExpand(algorithm=hashes.SHA256(), length=n, info=info.encode()).derive(master)

    return expand("MSBK v1 key check", 16), expand("MSBK v1 header", 32), expand("MSBK v1 payload", 32)


def _nonce(prefix, index, last):
    return prefix + struct.pack(">I", index) + (b"\x01" if last else b"\x00")


def _segments(length, size):
    return max(1, -(-length // size))


def seal(plaintext, password, salt, nonce_prefix, iterations, segment_size):
    assert len(salt) == 16 and len(nonce_prefix) == 7
    key_check, header_key, payload_key = _keys(password, salt, iterations)
    head = MAGIC + bytes([1, 1]) + struct.pack(">I", iterations) + salt + struct.pack(">IQ", segment_size, len(plaintext))
    head += nonce_prefix + key_check
    mac = hmac.new(header_key, head, hashlib.sha256).digest()
    out = bytearray(head + mac)
    count = _segments(len(plaintext), segment_size)
    aead = AESGCM(payload_key)
    for i in range(count):
        chunk = plaintext[i * segment_size:(i + 1) * segment_size]
        out += struct.pack(">I", i) + aead.encrypt(_nonce(nonce_prefix, i, i == count - 1), chunk, mac)
    return bytes(out)


def open_envelope(data, password, iterations_range=STANDARD_ITERATIONS):
    """Returns (plaintext, header fields) or raises EnvelopeError, checks in the Spec's order."""
    if len(data) < 8 or data[:8] != MAGIC:
        raise EnvelopeError("not-an-envelope", "MIG-ENV-001", "/header/magic", "no magic")
    if len(data) < HEADER_LENGTH:
        raise EnvelopeError("truncated", "MIG-ENV-006", "/header", "short header")
    if data[8] != 1:
        raise EnvelopeError("unsupported-version", "MIG-ENV-002", "/header/version", str(data[8]))
    if data[9] != 1:
        raise EnvelopeError("unsupported-version", "MIG-ENV-002", "/header/kdf", str(data[9]))
    (iterations,) = struct.unpack(">I", data[10:14])
    if not iterations_range[0] <= iterations <= iterations_range[1]:
        raise EnvelopeError("header-invalid", "MIG-ENV-003", "/header/iterations", str(iterations))
    salt = data[14:30]
    segment_size, length = struct.unpack(">IQ", data[30:42])
    if not (4096 <= segment_size <= 1 << 24 and segment_size & (segment_size - 1) == 0):
        raise EnvelopeError("header-invalid", "MIG-ENV-003", "/header/segmentSize", str(segment_size))
    if length > 1 << 40:
        raise EnvelopeError("header-invalid", "MIG-ENV-003", "/header/plaintextLength", str(length))
    prefix, key_check, mac = data[42:49], data[49:65], data[65:97]
    want_check, header_key, payload_key = _keys(password, salt, iterations)
    if not hmac.compare_digest(want_check, key_check):
        raise EnvelopeError("wrong-password", "MIG-ENV-004", "/header/keyCheck", "key check differs")
    if not hmac.compare_digest(hmac.new(header_key, data[:65], hashlib.sha256).digest(), mac):
        raise EnvelopeError("header-tampered", "MIG-ENV-005", "/header/mac", "MAC differs")
    count = _segments(length, segment_size)
    expected = HEADER_LENGTH + count * OVERHEAD + length
    if len(data) < expected:
        raise EnvelopeError("truncated", "MIG-ENV-006", "", f"{len(data)} < {expected}")
    if len(data) > expected:
        raise EnvelopeError("extended", "MIG-ENV-007", "", f"{len(data)} > {expected}")
    aead = AESGCM(payload_key)

    def decrypt(frame, index):
        try:
            return aead.decrypt(_nonce(prefix, index, index == count - 1), frame[4:], mac)
        except Exception:
            return None

    out = bytearray()
    offset = HEADER_LENGTH
    for i in range(count):
        n = (segment_size if i < count - 1 else length - (count - 1) * segment_size) + OVERHEAD
        frame = data[offset:offset + n]
        offset += n
        (claimed,) = struct.unpack(">I", frame[:4])
        plain = decrypt(frame, i)
        if plain is not None and claimed == i:
            out += plain
            continue
        if plain is None and claimed != i and claimed < count and decrypt(frame, claimed) is not None:
            raise EnvelopeError("segments-reordered", "MIG-ENV-008", f"/segments/{i}", f"segment {claimed}")
        raise EnvelopeError("segment-corrupt", "MIG-ENV-009", f"/segments/{i}", "authentication failed")
    return bytes(out), {"iterations": iterations, "segmentSize": segment_size, "segments": count}
