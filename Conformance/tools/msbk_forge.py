"""The migration vector generators' own forge: seals and opens MSBK envelopes and summarizes packages.

Written from Spec/migration.md alone, independently of the Python testee
(Conformance/testees/python/), so that the testee's agreement with the vectors built here is a
real cross-check rather than the testee grading its own output.

- Envelope (Spec/migration.md section 1 and section 2): 97-byte header (magic, version, KDF,
  iterations, salt, segment size, plaintext length, nonce prefix, key check, header MAC);
  PBKDF2-HMAC-SHA256 over the NFC/UTF-8 password, HKDF-Expand-SHA256 to the key check, header and
  payload keys; STREAM frames `i (u32) || AES-256-GCM(payloadKey, prefix || i || last, segment,
  aad = mac)`.
- Package (section 3.1, 3.2 MIG-MAN-006, 3.4 MIG-PKG-005): one `Backup-{backupId}/` folder, a
  manifest whose `integrity.files` lists every other file with its size and SHA-256.
"""
import hashlib
import hmac
import io
import json
import struct
import unicodedata
import zipfile

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

MAGIC = bytes([0x89, 0x4D, 0x53, 0x42, 0x4B, 0x0D, 0x0A, 0x1A])
VERSION = 1
KDF_PBKDF2_SHA256 = 1
HEADER_LENGTH = 97  # MAC covers bytes 0 ..< 65
MAC_OFFSET = 65
TAG_LENGTH = 16
ENTITY_NAMES = ("CategoryEntity", "StoryEntity", "MediaEntity", "SettingEntity")  # section 3.2, MIG-MAN-004


class ForgeError(Exception):
    """An envelope or package the forge refuses: (rule, path) as Spec/migration.md names them."""

    def __init__(self, rule, path):
        super().__init__(f"{rule} at {path!r}")
        self.rule, self.path = rule, path


def keys(password, salt, iterations):
    """(keyCheck 16, headerKey 32, payloadKey 32) from the password (section 2, Keys)."""
    secret = unicodedata.normalize("NFC", password).encode("utf-8")
    master = PBKDF2HMAC(hashes.SHA256(), 32, salt, iterations).derive(secret)

    def expand(info, length):
        return HKDFExpand(hashes.SHA256(), length, info.encode("ascii")).derive(master)

    return expand("MSBK v1 key check", 16), expand("MSBK v1 header", 32), expand("MSBK v1 payload", 32)


def nonce(prefix, index, last):
    """nonce_i = prefix (7) || i (u32) || last flag (1 byte) (section 2, Frames)."""
    return prefix + struct.pack(">I", index) + (b"\x01" if last else b"\x00")


