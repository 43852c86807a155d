"""Writes Vectors/migration/envelope.json and its binary files Vectors/migration/envelope/*.enc.

The files are sealed by the generators' own forge (Conformance/tools/msbk_forge.py, written from
the Spec independently of the Python testee) with fixed salts and nonce prefixes; the Swift
reference must produce the same bytes from the same inputs (MigrationTests), and the testee must
open them. Tampered variants are made by one edit each, and the expected outcome of each edit is
the one the Spec assigns to it (Spec/migration.md section 2).
Iteration counts of 1000 are test-only: those cases say so in their context and flags."""
import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import msbk_forge as forge  # noqa: E402
from vector_file import write_file  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "Vectors", "migration")
PW = "correct horse 电池 staple"
SALT = bytes(range(16))
PREFIX = bytes(range(0xA0, 0xA7))
TEST = {"password": PW, "minimumIterations": 1000}


def payload(n):
    return bytes((i * 31 + 7) & 0xFF for i in range(n))


def sealed(n, size=4096, iterations=1000, password=PW):
    return forge.seal(payload(n), password, SALT, PREFIX, iterations, size)


cases = []
files = {}


def add(slug, comment, data, expected, rules, flags=("test-only",), context=None):
    name = f"{slug}.enc"
    files[name] = data
    c = {"id": f"migration/envelope/{slug}", "comment": comment, "flags": list(flags), "rules": rules}
    if context is not None:
        c["context"] = context
    c["inputFile"] = f"envelope/{name}"
    c["inputSHA256"] = hashlib.sha256(data).hexdigest()
    c["expected"] = expected
    cases.append(c)


