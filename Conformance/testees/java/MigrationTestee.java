/*
 * MigrationTestee.java: a template testee for the conformance kit's migration family, for JVM and
 * Android teams that read (or write) the phone-to-phone backup package.
 *
 * Run it (Java 17, standard library only, single-file source launch) from the repository root:
 *
 *     conformance run --family migration --peer exec:'java Conformance/testees/java/MigrationTestee.java'
 *
 * It speaks the stdio protocol of Conformance/testee-protocol.md (one JSON object per line on
 * stdin/stdout: hello, validate, bye; logs go to stderr only) and implements these document kinds
 * of Spec/migration.md, written from the Spec and the kit's documents alone:
 *
 *   envelope                    section 2: the encrypted file (PBKDF2-HMAC-SHA256, HKDF-Expand,
 *                               header HMAC, AES-256-GCM segments in the STREAM construction);
 *                               MIG-ENV-001..009, first failing check only
 *   manifest                    section 3.2; every independent violation (one per member group)
 *   categories, stories, media, section 3.3, the five coredata/*.json exports; every independent
 *   settings,                   violation (one per element, then MIG-ID-002 among the elements
 *   relations_story_categories  that passed)
 *   package                     sections 3.1 and 3.4: the zip inside the envelope, read by hand
 *                               from its central directory (MIG-PKG-006), then its documents and
 *                               the rules across files; first failing check only
 *
 * Every other migration kind (control-message, backup-chunk, restored-store) and every machine
 * (sender, receiver, pin-lockout) is left out of hello, so the runner reports them "not
 * implemented" rather than failed.
 *
 * Where the Spec leaves a choice, this file decides (no vector pins these; change them freely):
 *  - a file shorter than the 8-byte magic is MIG-ENV-001 (it does not start with the magic), not
 *    MIG-ENV-006 "ends inside the header";
 *  - the manifest's canonical form keeps declared members only, nested ones included
 *    (CORE-MEMBER-001), although section 3.3 says "values as received";
 *  - package: the folder must be exactly "Backup-" + backupId (case included); an archive with no
 *    entry is MIG-PKG-006 at ""; a missing manifest or export is MIG-PKG-005 at "/manifest.json"
 *    or "/coredata/<name>.json"; a listed file the archive lacks is reported after the exports,
 *    at /manifest.json/integrity/files/<i>/path; bytes after the end record's comment make the
 *    directory unreadable (the end record is "the one whose comment ends the file"); an entry
 *    named like the folder itself ("Backup-x", no "/") is outside it; entry CRC-32s are not
 *    checked (MIG-PKG-006 does not ask; the manifest's SHA-256 digests cover the bytes).
 *
 * HOW TO ADAPT IT TO YOUR OWN CODE (Android / Kotlin / Java)
 *
 * The point of a testee is to test YOUR reader, not this file's. Keep the protocol part (main,
 * answer, hello, validate) and replace the body of a kind (checkEnvelope, checkManifest,
 * checkExport, checkPackage) with a call into your code on the exact bytes, mapping its result:
 * success -> the canonical form; failure -> Violation(rule, RFC 6901 path), one for the kinds that
 * stop at the first failing check (envelope, package), all of them for the manifest and exports
 * (Spec/core.md "Order of checks"). Drop a kind from kinds() to claim less. Your code must run on a
 * plain JVM (no android.*): test the module that holds the migration reader.
 *
 * JVM traps this file avoids, which your code must avoid too:
 *  - java.util.zip.ZipInputStream reads local headers only, and ZipFile trusts them in places: the
 *    Spec wants the central directory read and every local header compared with it (vectors
 *    local-name-climbs, local-size-differs, overlapping-entries); this file parses the zip itself.
 *  - A zip name without flag bit 11 is code page 437, not UTF-8 and not the platform charset.
 *  - Paths are split and compared as strings of code points (never grapheme clusters), NFC is
 *    java.text.Normalizer, and "equal ignoring case" is Unicode case folding, not
 *    equalsIgnoreCase (which compares char by char and misses "ß" vs "SS").
 *  - PBKDF2WithHmacSHA256 encodes the char[] password as UTF-8 (SunJCE); normalize it to NFC
 *    first (section 1: keyboards produce "é" both ways).
 *  - new String(bytes, UTF_8) repairs invalid UTF-8 silently; org.json keeps the last of two
 *    duplicate members: neither can be the wire reader (CORE-JSON-002, -003). The strict reader
 *    below is the same approach as the pairing template's Testee.java.
 *  - java.util.regex \d and \s are not ASCII-only; `$` matches before a final newline: the
 *    checks below use explicit character tests or Matcher.matches().
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
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.text.Normalizer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

public class MigrationTestee {

    // ------------------------------------------------------------------------------------------
    // Protocol (Conformance/testee-protocol.md)
    // ------------------------------------------------------------------------------------------

    static final String IMPLEMENTATION = "java-migration-template 0.1 (envelope, manifest, exports, package)";

    /** A kind's check: the exact bytes and the context -> the canonical form, or Rejected. */
    interface Kind {
        Object check(byte[] bytes, Context context);
    }

    /** The kinds this file implements: validate() dispatches on it and hello() lists it, so a
     * kind the Spec gains later is "not implemented" here, never failed. */
    static Map<String, Kind> kinds() {
        Map<String, Kind> k = new LinkedHashMap<>();
        k.put("envelope", MigrationTestee::checkEnvelope);
        k.put("manifest", (bytes, context) -> accepted(checkManifest(parseDocument(bytes), context)));
        for (Export export : EXPORTS.values()) {
            k.put(export.name(), (bytes, context) -> accepted(checkExport(export, parseDocument(bytes))));
        }
        k.put("package", MigrationTestee::checkPackage);
        return k;
    }

    static Map<String, Kind> KINDS; // set in main, once the tables below are initialized

    public static void main(String[] args) throws IOException {
        KINDS = kinds();
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
            if ("bye".equals(request.get("op"))) break;
            Map<String, Object> answer;
            try {
                answer = answer(request);
            } catch (RuntimeException e) {
                // a bug here must not look like a verdict: say so, and keep the session in step
                log("internal error: " + e);
                e.printStackTrace();
                answer = outcome(request, "unsupported", "reason", "internal error: " + e);
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
        return outcome(request, "invalid-request", "reason", "unknown op " + op);
    }

    static Map<String, Object> hello(Map<String, Object> request) {
        if (!Long.valueOf(1).equals(asLongOrNull(request.get("protocol")))) {
            log("runner speaks protocol " + request.get("protocol") + ", this testee speaks 1");
        }
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("protocol", 1L);
        a.put("implementation", IMPLEMENTATION);
        a.put("families", List.of("migration"));
        a.put("kinds", new ArrayList<Object>(KINDS.keySet()));
        a.put("machines", List.of()); // sender, receiver, pin-lockout: not implemented
        return a;
    }

    static Map<String, Object> validate(Map<String, Object> request) {
        Kind kind = "migration".equals(request.get("family")) ? KINDS.get(request.get("kind")) : null;
        if (kind == null) return outcome(request, "unsupported", "reason", "kind not implemented");
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
            return outcome(request, "accept", "canonical", kind.check(bytes, context));
        } catch (Violation v) {
            return outcome(request, "reject", "violations", List.of(v.toJson()));
        } catch (Rejected r) {
            List<Object> list = new ArrayList<>();
            for (Violation v : r.violations) list.add(v.toJson());
            return outcome(request, "reject", "violations", list);
        } catch (InvalidRequest e) {
            return outcome(request, "invalid-request", "reason", e.getMessage());
        }
    }

    static Map<String, Object> outcome(Map<String, Object> request, String outcome, String key, Object value) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("case", request.get("case"));
        a.put("outcome", outcome);
        a.put(key, value);
        return a;
    }

    /** The request's context (Vectors/README.md "Document context members"). */
    record Context(String password, long minimumIterations, long supportedSchemaVersion) {
        static final long PRODUCTION_MINIMUM_ITERATIONS = 600_000;

        static Context of(Map<String, Object> c) {
            Object password = c.get("password");
            // null or absent means the production policy; only test-only vectors lower it
            Long minimum = asLongOrNull(c.get("minimumIterations"));
            Long supported = asLongOrNull(c.get("supportedSchemaVersion"));
            return new Context(password instanceof String ? (String) password : null,
                    minimum != null ? minimum : PRODUCTION_MINIMUM_ITERATIONS,
                    supported != null ? supported : 1);
        }

        String requirePassword() {
            if (password == null) throw new InvalidRequest("context has no password");
            return password;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Envelope (Spec/migration.md section 2). The reader checks in the Spec's order and stops at
    // the first failure: magic, version/KDF, the header's length, its ranges (before any key
    // derivation, so a crafted file cannot demand hours of PBKDF2), key check, MAC, the file's
    // length, then every frame in file order.
    // ------------------------------------------------------------------------------------------

    static final byte[] MAGIC = {(byte) 0x89, 'M', 'S', 'B', 'K', 0x0D, 0x0A, 0x1A};
    static final int HEADER_LENGTH = 97;
    static final int FRAME_OVERHEAD = 20; // 4-byte clear index + 16-byte GCM tag
    static final long MAXIMUM_ITERATIONS = 10_000_000;
    static final long MAXIMUM_PLAINTEXT = 1L << 40;

    static Object checkEnvelope(byte[] f, Context context) {
        // A file that does not hold the whole magic does not start with it: an empty file, or one
        // cut inside the magic, is not an envelope (vector empty-file); cut later, it is truncated.
        if (f.length < MAGIC.length || !Arrays.equals(f, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new Violation("MIG-ENV-001", "/header/magic");
        }
        if (f.length > 8 && f[8] != 1) throw new Violation("MIG-ENV-002", "/header/version");
        if (f.length > 9 && f[9] != 1) throw new Violation("MIG-ENV-002", "/header/kdf");
        if (f.length < HEADER_LENGTH) throw new Violation("MIG-ENV-006", "/header");

        long iterations = u32be(f, 10);
        byte[] salt = Arrays.copyOfRange(f, 14, 30);
        long segmentSize = u32be(f, 30);
        long plaintextLength = u64be(f, 34);
        byte[] noncePrefix = Arrays.copyOfRange(f, 42, 49);
        byte[] storedKeyCheck = Arrays.copyOfRange(f, 49, 65);
        byte[] storedMac = Arrays.copyOfRange(f, 65, 97);

        if (iterations < context.minimumIterations() || iterations > MAXIMUM_ITERATIONS) {
            throw new Violation("MIG-ENV-003", "/header/iterations");
        }
        if (segmentSize < (1 << 12) || segmentSize > (1 << 24) || Long.bitCount(segmentSize) != 1) {
            throw new Violation("MIG-ENV-003", "/header/segmentSize");
        }
        if (plaintextLength < 0 || plaintextLength > MAXIMUM_PLAINTEXT) { // u64 above 2^63 reads negative
            throw new Violation("MIG-ENV-003", "/header/plaintextLength");
        }

        String password = Normalizer.normalize(context.requirePassword(), Normalizer.Form.NFC);
        byte[] master = pbkdf2(password, salt, (int) iterations);
        byte[] keyCheck = hkdfExpand(master, "MSBK v1 key check", 16);
        byte[] headerKey = hkdfExpand(master, "MSBK v1 header", 32);
        byte[] payloadKey = hkdfExpand(master, "MSBK v1 payload", 32);
        // constant-time comparisons: these two answer "is this the password?"
        if (!MessageDigest.isEqual(keyCheck, storedKeyCheck)) throw new Violation("MIG-ENV-004", "/header/keyCheck");
        byte[] mac = hmacSha256(headerKey, Arrays.copyOfRange(f, 0, 65));
        if (!MessageDigest.isEqual(mac, storedMac)) throw new Violation("MIG-ENV-005", "/header/mac");

        // The header is authentic now, so its length and segment size can be trusted to say how
        // long the file must be: a short file is truncated, a long one extended (before any frame).
        long segments = Math.max(1, (plaintextLength + segmentSize - 1) / segmentSize);
        long expectedLength = HEADER_LENGTH + FRAME_OVERHEAD * segments + plaintextLength;
        if (f.length < expectedLength) throw new Violation("MIG-ENV-006", "");
        if (f.length > expectedLength) throw new Violation("MIG-ENV-007", "");

        MessageDigest plaintextDigest = sha256();
        for (long i = 0; i < segments; i++) {
            int segmentLength = (int) (i < segments - 1 ? segmentSize : plaintextLength - (segments - 1) * segmentSize);
            int frameOffset = (int) (HEADER_LENGTH + i * (segmentSize + FRAME_OVERHEAD));
            long clearIndex = u32be(f, frameOffset);
            int sealedOffset = frameOffset + 4;
            int sealedLength = segmentLength + 16;
            byte[] plaintext = openSegment(payloadKey, noncePrefix, i, i == segments - 1, mac, f, sealedOffset, sealedLength);
            if (plaintext == null) {
                // It is not segment i. If its clear index names another segment and it opens as that
                // one, the frames were reordered or duplicated; otherwise it is corrupt.
                if (clearIndex != i && clearIndex < segments
                        && openSegment(payloadKey, noncePrefix, clearIndex, clearIndex == segments - 1, mac,
                                f, sealedOffset, sealedLength) != null) {
                    throw new Violation("MIG-ENV-008", "/segments/" + i);
                }
                throw new Violation("MIG-ENV-009", "/segments/" + i);
            }
            // the clear index is outside the AEAD; a frame must still carry its own
            if (clearIndex != i) throw new Violation("MIG-ENV-009", "/segments/" + i);
            plaintextDigest.update(plaintext); // released only after its tag verified
        }

        Map<String, Object> canonical = new LinkedHashMap<>();
        canonical.put("plaintextLength", plaintextLength);
        canonical.put("plaintextSHA256", hex(plaintextDigest.digest()));
        canonical.put("segmentSize", segmentSize);
        canonical.put("iterations", iterations);
        canonical.put("segments", segments);
        return canonical;
    }

    /** AES-256-GCM open of one segment: nonce = prefix (7) || index (u32) || last flag (1 byte),
     * associated data = the header MAC. Null when the tag does not verify. */
    static byte[] openSegment(byte[] key, byte[] prefix, long index, boolean last, byte[] aad,
                              byte[] f, int offset, int length) {
        byte[] nonce = new byte[12];
        System.arraycopy(prefix, 0, nonce, 0, 7);
        nonce[7] = (byte) (index >>> 24);
        nonce[8] = (byte) (index >>> 16);
        nonce[9] = (byte) (index >>> 8);
        nonce[10] = (byte) index;
        nonce[11] = (byte) (last ? 1 : 0);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
            cipher.updateAAD(aad);
            return cipher.doFinal(f, offset, length);
        } catch (AEADBadTagException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] pbkdf2(String password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** HKDF-Expand-SHA256 (RFC 5869 section 2.3) with `prk` as the pseudorandom key. */
    static byte[] hkdfExpand(byte[] prk, String info, int length) {
        byte[] out = new byte[length];
        byte[] t = new byte[0];
        int filled = 0;
        for (int counter = 1; filled < length; counter++) {
            byte[] input = new byte[t.length + info.length() + 1];
            System.arraycopy(t, 0, input, 0, t.length);
            byte[] infoBytes = info.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(infoBytes, 0, input, t.length, infoBytes.length);
            input[input.length - 1] = (byte) counter;
            t = hmacSha256(prk, input);
            int n = Math.min(t.length, length - filled);
            System.arraycopy(t, 0, out, filled, n);
            filled += n;
        }
        return out;
    }

    static byte[] hmacSha256(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static long u32be(byte[] b, int at) {
        return ((b[at] & 0xFFL) << 24) | ((b[at + 1] & 0xFFL) << 16) | ((b[at + 2] & 0xFFL) << 8) | (b[at + 3] & 0xFFL);
    }

    static long u64be(byte[] b, int at) {
        return (u32be(b, at) << 32) | u32be(b, at + 4);
    }

    // ------------------------------------------------------------------------------------------
    // Manifest (Spec/migration.md section 3.2). The member groups are independent (core.md, Order
    // of checks): each group reports its first failing check, and every group is checked.
    // ------------------------------------------------------------------------------------------

    static final List<String> ENTITIES = List.of("CategoryEntity", "StoryEntity", "MediaEntity", "SettingEntity");

    static Checked checkManifest(Object document, Context context) {
        if (!(document instanceof Map)) return Checked.rejected(new Violation("CORE-TYPE-003", ""));
        Map<String, Object> m = asObject(document);
        Findings f = new Findings();
        f.group(() -> checkUuid(requiredString(m, "", "backupId"), "/backupId"));
        f.group(() -> {
            if (isBlank(requiredString(m, "", "appVersion"))) throw new Violation("MIG-MAN-002", "/appVersion");
        });
        f.group(() -> {
            long v = requiredInteger(m, "", "schemaVersion");
            // a newer schema is refused before anything is touched: the user updates the app
            if (v < 1 || v > context.supportedSchemaVersion()) throw new Violation("MIG-MAN-003", "/schemaVersion");
        });
        f.group(() -> checkTime(required(m, "", "createdAt"), "/createdAt"));
        f.group(() -> checkEntityStats(requiredObject(m, "", "entityStats")));
        f.group(() -> checkMediaStats(requiredObject(m, "", "mediaStats")));
        f.group(() -> checkIntegrity(requiredObject(m, "", "integrity")));
        f.group(() -> checkOptions(requiredObject(m, "", "options")));
        Object broken = optional(m, "brokenMedia");
        if (broken != null && !(broken instanceof List)) {
            f.add(new Violation("CORE-TYPE-003", "/brokenMedia"));
        } else if (broken != null) {
            List<Object> list = asArray(broken);
            for (int i = 0; i < list.size(); i++) {
                Object element = list.get(i);
                String path = "/brokenMedia/" + i;
                f.group(() -> checkBrokenMediaEntry(element, path));
            }
        }
        if (!f.violations.isEmpty()) return new Checked(null, f.violations);

        // canonical: declared members only, at every level (CORE-MEMBER-001)
        Map<String, Object> canonical = pick(m, "backupId", "appVersion", "schemaVersion", "createdAt");
        Map<String, Object> entityStats = new LinkedHashMap<>();
        for (String entity : ENTITIES) entityStats.put(entity, pick(asObject(asObject(m.get("entityStats")).get(entity)), "count"));
        canonical.put("entityStats", entityStats);
        canonical.put("mediaStats", pick(asObject(m.get("mediaStats")), "totalFiles", "totalBytes"));
        Map<String, Object> integrity = asObject(m.get("integrity"));
        Map<String, Object> integrityCanonical = pick(integrity, "hashAlgorithm");
        List<Object> files = new ArrayList<>();
        for (Object file : asArray(integrity.get("files"))) files.add(pick(asObject(file), "path", "size", "sha256"));
        integrityCanonical.put("files", files);
        canonical.put("integrity", integrityCanonical);
        canonical.put("options", pick(asObject(m.get("options")), "hasBrokenMedia", "brokenMediaCount"));
        if (broken != null) {
            List<Object> entries = new ArrayList<>();
            for (Object entry : asArray(broken)) entries.add(pick(asObject(entry), "mediaId", "fileName", "reason"));
            canonical.put("brokenMedia", entries);
        }
        return new Checked(canonical, List.of());
    }

    /** MIG-MAN-004: exactly the four entities, each {count} with an integer >= 0. */
    static void checkEntityStats(Map<String, Object> stats) {
        for (String entity : ENTITIES) {
            Map<String, Object> e = requiredObject(stats, "/entityStats", entity);
            String path = "/entityStats/" + entity + "/count";
            if (requiredInteger(e, "/entityStats/" + entity, "count") < 0) throw new Violation("MIG-MAN-004", path);
        }
        for (String name : stats.keySet()) {
            if (!ENTITIES.contains(name)) throw new Violation("MIG-MAN-004", pointer("/entityStats", name));
        }
    }

    /** MIG-MAN-005. */
    static void checkMediaStats(Map<String, Object> stats) {
        for (String name : List.of("totalFiles", "totalBytes")) {
            if (requiredInteger(stats, "/mediaStats", name) < 0) throw new Violation("MIG-MAN-005", "/mediaStats/" + name);
        }
    }

    /** MIG-MAN-006. The zip digests must be absent (even as null), then the algorithm, then each
     * listed file completely before the next (core.md: arrays element by element), in the order
     * of Spec/schemas/migration/manifest.schema.json: path, the path listed once (one file on a
     * case-insensitive volume is one listing), size, digest. */
    static void checkIntegrity(Map<String, Object> integrity) {
        for (String forbidden : List.of("zipSize", "zipSHA256")) {
            if (integrity.containsKey(forbidden)) throw new Violation("MIG-MAN-006", "/integrity/" + forbidden);
        }
        if (!"SHA256".equals(requiredString(integrity, "/integrity", "hashAlgorithm"))) {
            throw new Violation("MIG-MAN-006", "/integrity/hashAlgorithm");
        }
        Object filesValue = required(integrity, "/integrity", "files");
        if (!(filesValue instanceof List)) throw new Violation("CORE-TYPE-003", "/integrity/files");
        List<Object> files = asArray(filesValue);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < files.size(); i++) {
            String base = "/integrity/files/" + i;
            if (!(files.get(i) instanceof Map)) throw new Violation("CORE-TYPE-003", base);
            Map<String, Object> file = asObject(files.get(i));
            String path = requiredString(file, base, "path");
            if (!isPackagePath(path) || foldName(path).equals("manifest.json")) throw new Violation("MIG-MAN-006", base + "/path");
            if (!seen.add(foldName(path))) throw new Violation("MIG-MAN-006", base + "/path");
            if (requiredInteger(file, base, "size") < 0) throw new Violation("MIG-MAN-006", base + "/size");
            if (!isLowerHex(requiredString(file, base, "sha256"), 64)) throw new Violation("MIG-MAN-006", base + "/sha256");
        }
    }

    /** MIG-MAN-007 (the options object; the agreement of its values is MIG-PKG-002's). */
    static void checkOptions(Map<String, Object> options) {
        asBoolean(required(options, "/options", "hasBrokenMedia"), "/options/hasBrokenMedia");
        if (requiredInteger(options, "/options", "brokenMediaCount") < 0) {
            throw new Violation("MIG-MAN-007", "/options/brokenMediaCount");
        }
    }

    static final Set<String> BROKEN_REASONS = Set.of("FILE_NOT_FOUND", "READ_ERROR");

    static void checkBrokenMediaEntry(Object element, String base) {
        if (!(element instanceof Map)) throw new Violation("CORE-TYPE-003", base);
        Map<String, Object> e = asObject(element);
        checkUuid(requiredString(e, base, "mediaId"), base + "/mediaId");
        requiredString(e, base, "fileName");
        if (!BROKEN_REASONS.contains(requiredString(e, base, "reason"))) throw new Violation("MIG-MAN-007", base + "/reason");
    }

    // ------------------------------------------------------------------------------------------
    // Exports (Spec/migration.md section 3.3; member tables from Spec/schemas/migration/*.schema.json,
    // seed 000 section 6). Each element is one independent group, checked member by member in the
    // table's order (its first failing check is reported); MIG-ID-002 is then checked among the
    // elements that passed, at the later of two equal elements.
    // ------------------------------------------------------------------------------------------

    enum Type { STRING, INTEGER, NUMBER, BOOLEAN }

    /** A member's own rule, given its typed value (String, Long, BigDecimal, Boolean), its pointer
     * and the whole element (for rules that compare members: updatedAt >= createdAt, a setting's
     * value by its type). Earlier members have passed when it runs. */
    interface Check {
        void check(Object value, String path, Map<String, Object> element);
    }

    record Member(String name, boolean required, Type type, Check check) {}

    /** One export: its members in check order, and what makes an element unique (MIG-ID-002):
     * the key, and the member whose pointer a duplicate is reported at. */
    record Export(String name, List<Member> members, Function<Map<String, Object>, String> uniqueKey, String uniqueMember) {}

    static Member req(String name, Type type, Check check) {
        return new Member(name, true, type, check);
    }

    static Member opt(String name, Type type, Check check) {
        return new Member(name, false, type, check);
    }

    static Check rule(String rule, java.util.function.Predicate<Object> ok) {
        return (v, path, e) -> {
            if (!ok.test(v)) throw new Violation(rule, path);
        };
    }

    static final Check UUID = rule("MIG-ID-001", v -> isUuid((String) v));
    static final Check TIME = (v, path, e) -> checkTimeValue((Long) v, path);
    static final Pattern COLOR_HEX = Pattern.compile("#[0-9A-Fa-f]{6}");
    static final Pattern BASE64 = Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");
    static final BigDecimal MINUS_ONE = BigDecimal.ONE.negate();

    /** Accuracy: at least 0, or exactly -1 for "not measured" (section 6.2). */
    static boolean isAccuracy(Object v) {
        BigDecimal d = (BigDecimal) v;
        return d.signum() >= 0 || d.compareTo(MINUS_ONE) == 0;
    }

    static boolean within(Object v, int limit) {
        BigDecimal d = (BigDecimal) v;
        return d.abs().compareTo(BigDecimal.valueOf(limit)) <= 0;
    }

    static String lower(Map<String, Object> e, String name) {
        return ((String) e.get(name)).toLowerCase(Locale.ROOT); // UUIDs compare case-insensitively (MIG-ID-001)
    }

    static final Set<String> SETTING_TYPES = Set.of("bool", "int", "double", "string", "json");
    static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    static final BigInteger INT64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    // strtod's forms, decimal or hexadecimal, with an optional sign and no whitespace
    static final Pattern DECIMAL_DOUBLE = Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
    static final Pattern HEX_DOUBLE = Pattern.compile("([+-]?)0[xX]((?:[0-9A-Fa-f]+(?:\\.[0-9A-Fa-f]*)?|\\.[0-9A-Fa-f]+))((?:[pP][+-]?[0-9]+)?)");

    static final Map<String, Export> EXPORTS = new LinkedHashMap<>();
    static {
        EXPORTS.put("categories", new Export("categories", List.of(
                req("id", Type.STRING, UUID),
                req("name", Type.STRING, rule("MIG-EXP-001", v -> !isBlank((String) v))),
                opt("nameEn", Type.STRING, null),
                req("colorHex", Type.STRING, rule("MIG-EXP-001", v -> COLOR_HEX.matcher((String) v).matches())),
                req("level", Type.INTEGER, rule("MIG-EXP-001", v -> (Long) v >= 1)),
                opt("parentId", Type.STRING, UUID),
                req("iconName", Type.STRING, null),
                req("iconType", Type.STRING, rule("MIG-EXP-001", v -> v.equals("system") || v.equals("custom"))),
                opt("customIconData", Type.STRING, rule("MIG-EXP-001", v -> BASE64.matcher((String) v).matches())),
                req("sortOrder", Type.INTEGER, null),
                req("createdAt", Type.INTEGER, TIME)),
                e -> lower(e, "id"), "id"));
        EXPORTS.put("stories", new Export("stories", List.of(
                req("id", Type.STRING, UUID),
                opt("title", Type.STRING, null),
                opt("content", Type.STRING, null),
                opt("plainTextContent", Type.STRING, null),
                req("createdAt", Type.INTEGER, TIME),
                req("updatedAt", Type.INTEGER, (v, path, e) -> {
                    checkTimeValue((Long) v, path);
                    long created = asInteger(e.get("createdAt"), "/createdAt");
                    if ((Long) v < created) throw new Violation("MIG-EXP-002", path);
                }),
                req("timestamp", Type.INTEGER, TIME),
                req("isDeleted", Type.BOOLEAN, null),
                req("syncStatus", Type.INTEGER, null),
                opt("mood", Type.STRING, null),
                opt("locationName", Type.STRING, null),
                opt("locationAddress", Type.STRING, null),
                opt("locationCity", Type.STRING, null),
                req("latitude", Type.NUMBER, rule("MIG-EXP-002", v -> within(v, 90))),
                req("longitude", Type.NUMBER, rule("MIG-EXP-002", v -> within(v, 180))),
                req("horizontalAccuracy", Type.NUMBER, rule("MIG-EXP-002", MigrationTestee::isAccuracy)),
                req("verticalAccuracy", Type.NUMBER, rule("MIG-EXP-002", MigrationTestee::isAccuracy))),
                e -> lower(e, "id"), "id"));
        EXPORTS.put("media", new Export("media", List.of(
                req("id", Type.STRING, UUID),
                req("type", Type.STRING, rule("MIG-EXP-003", v -> v.equals("image") || v.equals("video"))),
                req("fileName", Type.STRING, rule("MIG-EXP-003", v -> isPlainFileName((String) v))),
                opt("thumbnailFileName", Type.STRING, rule("MIG-EXP-003", v -> isPlainFileName((String) v))),
                req("encryptionKeyId", Type.STRING, rule("MIG-EXP-003", v -> !isBlank((String) v))),
                req("fileSize", Type.INTEGER, rule("MIG-EXP-003", v -> (Long) v >= 0)),
                req("width", Type.INTEGER, rule("MIG-EXP-003", v -> (Long) v >= 0)),
                req("height", Type.INTEGER, rule("MIG-EXP-003", v -> (Long) v >= 0)),
                req("duration", Type.NUMBER, rule("MIG-EXP-003", v -> ((BigDecimal) v).signum() >= 0)),
                req("createdAt", Type.INTEGER, TIME),
                opt("storyId", Type.STRING, UUID)),
                e -> lower(e, "id"), "id"));
        EXPORTS.put("settings", new Export("settings", List.of(
                req("key", Type.STRING, rule("MIG-EXP-004", v -> !isBlank((String) v))),
                req("type", Type.STRING, rule("MIG-EXP-004", v -> SETTING_TYPES.contains(v))),
                req("value", Type.STRING, (v, path, e) -> {
                    if (!isSettingValue((String) e.get("type"), (String) v)) throw new Violation("MIG-EXP-004", path);
                }),
                req("updatedAt", Type.INTEGER, TIME)),
                // keys are the seed's unique constraint: exact code points, no normalization
                e -> (String) e.get("key"), "key"));
        EXPORTS.put("relations_story_categories", new Export("relations_story_categories", List.of(
                req("storyId", Type.STRING, UUID),
                req("categoryId", Type.STRING, UUID)),
                e -> lower(e, "storyId") + " " + lower(e, "categoryId"), "categoryId"));
    }

    /** MIG-EXP-004: a setting's value is the string form of its type. */
    static boolean isSettingValue(String type, String value) {
        switch (type) {
            case "bool":
                return value.equals("true") || value.equals("false");
            case "int": {
                int start = value.startsWith("-") ? 1 : 0; // a sign is "-" only, never "+"
                if (start == value.length()) return false;
                for (int k = start; k < value.length(); k++) {
                    char c = value.charAt(k);
                    if (c < '0' || c > '9') return false;
                }
                BigInteger n = new BigInteger(value);
                return n.compareTo(INT64_MIN) >= 0 && n.compareTo(INT64_MAX) <= 0;
            }
            case "double": {
                double d;
                var hex = HEX_DOUBLE.matcher(value);
                if (DECIMAL_DOUBLE.matcher(value).matches()) {
                    d = Double.parseDouble(value);
                } else if (hex.matches()) {
                    // Java wants a binary exponent on every hexadecimal literal; strtod does not
                    d = Double.parseDouble(hex.group(1) + "0x" + hex.group(2) + (hex.group(3).isEmpty() ? "p0" : hex.group(3)));
                } else {
                    return false;
                }
                return !Double.isInfinite(d) && !Double.isNaN(d); // 1e999 overflows: not finite
            }
            case "json":
                try {
                    new JsonReader(value.getBytes(StandardCharsets.UTF_8), MAX_DEPTH).readDocument();
                    return true;
                } catch (Violation v) {
                    return false;
                }
            default: // "string": anything
                return true;
        }
    }

    static Checked checkExport(Export export, Object document) {
        if (!(document instanceof List)) return Checked.rejected(new Violation("CORE-TYPE-003", ""));
        List<Object> elements = asArray(document);
        Findings f = new Findings();
        Set<String> seen = new HashSet<>();
        List<Object> canonical = new ArrayList<>();
        for (int i = 0; i < elements.size(); i++) {
            Object element = elements.get(i);
            String path = "/" + i;
            if (!f.group(() -> checkElement(export, element, path))) continue;
            Map<String, Object> e = asObject(element);
            if (!seen.add(export.uniqueKey().apply(e))) f.add(new Violation("MIG-ID-002", path + "/" + export.uniqueMember()));
            Map<String, Object> c = new LinkedHashMap<>();
            for (Member m : export.members()) {
                Object v = optional(e, m.name());
                if (v != null) c.put(m.name(), v); // values as received, members not given left out
            }
            canonical.add(c);
        }
        return f.violations.isEmpty() ? new Checked(canonical, List.of()) : new Checked(null, f.violations);
    }

    static void checkElement(Export export, Object element, String base) {
        if (!(element instanceof Map)) throw new Violation("CORE-TYPE-003", base);
        Map<String, Object> e = asObject(element);
        for (Member m : export.members()) {
            String path = pointer(base, m.name());
            Object v = m.required() ? required(e, base, m.name()) : optional(e, m.name());
            if (v == null) continue; // an optional member not given
            Object typed;
            switch (m.type()) {
                case STRING: typed = asString(v, path); break;
                case INTEGER: typed = asInteger(v, path); break;
                case NUMBER: typed = asNumber(v, path); break;
                default: typed = asBoolean(v, path); break;
            }
            if (m.check() != null) m.check().check(typed, path, e);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Package (Spec/migration.md sections 3.1, 3.4, 4): the zip checked whole, first failing check
    // only, in the order a receiver meets them while restoring (section 4): the archive and every
    // entry (MIG-PKG-006) before anything is written, the folder against the manifest (MIG-MAN-001),
    // the manifest, the listing (each file listed, with its size and digest), the exports in the
    // seed's import order, then the rules across files in the Spec's order (MIG-PKG-001..005, -007).
    // ------------------------------------------------------------------------------------------

    static final long MAXIMUM_ENTRIES = 1_000_000;
    static final long MAXIMUM_UNPACKED = 1L << 40;
    static final long MAXIMUM_RATIO = 1000;
    static final List<String> IMPORT_ORDER = List.of("settings", "categories", "stories", "media", "relations_story_categories");

    static Object checkPackage(byte[] zip, Context context) {
        Archive archive = readArchive(zip);
        Unpacked unpacked = checkEntries(zip, archive);
        Map<String, Stored> entries = unpacked.entries();

        // The manifest first: its backupId names the folder (MIG-MAN-001 is part of the archive
        // check), and its listing says what else may be written.
        Stored manifestEntry = entries.get("manifest.json");
        if (manifestEntry == null) throw new Violation("MIG-PKG-005", "/manifest.json");
        Object manifestDocument = parseIn(extract(zip, manifestEntry), "/manifest.json");
        if (manifestDocument instanceof Map && asObject(manifestDocument).get("backupId") instanceof String) {
            // the folder is the string Backup-{backupId}: compared as written, like every path
            String backupId = (String) asObject(manifestDocument).get("backupId");
            if (!unpacked.folder().equals("Backup-" + backupId)) throw new Violation("MIG-MAN-001", "/manifest.json/backupId");
        }
        firstViolation(checkManifest(manifestDocument, context), "/manifest.json");
        Map<String, Object> manifest = asObject(manifestDocument);

        // The listing (section 4): each file is refused before a byte of it is written when it is
        // not listed or its declared size is not the listed one, so staging never holds more than
        // the manifest declares; its digest is checked as it is written.
        List<Object> listed = asArray(asObject(manifest.get("integrity")).get("files"));
        Map<String, Integer> listedIndex = new LinkedHashMap<>();
        for (int i = 0; i < listed.size(); i++) listedIndex.put((String) asObject(listed.get(i)).get("path"), i);
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (Map.Entry<String, Stored> stored : entries.entrySet()) {
            if (stored.getKey().equals("manifest.json")) continue;
            Integer i = listedIndex.get(stored.getKey());
            if (i == null) throw new Violation("MIG-PKG-005", pointer("/files", stored.getKey()));
            Map<String, Object> entry = asObject(listed.get(i));
            String base = "/manifest.json/integrity/files/" + i;
            if (stored.getValue().entry().size != asInteger(entry.get("size"), base)) throw new Violation("MIG-PKG-005", base + "/size");
            byte[] data = extract(zip, stored.getValue());
            if (!hex(sha256().digest(data)).equals(entry.get("sha256"))) throw new Violation("MIG-PKG-005", base + "/sha256");
            files.put(stored.getKey(), data);
        }

        Map<String, List<Object>> exports = new LinkedHashMap<>();
        for (String name : IMPORT_ORDER) {
            String path = "coredata/" + name + ".json";
            byte[] bytes = files.get(path);
            if (bytes == null) throw new Violation("MIG-PKG-005", "/" + path);
            Object document = parseIn(bytes, "/" + path);
            firstViolation(checkExport(EXPORTS.get(name), document), "/" + path);
            exports.put(name, asArray(document));
        }
        // a listed file the archive does not hold (the Spec does not say when: here after the
        // exports, so that a missing export is named as such)
        for (Map.Entry<String, Integer> e : listedIndex.entrySet()) {
            if (!files.containsKey(e.getKey())) throw new Violation("MIG-PKG-005", "/manifest.json/integrity/files/" + e.getValue() + "/path");
        }

        checkAcrossFiles(manifest, exports, files);

        Map<String, Object> canonical = new LinkedHashMap<>();
        canonical.put("backupId", manifest.get("backupId"));
        Map<String, Object> counts = new LinkedHashMap<>();
        Map<String, Object> entityStats = asObject(manifest.get("entityStats"));
        for (String entity : ENTITIES) counts.put(entity, asObject(entityStats.get(entity)).get("count"));
        canonical.put("entityCounts", counts);
        canonical.put("files", (long) listed.size());
        canonical.put("brokenMedia", asObject(manifest.get("options")).get("brokenMediaCount"));
        return canonical;
    }

    // ---- section 3.4: across files ---------------------------------------------------------------

    static final List<List<String>> ENTITY_EXPORTS = List.of(
            List.of("CategoryEntity", "categories"), List.of("StoryEntity", "stories"),
            List.of("MediaEntity", "media"), List.of("SettingEntity", "settings"));

    static void checkAcrossFiles(Map<String, Object> manifest, Map<String, List<Object>> exports, Map<String, byte[]> files) {
        List<Map<String, Object>> categories = objects(exports.get("categories"));
        List<Map<String, Object>> stories = objects(exports.get("stories"));
        List<Map<String, Object>> media = objects(exports.get("media"));
        List<Map<String, Object>> relations = objects(exports.get("relations_story_categories"));

        // MIG-PKG-001: the manifest's counts are the package's
        Map<String, Object> entityStats = asObject(manifest.get("entityStats"));
        for (List<String> pair : ENTITY_EXPORTS) {
            long count = asInteger(asObject(entityStats.get(pair.get(0))).get("count"), "");
            if (count != exports.get(pair.get(1)).size()) {
                throw new Violation("MIG-PKG-001", "/manifest.json/entityStats/" + pair.get(0) + "/count");
            }
        }
        long mediaFiles = 0;
        long mediaBytes = 0;
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            if (file.getKey().startsWith("media/")) {
                mediaFiles++;
                mediaBytes += file.getValue().length;
            }
        }
        Map<String, Object> mediaStats = asObject(manifest.get("mediaStats"));
        if (asInteger(mediaStats.get("totalFiles"), "") != mediaFiles) throw new Violation("MIG-PKG-001", "/manifest.json/mediaStats/totalFiles");
        if (asInteger(mediaStats.get("totalBytes"), "") != mediaBytes) throw new Violation("MIG-PKG-001", "/manifest.json/mediaStats/totalBytes");

        // MIG-PKG-002: the broken media agree with each other, with media.json and with the files
        Map<String, Object> options = asObject(manifest.get("options"));
        long brokenCount = asInteger(options.get("brokenMediaCount"), "");
        if ((Boolean) options.get("hasBrokenMedia") != (brokenCount > 0)) throw new Violation("MIG-PKG-002", "/manifest.json/options/hasBrokenMedia");
        List<Map<String, Object>> broken = manifest.get("brokenMedia") instanceof List ? objects(asArray(manifest.get("brokenMedia"))) : List.of();
        if (brokenCount != broken.size()) throw new Violation("MIG-PKG-002", "/manifest.json/options/brokenMediaCount");
        Map<String, Integer> mediaIndex = new LinkedHashMap<>();
        for (int i = 0; i < media.size(); i++) mediaIndex.putIfAbsent(lower(media.get(i), "id"), i);
        Set<String> brokenIds = new HashSet<>();
        for (int i = 0; i < broken.size(); i++) {
            String base = "/manifest.json/brokenMedia/" + i;
            Integer k = mediaIndex.get(lower(broken.get(i), "mediaId"));
            if (k == null) throw new Violation("MIG-PKG-002", base + "/mediaId");
            Map<String, Object> element = media.get(k);
            if (!element.get("fileName").equals(broken.get(i).get("fileName"))) throw new Violation("MIG-PKG-002", base + "/fileName");
            if (files.containsKey(mediaFolder(element) + element.get("fileName"))) {
                throw new Violation("MIG-PKG-002", "/coredata/media.json/" + k + "/fileName");
            }
            brokenIds.add(lower(element, "id"));
        }

        // MIG-PKG-003: references name existing elements (case-insensitively)
        Set<String> categoryIds = ids(categories, "id");
        Set<String> storyIds = ids(stories, "id");
        for (int i = 0; i < categories.size(); i++) {
            if (categories.get(i).get("parentId") instanceof String && !categoryIds.contains(lower(categories.get(i), "parentId"))) {
                throw new Violation("MIG-PKG-003", "/coredata/categories.json/" + i + "/parentId");
            }
        }
        for (int i = 0; i < media.size(); i++) {
            if (media.get(i).get("storyId") instanceof String && !storyIds.contains(lower(media.get(i), "storyId"))) {
                throw new Violation("MIG-PKG-003", "/coredata/media.json/" + i + "/storyId");
            }
        }
        for (int i = 0; i < relations.size(); i++) {
            String base = "/coredata/relations_story_categories.json/" + i;
            if (!storyIds.contains(lower(relations.get(i), "storyId"))) throw new Violation("MIG-PKG-003", base + "/storyId");
            if (!categoryIds.contains(lower(relations.get(i), "categoryId"))) throw new Violation("MIG-PKG-003", base + "/categoryId");
        }

        // MIG-PKG-004: the categories form a forest whose levels count from its roots
        Map<String, Map<String, Object>> categoryById = new LinkedHashMap<>();
        for (Map<String, Object> c : categories) categoryById.putIfAbsent(lower(c, "id"), c);
        for (int i = 0; i < categories.size(); i++) {
            String base = "/coredata/categories.json/" + i;
            Map<String, Object> c = categories.get(i);
            if (isOnCycle(c, categoryById)) throw new Violation("MIG-PKG-004", base + "/parentId");
            long level = asInteger(c.get("level"), base);
            if (!(c.get("parentId") instanceof String)) {
                if (level != 1) throw new Violation("MIG-PKG-004", base + "/level");
            } else if (level != asInteger(categoryById.get(lower(c, "parentId")).get("level"), base) + 1) {
                throw new Violation("MIG-PKG-004", base + "/level");
            }
        }

        // MIG-PKG-005 (the media files): every media element not broken has its file, of its size,
        // at media/{Images|Videos}/YYYY/MM/ (UTC) and its thumbnail beside it
        for (int i = 0; i < media.size(); i++) {
            Map<String, Object> element = media.get(i);
            if (brokenIds.contains(lower(element, "id"))) continue;
            String base = "/coredata/media.json/" + i;
            String folder = mediaFolder(element);
            byte[] file = files.get(folder + element.get("fileName"));
            if (file == null) throw new Violation("MIG-PKG-005", base + "/fileName");
            if (file.length != asInteger(element.get("fileSize"), base)) throw new Violation("MIG-PKG-005", base + "/fileSize");
            Object thumbnail = element.get("thumbnailFileName");
            if (thumbnail instanceof String && !files.containsKey(folder + thumbnail)) {
                throw new Violation("MIG-PKG-005", base + "/thumbnailFileName");
            }
        }

        // MIG-PKG-007: the media cannot be read without the master key
        byte[] masterKey = files.get("security/master_key.bin");
        if (masterKey == null || masterKey.length < 1 || masterKey.length > 4096) {
            throw new Violation("MIG-PKG-007", "/security/master_key.bin");
        }
    }

    /** True when following parentId from `start` comes back to it. */
    static boolean isOnCycle(Map<String, Object> start, Map<String, Map<String, Object>> byId) {
        Map<String, Object> c = start;
        for (int steps = 0; steps <= byId.size(); steps++) {
            if (!(c.get("parentId") instanceof String)) return false;
            c = byId.get(lower(c, "parentId"));
            if (c == null) return false;
            if (c == start) return true;
        }
        return false; // a cycle further up, not through `start`
    }

    /** media/{Images|Videos}/YYYY/MM/ from the element's type and createdAt, in UTC (section 3.1). */
    static String mediaFolder(Map<String, Object> element) {
        ZonedDateTime t = Instant.ofEpochSecond(asInteger(element.get("createdAt"), "")).atZone(ZoneOffset.UTC);
        String kind = "video".equals(element.get("type")) ? "Videos" : "Images";
        return String.format(Locale.ROOT, "media/%s/%04d/%02d/", kind, t.getYear(), t.getMonthValue());
    }

    static Set<String> ids(List<Map<String, Object>> elements, String member) {
        Set<String> ids = new HashSet<>();
        for (Map<String, Object> e : elements) ids.add(lower(e, member));
        return ids;
    }

    static List<Map<String, Object>> objects(List<Object> list) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : list) out.add(asObject(o));
        return out;
    }

    /** A document of the package: its wire-profile violations carry the file's path first. */
    static Object parseIn(byte[] bytes, String prefix) {
        try {
            return parseDocument(bytes);
        } catch (Violation v) {
            throw new Violation(v.rule, prefix + v.path);
        }
    }

    static void firstViolation(Checked checked, String prefix) {
        if (!checked.violations.isEmpty()) {
            Violation v = checked.violations.get(0);
            throw new Violation(v.rule, prefix + v.path);
        }
    }

    // ---- the zip, read from its central directory (MIG-PKG-006) ----------------------------------

    static final class Entry {
        byte[] rawName;
        String name;
        boolean nameValid = true; // flagged UTF-8 and valid, or code page 437
        int madeBy;
        int flags;
        int method;
        long compressedSize;
        long size;
        long localOffset;
        long externalAttributes;
        boolean zip64;

        String pointer() {
            return MigrationTestee.pointer("/entries", name);
        }
    }

    record Archive(List<Entry> entries, long centralOffset, long centralEnd) {}

    static final int FLAG_ENCRYPTED = 1;
    static final int FLAG_DATA_DESCRIPTOR = 1 << 3;
    static final int FLAG_STRONG_ENCRYPTION = 1 << 6;
    static final int FLAG_UTF8 = 1 << 11;
    static final long SATURATED32 = 0xFFFFFFFFL;

    /** The end record (the one whose comment ends the file), ZIP64's when it says so, and the
     * central directory's records. Anything unreadable here is MIG-PKG-006 at "". */
    static Archive readArchive(byte[] z) {
        Violation unreadable = new Violation("MIG-PKG-006", "");
        int eocd = -1;
        for (int p = z.length - 22; p >= 0 && p >= z.length - 22 - 0xFFFF; p--) {
            if (u32(z, p) == 0x06054b50L && p + 22 + u16(z, p + 20) == z.length) {
                eocd = p;
                break;
            }
        }
        if (eocd < 0) throw unreadable;
        long disk = u16(z, eocd + 4);
        long centralDisk = u16(z, eocd + 6);
        long count = u16(z, eocd + 10);
        long centralSize = u32(z, eocd + 12);
        long centralOffset = u32(z, eocd + 16);
        long centralLimit = eocd;
        if (count == 0xFFFF || centralSize == SATURATED32 || centralOffset == SATURATED32) {
            int locator = eocd - 20;
            if (locator < 0 || u32(z, locator) != 0x07064b50L) throw unreadable;
            long record = u64(z, locator + 8);
            if (record < 0 || record + 56 > locator || u32(z, (int) record) != 0x06064b50L) throw unreadable;
            int r = (int) record;
            disk = u32(z, r + 16);
            centralDisk = u32(z, r + 20);
            count = u64(z, r + 32);
            centralSize = u64(z, r + 40);
            centralOffset = u64(z, r + 48);
            centralLimit = record;
        }
        if (disk != 0 || centralDisk != 0) throw unreadable; // split archives are not packages
        if (count < 0 || centralSize < 0 || centralOffset < 0 || centralOffset + centralSize > centralLimit) throw unreadable;
        if (count > MAXIMUM_ENTRIES) throw unreadable;

        List<Entry> entries = new ArrayList<>();
        long p = centralOffset;
        long end = centralOffset + centralSize;
        for (int k = 0; k < count; k++) {
            if (p + 46 > end || u32(z, (int) p) != 0x02014b50L) throw unreadable;
            int at = (int) p;
            int nameLength = u16(z, at + 28);
            int extraLength = u16(z, at + 30);
            int commentLength = u16(z, at + 32);
            if (p + 46 + nameLength + extraLength + commentLength > end) throw unreadable;
            Entry e = new Entry();
            e.madeBy = u16(z, at + 4);
            e.flags = u16(z, at + 8);
            e.method = u16(z, at + 10);
            e.compressedSize = u32(z, at + 20);
            e.size = u32(z, at + 24);
            int entryDisk = u16(z, at + 34);
            e.externalAttributes = u32(z, at + 38);
            e.localOffset = u32(z, at + 42);
            e.rawName = Arrays.copyOfRange(z, at + 46, at + 46 + nameLength);
            decodeName(e);
            if (e.size == SATURATED32 || e.compressedSize == SATURATED32 || e.localOffset == SATURATED32 || entryDisk == 0xFFFF) {
                // ZIP64 extended information: the saturated fields, in this order
                int x = findExtra(z, at + 46 + nameLength, extraLength, 0x0001);
                if (x < 0) throw unreadable;
                int xEnd = x + 4 + u16(z, x + 2);
                int q = x + 4;
                if (e.size == SATURATED32) { if (q + 8 > xEnd) throw unreadable; e.size = u64(z, q); q += 8; }
                if (e.compressedSize == SATURATED32) { if (q + 8 > xEnd) throw unreadable; e.compressedSize = u64(z, q); q += 8; }
                if (e.localOffset == SATURATED32) { if (q + 8 > xEnd) throw unreadable; e.localOffset = u64(z, q); q += 8; }
                if (entryDisk == 0xFFFF) { if (q + 4 > xEnd) throw unreadable; entryDisk = (int) u32(z, q); }
                e.zip64 = true;
            }
            if (entryDisk != 0 || e.size < 0 || e.compressedSize < 0 || e.localOffset < 0) throw unreadable;
            entries.add(e);
            p += 46 + nameLength + extraLength + commentLength;
        }
        return new Archive(entries, centralOffset, end);
    }

    /** A name flagged UTF-8 must be valid UTF-8; any other name is code page 437. */
    static void decodeName(Entry e) {
        if ((e.flags & FLAG_UTF8) != 0) {
            try {
                e.name = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(e.rawName)).toString();
            } catch (CharacterCodingException x) {
                e.name = new String(e.rawName, StandardCharsets.UTF_8); // only to name it in the report
                e.nameValid = false;
            }
        } else {
            StringBuilder s = new StringBuilder();
            for (byte b : e.rawName) s.append((b & 0x80) == 0 ? (char) b : CP437_HIGH.charAt((b & 0xFF) - 0x80));
            e.name = s.toString();
        }
    }

    /** Code page 437's characters for bytes 0x80..0xFF (the low half is ASCII). */
    static final String CP437_HIGH =
            "\u00C7\u00FC\u00E9\u00E2\u00E4\u00E0\u00E5\u00E7\u00EA\u00EB\u00E8\u00EF\u00EE\u00EC\u00C4\u00C5"
            + "\u00C9\u00E6\u00C6\u00F4\u00F6\u00F2\u00FB\u00F9\u00FF\u00D6\u00DC\u00A2\u00A3\u00A5\u20A7\u0192"
            + "\u00E1\u00ED\u00F3\u00FA\u00F1\u00D1\u00AA\u00BA\u00BF\u2310\u00AC\u00BD\u00BC\u00A1\u00AB\u00BB"
            + "\u2591\u2592\u2593\u2502\u2524\u2561\u2562\u2556\u2555\u2563\u2551\u2557\u255D\u255C\u255B\u2510"
            + "\u2514\u2534\u252C\u251C\u2500\u253C\u255E\u255F\u255A\u2554\u2569\u2566\u2560\u2550\u256C\u2567"
            + "\u2568\u2564\u2565\u2559\u2558\u2552\u2553\u256B\u256A\u2518\u250C\u2588\u2584\u258C\u2590\u2580"
            + "\u03B1\u00DF\u0393\u03C0\u03A3\u03C3\u00B5\u03C4\u03A6\u0398\u03A9\u03B4\u221E\u03C6\u03B5\u2229"
            + "\u2261\u00B1\u2265\u2264\u2320\u2321\u00F7\u2248\u00B0\u2219\u00B7\u221A\u207F\u00B2\u25A0\u00A0";

    /** An entry that passed MIG-PKG-006, and where its bytes start. */
    record Stored(Entry entry, long dataStart) {}

    /** What a checked archive holds: its folder and each entry by its package-relative path. */
    record Unpacked(String folder, Map<String, Stored> entries) {}

    /** Every entry, in central-directory order, before anything is written: the first that breaks
     * a rule of MIG-PKG-006 is reported at its central name. */
    static Unpacked checkEntries(byte[] z, Archive archive) {
        String folder = null;
        Set<String> foldedNames = new HashSet<>();
        TreeMap<Long, Long> extents = new TreeMap<>(); // start -> end of each entry's bytes so far
        long unpacked = 0;
        Map<String, Stored> stored = new LinkedHashMap<>();
        for (Entry e : archive.entries()) {
            Violation bad = new Violation("MIG-PKG-006", e.pointer());

            // the name: a safe relative path, in the one Backup-{id}/ folder, NFC, unique ignoring case
            if (!e.nameValid || !isPackagePath(e.name)) throw bad;
            String[] segments = e.name.split("/", -1);
            if (segments.length < 2 || !segments[0].startsWith("Backup-")) throw bad;
            if (folder == null) folder = segments[0];
            else if (!folder.equals(segments[0])) throw bad;
            if (!foldedNames.add(foldName(e.name))) throw bad;

            // what the entry is: a regular file, stored or deflated, not encrypted, not a bomb
            if (isSymbolicLink(e)) throw bad;
            if ((e.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) != 0) throw bad;
            if (e.method != 0 && e.method != 8) throw bad;
            // stored data has no end of its own: a front-to-back reader needs its size up front
            if (e.method == 0 && (e.compressedSize != e.size || (e.flags & FLAG_DATA_DESCRIPTOR) != 0)) throw bad;
            // the declared sizes are the claim a bomb makes: judged before a byte is inflated
            if (e.compressedSize < Long.MAX_VALUE / MAXIMUM_RATIO && e.size > MAXIMUM_RATIO * e.compressedSize) throw bad;
            unpacked += e.size;
            if (unpacked > MAXIMUM_UNPACKED) throw bad;

            // the local header must say what the central directory says (a streaming reader sees only it)
            long lho = e.localOffset;
            if (lho + 30 > z.length || u32(z, (int) lho) != 0x04034b50L) throw bad;
            int l = (int) lho;
            int localFlags = u16(z, l + 6);
            int localMethod = u16(z, l + 8);
            long localCompressed = u32(z, l + 18);
            long localSize = u32(z, l + 22);
            int localNameLength = u16(z, l + 26);
            int localExtraLength = u16(z, l + 28);
            if (lho + 30 + localNameLength + localExtraLength > z.length) throw bad;
            if (!Arrays.equals(z, l + 30, l + 30 + localNameLength, e.rawName, 0, e.rawName.length)) throw bad;
            if (localMethod != e.method) throw bad;
            int compared = FLAG_ENCRYPTED | FLAG_DATA_DESCRIPTOR | FLAG_UTF8;
            if ((localFlags & compared) != (e.flags & compared)) throw bad;
            if ((e.flags & FLAG_DATA_DESCRIPTOR) == 0) {
                if (localCompressed == SATURATED32 || localSize == SATURATED32) {
                    int x = findExtra(z, l + 30 + localNameLength, localExtraLength, 0x0001);
                    if (x < 0) throw bad;
                    int xLength = u16(z, x + 2);
                    int q = x + 4;
                    // the local ZIP64 field holds both sizes (APPNOTE 4.5.3), or just the saturated one
                    if (localSize == SATURATED32 || xLength >= 16) { if (q + 8 > x + 4 + xLength) throw bad; localSize = u64(z, q); q += 8; }
                    if (localCompressed == SATURATED32 || xLength >= 16) { if (q + 8 > x + 4 + xLength) throw bad; localCompressed = u64(z, q); }
                }
                if (localCompressed != e.compressedSize || localSize != e.size) throw bad;
            }

            // its bytes lie in the file and overlap neither another entry's nor the directory
            long dataStart = lho + 30 + localNameLength + localExtraLength;
            long dataEnd = dataStart + e.compressedSize;
            if (dataEnd > z.length) throw bad;
            long extentEnd = dataEnd;
            if ((e.flags & FLAG_DATA_DESCRIPTOR) != 0) {
                int signature = dataEnd + 4 <= z.length && u32(z, (int) dataEnd) == 0x08074b50L ? 4 : 0;
                extentEnd = dataEnd + signature + (e.zip64 ? 20 : 12);
                if (extentEnd > z.length) throw bad;
            }
            if (lho < archive.centralEnd() && extentEnd > archive.centralOffset()) throw bad;
            Map.Entry<Long, Long> before = extents.floorEntry(lho);
            Map.Entry<Long, Long> after = extents.ceilingEntry(lho);
            if ((before != null && before.getValue() > lho) || (after != null && after.getKey() < extentEnd)) throw bad;
            extents.put(lho, extentEnd);

            stored.put(e.name.substring(folder.length() + 1), new Stored(e, dataStart));
        }
        if (folder == null) throw new Violation("MIG-PKG-006", ""); // no entry, no package folder
        return new Unpacked(folder, stored);
    }

    /** An entry's bytes, once the listing allowed it: extraction writes exactly the declared
     * size, never more, never less (MIG-PKG-006). */
    static byte[] extract(byte[] z, Stored s) {
        Entry e = s.entry();
        if (e.method == 0) return Arrays.copyOfRange(z, (int) s.dataStart(), (int) (s.dataStart() + e.compressedSize));
        return inflateExactly(z, (int) s.dataStart(), (int) e.compressedSize, e.size, new Violation("MIG-PKG-006", e.pointer()));
    }

    /** MIG-PKG-006's path syntax: relative, '/'-separated, no empty segment nor one of only dots and
     * spaces (Windows trims ".. " to ".."), no backslash, colon or control character, at most 1024
     * UTF-8 bytes, and NFC. Segments are split on the character '/', which is the byte 0x2F in
     * UTF-8: never on grapheme clusters, where "/" and a following U+0301 are one unit. */
    static boolean isPackagePath(String path) {
        if (path.isEmpty() || path.getBytes(StandardCharsets.UTF_8).length > 1024) return false;
        for (int k = 0; k < path.length(); k++) {
            char c = path.charAt(k);
            if (c == '\\' || c == ':' || isControl(c)) return false;
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.chars().allMatch(c -> c == '.' || c == ' ')) return false;
        }
        return Normalizer.isNormalized(path, Normalizer.Form.NFC);
    }

    /** MIG-EXP-003: a plain file name (no '/', '\', control character, not "." or "..", at most 255
     * UTF-8 bytes, NFC like every package path). */
    static boolean isPlainFileName(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..")) return false;
        if (name.getBytes(StandardCharsets.UTF_8).length > 255) return false;
        for (int k = 0; k < name.length(); k++) {
            char c = name.charAt(k);
            if (c == '/' || c == '\\' || isControl(c)) return false;
        }
        return Normalizer.isNormalized(name, Normalizer.Form.NFC);
    }

    static boolean isControl(char c) {
        return c < 0x20 || c == 0x7F;
    }

    /** The key under which two names are "equal after Unicode default case folding (then NFC)".
     * Java has no case-folding API; upper- then lower-casing in the root locale folds what full
     * case folding folds for file names ("ß"/"SS", "ſ"/"s", KELVIN SIGN/"k"), both sides alike. */
    static String foldName(String name) {
        return Normalizer.normalize(name.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT), Normalizer.Form.NFC);
    }

    /** Unix mode bits in the external attributes of an entry made on Unix (3) or macOS (19). */
    static boolean isSymbolicLink(Entry e) {
        int host = e.madeBy >> 8;
        long mode = (e.externalAttributes >>> 16) & 0xFFFF;
        return (host == 3 || host == 19) && (mode & 0170000) == 0120000;
    }

    /** A raw deflate stream that must produce exactly `size` bytes. */
    static byte[] inflateExactly(byte[] z, int offset, int length, long size, Violation bad) {
        if (size > Integer.MAX_VALUE - 16) {
            // within the Spec's bounds, beyond this in-memory template: not a verdict
            throw new UnsupportedOperationException("entry of " + size + " bytes is too large for this testee");
        }
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(z, offset, length);
            byte[] out = new byte[(int) size];
            int filled = 0;
            while (filled < out.length) {
                int n = inflater.inflate(out, filled, out.length - filled);
                if (n == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) throw bad; // fewer
                filled += n;
            }
            if (!inflater.finished()) {
                byte[] one = new byte[1];
                if (inflater.inflate(one) > 0 || !inflater.finished()) throw bad; // more (or no end)
            }
            return out;
        } catch (DataFormatException x) {
            throw bad;
        } finally {
            inflater.end();
        }
    }

    /** The offset of extra field `tag` within [at, at + length), or -1. */
    static int findExtra(byte[] z, int at, int length, int tag) {
        int p = at;
        while (p + 4 <= at + length) {
            int size = u16(z, p + 2);
            if (u16(z, p) == tag) return p + 4 + size <= at + length ? p : -1;
            p += 4 + size;
        }
        return -1;
    }

    static int u16(byte[] b, int at) {
        if (at < 0 || at + 2 > b.length) return -1;
        return (b[at] & 0xFF) | ((b[at + 1] & 0xFF) << 8);
    }

    static long u32(byte[] b, int at) {
        if (at < 0 || at + 4 > b.length) return -1;
        return (b[at] & 0xFFL) | ((b[at + 1] & 0xFFL) << 8) | ((b[at + 2] & 0xFFL) << 16) | ((b[at + 3] & 0xFFL) << 24);
    }

    /** Little-endian u64; -1 (unreadable) when out of bounds or at or above 2^63. */
    static long u64(byte[] b, int at) {
        if (at < 0 || at + 8 > b.length) return -1;
        long low = u32(b, at);
        long high = u32(b, at + 4);
        return high >= 0x80000000L ? -1 : (high << 32) | low;
    }

    // ------------------------------------------------------------------------------------------
    // Shared member rules (Spec/migration.md 3.2, 3.3) and typed members (Spec/core.md CORE-TYPE-*)
    // ------------------------------------------------------------------------------------------

    /** MIG-ID-001: 8-4-4-4-12 hexadecimal digits, either case; ASCII only (no \d, no \p{XDigit}). */
    static boolean isUuid(String s) {
        if (s.length() != 36) return false;
        for (int k = 0; k < 36; k++) {
            char c = s.charAt(k);
            if (k == 8 || k == 13 || k == 18 || k == 23) {
                if (c != '-') return false;
            } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }

    static void checkUuid(String s, String path) {
        if (!isUuid(s)) throw new Violation("MIG-ID-001", path);
    }

    /** MIG-TIME-001: Unix seconds, an integer in [10^9, 10^11) (milliseconds fall outside). */
    static void checkTime(Object v, String path) {
        checkTimeValue(asInteger(v, path), path);
    }

    static void checkTimeValue(long seconds, String path) {
        if (seconds < 1_000_000_000L || seconds >= 100_000_000_000L) throw new Violation("MIG-TIME-001", path);
    }

    static boolean isLowerHex(String s, int length) {
        if (s.length() != length) return false;
        for (int k = 0; k < length; k++) {
            char c = s.charAt(k);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
        }
        return true;
    }

    /** Blank: empty or only Unicode White_Space (not String.isBlank, whose whitespace differs:
     * it counts U+001C..U+001F and misses U+0085, U+00A0, U+2007, U+202F). */
    static boolean isBlank(String s) {
        for (int k = 0; k < s.length(); k++) {
            if (!isWhiteSpace(s.charAt(k))) return false;
        }
        return true;
    }

    static boolean isWhiteSpace(char c) {
        return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680
                || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F
                || c == 0x205F || c == 0x3000;
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

    static long requiredInteger(Map<String, Object> o, String base, String name) {
        return asInteger(required(o, base, name), pointer(base, name));
    }

    static Map<String, Object> requiredObject(Map<String, Object> o, String base, String name) {
        Object v = required(o, base, name);
        if (!(v instanceof Map)) throw new Violation("CORE-TYPE-003", pointer(base, name));
        return asObject(v);
    }

    static String asString(Object v, String path) {
        if (!(v instanceof String)) throw new Violation("CORE-TYPE-003", path);
        return (String) v;
    }

    static Boolean asBoolean(Object v, String path) {
        if (!(v instanceof Boolean)) throw new Violation("CORE-TYPE-003", path);
        return (Boolean) v;
    }

    static BigDecimal asNumber(Object v, String path) {
        if (!(v instanceof Json.Number)) throw new Violation("CORE-TYPE-003", path);
        return new BigDecimal(((Json.Number) v).literal());
    }

    static final BigInteger MAX_SAFE = BigInteger.valueOf((1L << 53) - 1);

    /** CORE-TYPE-003 (a number), CORE-TYPE-004 (an integer literal within +-(2^53 - 1)). */
    static long asInteger(Object v, String path) {
        if (v instanceof Long) return (Long) v;
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

    /** The given members of `o` (present, not null), in this order, values as received. */
    static Map<String, Object> pick(Map<String, Object> o, String... names) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String name : names) {
            Object v = optional(o, name);
            if (v != null) out.put(name, v);
        }
        return out;
    }

    /** RFC 6901: a member's pointer under base (~ as ~0, / as ~1). */
    static String pointer(String base, String name) {
        return base + "/" + name.replace("~", "~0").replace("/", "~1");
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (byte b : bytes) s.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        return s.toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asObject(Object v) {
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asArray(Object v) {
        return (List<Object>) v;
    }

    // ---- results -------------------------------------------------------------------------------

    /** One failing check: a rule id and an RFC 6901 pointer into the document. */
    static final class Violation extends RuntimeException {
        final String rule;
        final String path;

        Violation(String rule, String path) {
            super(rule + " at \"" + path + "\"", null, false, false);
            this.rule = rule;
            this.path = path;
        }

        Map<String, Object> toJson() {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("path", path);
            v.put("rule", rule);
            return v;
        }
    }

    /** Every violation of a document that reports them all (the manifest and the exports). */
    static final class Rejected extends RuntimeException {
        final List<Violation> violations;

        Rejected(List<Violation> violations) {
            super(violations.size() + " violations", null, false, false);
            this.violations = violations;
        }
    }

    /** A checked document: its canonical form, or its violations in document order. */
    record Checked(Object canonical, List<Violation> violations) {
        static Checked rejected(Violation v) {
            return new Checked(null, List.of(v));
        }
    }

    static Object accepted(Checked checked) {
        if (!checked.violations().isEmpty()) throw new Rejected(checked.violations());
        return checked.canonical();
    }

    /** Collects the first failing check of each independent group (core.md, Order of checks). */
    static final class Findings {
        final List<Violation> violations = new ArrayList<>();

        boolean group(Runnable check) {
            try {
                check.run();
                return true;
            } catch (Violation v) {
                violations.add(v);
                return false;
            }
        }

        void add(Violation v) {
            violations.add(v);
        }
    }

    static final class InvalidRequest extends RuntimeException {
        InvalidRequest(String reason) {
            super(reason);
        }
    }

    // ------------------------------------------------------------------------------------------
    // The wire profile (Spec/core.md): a strict reader on the exact bytes. Checks, in document
    // order: CORE-JSON-004 (size, before parsing), -001 (syntax), -002 (UTF-8 and \\u escapes), -003
    // (duplicate names after unescaping), -005 (depth), -006 (finite numbers).
    // Values: Map (LinkedHashMap), List, String, Json.Number, Boolean, Json.NULL.
    // ------------------------------------------------------------------------------------------

    static final int MAX_DEPTH = 64;
    static final long MAX_DOCUMENT = 256L << 20; // the package's limit (migration.md introduction)

    static Object parseDocument(byte[] bytes) {
        if (bytes.length > MAX_DOCUMENT) throw new Violation("CORE-JSON-004", "");
        return new JsonReader(bytes, MAX_DEPTH).readDocument();
    }

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
                // names compare code point by code point, never normalized (CORE-JSON-003)
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
                int c = b[i + k] & 0xFF;
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0) throw new Violation("CORE-JSON-001", path);
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
            if (c >= 0xC2 && c <= 0xDF) {
                count = 1;
                min = 0x80;
            } else if (c >= 0xE0 && c <= 0xEF) {
                count = 2;
                min = 0x800;
                if (c == 0xE0) lo = 0xA0;
                if (c == 0xED) hi = 0x9F; // no UTF-16 surrogates (CESU-8)
            } else if (c >= 0xF0 && c <= 0xF4) {
                count = 3;
                min = 0x10000;
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
    // JSON values and the writer (answers and canonical forms). Numbers of a document are written
    // as received: canonical forms keep "values as received", and the runner compares by value.
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
                sb.append(((Number) v).literal());
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
    }

    // ---- I/O helpers ---------------------------------------------------------------------------

    /** One request line (without its \n), or null at end of input. Split on \n only: strings may
     * hold U+2028 raw. */
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
        System.err.println("migration-testee: " + message);
    }
}