def segment_count(length, size):
    return max(1, -(-length // size))


def seal(plaintext, password, salt, prefix, iterations, segment_size):
    """The envelope of `plaintext` with the given salt (16), nonce prefix (7), iterations and S."""
    assert len(salt) == 16 and len(prefix) == 7
    key_check, header_key, payload_key = keys(password, salt, iterations)
    head = (MAGIC + bytes([VERSION, KDF_PBKDF2_SHA256]) + struct.pack(">I", iterations) + salt
            + struct.pack(">IQ", segment_size, len(plaintext)) + prefix + key_check)
    mac = hmac.new(header_key, head, hashlib.sha256).digest()
    out = [head, mac]
    aead = AESGCM(payload_key)
    n = segment_count(len(plaintext), segment_size)
    for i in range(n):
        segment = plaintext[i * segment_size:(i + 1) * segment_size]
        out.append(struct.pack(">I", i) + aead.encrypt(nonce(prefix, i, i == n - 1), segment, mac))
    return b"".join(out)


def _open_frame(aead, prefix, index, n, sealed, mac):
    try:
        return aead.decrypt(nonce(prefix, index, index == n - 1), sealed, mac)
    except InvalidTag:
        return None


def open_envelope(data, password, iteration_range=(600_000, 10_000_000)):
    """(plaintext, header) of a sound envelope, else ForgeError with the first failure in the
    order of section 2 (MIG-ENV-001 .. 009)."""
    if not data or data[:len(MAGIC)] != MAGIC[:len(data)]:
        raise ForgeError("MIG-ENV-001", "/header/magic")
    if len(data) < HEADER_LENGTH:
        if len(data) > 8 and data[8] != VERSION:
            raise ForgeError("MIG-ENV-002", "/header/version")
        if len(data) > 9 and data[9] != KDF_PBKDF2_SHA256:
            raise ForgeError("MIG-ENV-002", "/header/kdf")
        raise ForgeError("MIG-ENV-006", "/header")
    if data[8] != VERSION:
        raise ForgeError("MIG-ENV-002", "/header/version")
    if data[9] != KDF_PBKDF2_SHA256:
        raise ForgeError("MIG-ENV-002", "/header/kdf")
    (iterations,) = struct.unpack(">I", data[10:14])
    salt = data[14:30]
    size, length = struct.unpack(">IQ", data[30:42])
    prefix, stored_check, mac = data[42:49], data[49:65], data[65:97]
    if not iteration_range[0] <= iterations <= iteration_range[1]:
        raise ForgeError("MIG-ENV-003", "/header/iterations")
    if size & (size - 1) or not 1 << 12 <= size <= 1 << 24:
        raise ForgeError("MIG-ENV-003", "/header/segmentSize")
    if length > 1 << 40:
        raise ForgeError("MIG-ENV-003", "/header/plaintextLength")
    key_check, header_key, payload_key = keys(password, salt, iterations)
    if not hmac.compare_digest(key_check, stored_check):
        raise ForgeError("MIG-ENV-004", "/header/keyCheck")
    if not hmac.compare_digest(hmac.new(header_key, data[:MAC_OFFSET], hashlib.sha256).digest(), mac):
        raise ForgeError("MIG-ENV-005", "/header/mac")
    n = segment_count(length, size)
    expected = HEADER_LENGTH + 20 * n + length
    if len(data) < expected:
        raise ForgeError("MIG-ENV-006", "")
    if len(data) > expected:
        raise ForgeError("MIG-ENV-007", "")
    aead, plain, at = AESGCM(payload_key), [], HEADER_LENGTH
    for i in range(n):
        seg_len = size if i < n - 1 else length - size * (n - 1)
        frame = data[at:at + 4 + seg_len + TAG_LENGTH]
        at += len(frame)
        (j,) = struct.unpack(">I", frame[:4])
        segment = _open_frame(aead, prefix, i, n, frame[4:], mac)
        if segment is None or j != i:
            if j != i and j < n and _open_frame(aead, prefix, j, n, frame[4:], mac) is not None:
                raise ForgeError("MIG-ENV-008", f"/segments/{i}")  # opens as the segment it names
            raise ForgeError("MIG-ENV-009", f"/segments/{i}")
        plain.append(segment)
    header = {"iterations": iterations, "segmentSize": size, "plaintextLength": length, "segments": n}
    return b"".join(plain), header


def package_summary(zip_bytes):
    """The package's summary {backupId, entityCounts, files, brokenMedia} after checking that every
    entry is in the manifest's `Backup-{backupId}/` folder and that the files are exactly those of
    `integrity.files` with their sizes and SHA-256 digests (sections 3.1, 3.2, MIG-PKG-005).
    The export checks and the other cross-file rules are not repeated here."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as z:
        entries = {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}
    manifests = [p for p in entries if p.count("/") == 1 and p.endswith("/manifest.json")]
    if len(manifests) != 1:
        raise ForgeError("MIG-PKG-006", "/entries")
    folder = manifests[0][:-len("manifest.json")]
    manifest = json.loads(entries[manifests[0]])
    if folder != f"Backup-{manifest['backupId']}/":
        raise ForgeError("MIG-MAN-001", "/manifest.json/backupId")
    files = {}
    for path, data in entries.items():
        if not path.startswith(folder):
            raise ForgeError("MIG-PKG-006", "/entries/" + path)
        if path != manifests[0]:
            files[path[len(folder):]] = data
    listed = manifest["integrity"]["files"]
    if sorted(f["path"] for f in listed) != sorted(files):
        raise ForgeError("MIG-PKG-005", "/manifest.json/integrity/files")
    for f in listed:
        data = files[f["path"]]
        if f["size"] != len(data) or f["sha256"] != hashlib.sha256(data).hexdigest():
            raise ForgeError("MIG-PKG-005", "/manifest.json/integrity/files")
    broken = manifest.get("brokenMedia") or []
    if manifest["options"]["brokenMediaCount"] != len(broken):
        raise ForgeError("MIG-PKG-002", "/manifest.json/options/brokenMediaCount")
    return {"backupId": manifest["backupId"],
            "entityCounts": {name: manifest["entityStats"][name]["count"] for name in ENTITY_NAMES},
            "files": len(listed), "brokenMedia": len(broken)}