def accept(n, size, iterations=1000):
    p = payload(n)
    return {"outcome": "accept", "canonical": {"plaintextLength": n, "plaintextSHA256": hashlib.sha256(p).hexdigest(),
                                               "segmentSize": size, "iterations": iterations, "segments": max(1, -(-n // size))}}


def reject(path, rule):
    return {"outcome": "reject", "violations": [{"path": path, "rule": rule}]}


def flip(data, offset, mask=0x01):
    b = bytearray(data)
    b[offset] ^= mask
    return bytes(b)


def put(data, offset, raw):
    b = bytearray(data)
    b[offset:offset + len(raw)] = raw
    return bytes(b)


ALL_HEADER = ["MIG-ENV-001", "MIG-ENV-002", "MIG-ENV-003", "MIG-ENV-004", "MIG-ENV-005", "MIG-ENV-006", "MIG-ENV-007", "MIG-ENV-008", "MIG-ENV-009"]
add("empty-payload", "An empty payload is one empty final segment.", sealed(0), accept(0, 4096), ALL_HEADER)
add("one-byte", "A one-byte payload.", sealed(1), accept(1, 4096), ["MIG-ENV-006", "MIG-ENV-009"])
add("one-full-segment", "Exactly one full segment: no empty segment follows.", sealed(4096), accept(4096, 4096), ["MIG-ENV-007"], ("test-only", "boundary"))
add("three-segments", "Two full segments and a tail.", sealed(10000), accept(10000, 4096), ["MIG-ENV-008", "MIG-ENV-009"])
add("default-segment-size", "64 KiB segments, the default.", sealed(100000, 1 << 16), accept(100000, 1 << 16), ["MIG-ENV-003"])
add("password-nfd", "A password typed decomposed (e + U+0301) opens what its precomposed form sealed: passwords are NFC-normalized.",
    forge.seal(payload(100), "café", SALT, PREFIX, 1000, 4096), accept(100, 4096), ["MIG-ENV-004"], ("test-only", "interop-trap"),
    {"password": "cafe\u0301"})
add("standard-iterations", "600000 iterations, the production default and minimum, opens under the standard policy.",
    sealed(300, iterations=600000), accept(300, 4096, 600000), ["MIG-ENV-003"], ("boundary",), {"password": PW, "minimumIterations": None})

base = sealed(10000)
frame = 4096 + 20
H = forge.HEADER_LENGTH
add("zip-not-envelope", "A bare zip is not an envelope.", b"PK\x03\x04" + bytes(200), reject("/header/magic", "MIG-ENV-001"), ["MIG-ENV-001"], ("interop-trap",))
add("empty-file", "An empty file is not an envelope.", b"", reject("/header/magic", "MIG-ENV-001"), ["MIG-ENV-001"], ("boundary",))
add("magic-changed", "One changed magic byte.", flip(base, 3), reject("/header/magic", "MIG-ENV-001"), ["MIG-ENV-001"])
add("header-cut", "A file that ends inside the header is truncated.", base[:50], reject("/header", "MIG-ENV-006"), ["MIG-ENV-006"])
add("version-2", "A version this reader does not know.", put(base, 8, b"\x02"), reject("/header/version", "MIG-ENV-002"), ["MIG-ENV-002"])
add("kdf-2", "A KDF this reader does not know.", put(base, 9, b"\x02"), reject("/header/kdf", "MIG-ENV-002"), ["MIG-ENV-002"])
add("iterations-below-policy", "1000 iterations are refused by a production reader (minimum 600000).", base, reject("/header/iterations", "MIG-ENV-003"),
    ["MIG-ENV-003"], ("test-only", "interop-trap"), {"password": PW, "minimumIterations": None})
add("iterations-above-bound", "More than 10000000 iterations is a denial of service, refused before any work.",
    put(base, 10, struct.pack(">I", 10_000_001)), reject("/header/iterations", "MIG-ENV-003"), ["MIG-ENV-003"], ("test-only", "boundary"))
add("segment-size-not-power-of-two", "Segment size 5000.", put(base, 30, struct.pack(">I", 5000)), reject("/header/segmentSize", "MIG-ENV-003"), ["MIG-ENV-003"])
add("plaintext-length-huge", "A claimed payload over 2^40 bytes.", put(base, 34, struct.pack(">Q", (1 << 40) + 1)),
    reject("/header/plaintextLength", "MIG-ENV-003"), ["MIG-ENV-003"], ("test-only", "boundary"))
add("wrong-password", "The wrong password fails the key check.", base, reject("/header/keyCheck", "MIG-ENV-004"), ["MIG-ENV-004"],
    context={"password": "correct horse battery staple", "minimumIterations": 1000})
add("salt-changed", "A changed salt derives another key: indistinguishable from a wrong password.", flip(base, 20),
    reject("/header/keyCheck", "MIG-ENV-004"), ["MIG-ENV-004"])
add("key-check-changed", "A changed key check reads as a wrong password.", flip(base, 60), reject("/header/keyCheck", "MIG-ENV-004"), ["MIG-ENV-004"])
add("nonce-prefix-changed", "A changed nonce prefix fails the header MAC.", flip(base, 45), reject("/header/mac", "MIG-ENV-005"), ["MIG-ENV-005"])
add("mac-changed", "A changed MAC byte.", flip(base, 90), reject("/header/mac", "MIG-ENV-005"), ["MIG-ENV-005"])
add("segment-size-swapped", "Another valid segment size (8192): the MAC catches re-segmentation.", put(base, 30, struct.pack(">I", 8192)),
    reject("/header/mac", "MIG-ENV-005"), ["MIG-ENV-005"], ("test-only", "interop-trap"))
add("length-shortened", "A smaller claimed length fails the MAC before anything is decrypted.", put(base, 34, struct.pack(">Q", 9000)),
    reject("/header/mac", "MIG-ENV-005"), ["MIG-ENV-005"])
add("truncated-one-byte", "One byte missing at the end.", base[:-1], reject("", "MIG-ENV-006"), ["MIG-ENV-006"])
add("truncated-at-boundary", "The last frame missing entirely: frames are whole, the length is not.", base[:H + 2 * frame],
    reject("", "MIG-ENV-006"), ["MIG-ENV-006"], ("test-only", "boundary"))
add("extended-one-byte", "One byte appended.", base + b"\x00", reject("", "MIG-ENV-007"), ["MIG-ENV-007"])
add("extended-frame", "The last frame appended again.", base + base[H + 2 * frame:], reject("", "MIG-ENV-007"), ["MIG-ENV-007"])
swapped = base[:H] + base[H + frame:H + 2 * frame] + base[H:H + frame] + base[H + 2 * frame:]
add("segments-swapped", "Segments 0 and 1 exchanged.", swapped, reject("/segments/0", "MIG-ENV-008"), ["MIG-ENV-008"])
duplicated = base[:H] + base[H:H + frame] + base[H:H + frame] + base[H + 2 * frame:]
add("segment-duplicated", "Segment 0 written again in place of segment 1.", duplicated, reject("/segments/1", "MIG-ENV-008"), ["MIG-ENV-008"])
add("ciphertext-bit-flipped", "One bit flipped in segment 1's ciphertext.", flip(base, H + frame + 100, 0x10), reject("/segments/1", "MIG-ENV-009"), ["MIG-ENV-009"])
add("tag-bit-flipped", "One bit flipped in the last segment's tag.", flip(base, len(base) - 3, 0x80), reject("/segments/2", "MIG-ENV-009"), ["MIG-ENV-009"])
add("index-field-changed", "Segment 1's clear index says 7.", put(base, H + frame, struct.pack(">I", 7)), reject("/segments/1", "MIG-ENV-009"), ["MIG-ENV-009"])
# The last frame sealed without the last-segment flag: what a truncating attacker would need.
b = bytearray(base)
key_check, header_key, payload_key = forge.keys(PW, SALT, 1000)
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402
last = payload(10000)[2 * 4096:]
b[H + 2 * frame:] = struct.pack(">I", 2) + AESGCM(payload_key).encrypt(forge.nonce(PREFIX, 2, False), last, base[65:97])
add("last-flag-missing", "A final segment sealed as non-final is rejected (STREAM's last-segment flag).", bytes(b),
    reject("/segments/2", "MIG-ENV-009"), ["MIG-ENV-009"], ("test-only", "interop-trap"))

# A whole package packed by the Swift reference in its deterministic mode (see Vectors/README.md):
# its expected summary is what the forge finds when it opens it.
GOLDEN = os.path.join(HERE, "..", "..", "Vectors", "migration", "envelope", "golden-pack.enc")
with open(GOLDEN, "rb") as f:
    golden = f.read()
golden_plain, golden_header = forge.open_envelope(golden, PW, (1000, 10_000_000))
add("golden-pack", "A whole package from `reference-peer pack --deterministic 11` (sample store seed 11): the Python implementation opens the Swift one's output.",
    golden, {"outcome": "accept", "canonical": {"plaintextLength": len(golden_plain), "plaintextSHA256": hashlib.sha256(golden_plain).hexdigest(),
                                                "segmentSize": golden_header["segmentSize"], "iterations": golden_header["iterations"],
                                                "segments": golden_header["segments"]}}, ["MIG-ENV-009"], ("test-only", "seed-example"))

os.makedirs(os.path.join(OUT, "envelope"), exist_ok=True)
for name, data in files.items():
    with open(os.path.join(OUT, "envelope", name), "wb") as f:
        f.write(data)
print(write_file(OUT, "migration", "The encrypted envelope around a migration package (Spec migration.md section 2). Binary inputs are files beside this one.",
                 TEST, cases, kind="envelope"), "cases")
