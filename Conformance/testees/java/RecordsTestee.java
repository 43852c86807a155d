/*
 * RecordsTestee.java: a template testee for the conformance kit's RECORDS family, for JVM teams.
 * Java 17, JDK only (javax.xml reads Xcode's model files), one source file, no build step.
 *
 * ============================================================================================
 * WHAT THIS IS
 * ============================================================================================
 *
 * Run it from the repository root (the JDK compiles it at each launch, about 1-2 s):
 *
 *     conformance run --family records --peer "exec:java Conformance/testees/java/RecordsTestee.java" --timeout 30
 *
 * It speaks the stdio protocol of Conformance/testee-protocol.md (one JSON object per line on
 * stdin/stdout: hello, validate, run-machine, bye; logs on stderr only) and implements every kind
 * and machine of the records family (Conformance/families.json; Spec/records.md, whose section 8
 * "Testee surface" says what each one is sent and answers):
 *
 *   documents  Idea, Habit, HabitLog                    CloudKit Web Services records (sections 2, 3)
 *              CD_Card, CD_CardField, CD_CardAttachment  the Spec's Core Data mirrorings (section 3)
 *              mirrored-record                          CD_ records against the app's model (section 3)
 *              sync-state, sync-log                     the app's local documents (section 4)
 *              conflict                                 conflict resolution (section 6)
 *              model, xcdatamodel                       the model checker (section 7)
 *   machines   idea-sync, log-retention, sync-queue, initial-sync (section 5), record-zone (section 6)
 *
 * on top of a small strict JSON reader for the wire profile of Spec/core.md (section 10 below,
 * the same reader as the pairing template Testee.java: a single-file launch cannot import it).
 * It was written from Spec/records.md, Spec/core.md and this folder's documents (see "LEARNED
 * FROM THE VECTORS AND THE REFERENCE" below).
 *
 * Layout: 1 protocol; 2 the record checker (envelope, fields, values); 3 the Spec's record types,
 * one schema method per kind; 4 mirrored-record; 5 sync-state, sync-log; 6 conflict; 7 model and
 * xcdatamodel; 8 the machines, one class each; 9 text helpers; 10 JSON reader and writer.
 *
 * ============================================================================================
 * HOW TO ADAPT IT
 * ============================================================================================
 *
 * A testee tests YOUR code, not this file's. Keep section 1 (main, answer, hello, the line
 * reader, logs to stderr) and replace, kind by kind, the example check with a call into your own
 * decoder or state machine:
 *
 *  1. Put your code on the class path. A single-file launch takes one:
 *         java -cp build/libs/sync-core.jar Conformance/testees/java/RecordsTestee.java
 *     or build a testee main into your jar and let the runner start the JVM itself:
 *         --peer "exec:java -jar testee/build/libs/app-testee.jar"
 *         --peer "exec:java -cp 'testee/build/libs/*' com.example.testee.Main"
 *     (or the start script of Gradle's `installDist`). NEVER `gradle run` / `./gradlew run`:
 *     Gradle writes `> Task :app:run`, progress and warnings to STANDARD OUTPUT, where the runner
 *     reads them as garbled answers, and its start-up eats the timeout. Standard output carries
 *     the answers and nothing else, UTF-8, flushed after each line; logs go to System.err.
 *  2. validate(...): call your decoder on the exact bytes (`bytes`) with the request's context
 *     (timeZone, model, previous, strictFields; section 8.1). Map success to the canonical form
 *     (section 8.2: declared members only, values as received) and failure to {rule, path}
 *     violations. How many: the six record types and mirrored-record report EVERY independent
 *     violation, model and xcdatamodel every finding, sync-state, sync-log and conflict only the
 *     FIRST failing check (core.md "Order of checks", records.md 8.1). Findings (section 1) is
 *     that list; one adapter between your error type and it is all the mapping there is.
 *  3. runMachine(...): drive your state machine with the events; answer per event its state and
 *     the actions it emitted, in the JSON shapes of records.md section 8.7.
 *  4. Say what you implement in hello() (HELLO_KINDS, HELLO_MACHINES); the rest is reported "not
 *     implemented", never failed.
 *
 * WHICH RECORDS KINDS AN ANDROID APP CLAIMS: none (writing-a-testee.md, "Android / JVM"). Records
 * are CloudKit, which is Apple's: IdeaBox's, QuickVault's and the habit tracker's records, their
 * SyncState and SyncLog and their Core Data models live on iOS and macOS. An Android app's hello
 * lists the families core, pairing and migration, not records. This template is for JVM code that
 * does handle these records: a Kotlin Multiplatform core shared with the iOS app, a server or web
 * client speaking CloudKit Web Services, a backup tool. Such code claims the kinds it decodes (the
 * record types, sync-state, sync-log, conflict, mirrored-record for a reader of a Core Data zone)
 * and the machines it runs; model and xcdatamodel check Xcode projects, record-zone is the
 * server's side (claim it only for a fake CloudKit server your tests use).
 *
 * JVM traps this file avoids, which your code must avoid too:
 *  - String.length() counts UTF-16 units: lengths are Unicode scalars (REC-LEN-001), codePointCount;
 *  - trim()/strip()/isBlank()/Character.isWhitespace are not Unicode White_Space ("blank" rules);
 *  - java.util.Base64's decoder accepts a missing padding: BYTES is standard, padded base64;
 *  - Instant.parse / ISO_INSTANT accept times without a fraction and with offsets: REC-TIME-002
 *    wants exactly YYYY-MM-DDTHH:MM:SS.sssZ;
 *  - a day's start in a zone is LocalDate.atStartOfDay(zone) (01:00 after a DST gap, REC-HLOG-002);
 *  - String.compareTo orders UTF-16 units; "code point order" (sync-queue ties) is not the same;
 *  - equalsIgnoreCase folds non-ASCII letters (U+017F, U+212A): record names compare in ASCII;
 *  - new String(bytes, UTF_8) repairs invalid UTF-8, org.json keeps the LAST duplicate member and
 *    accepts NaN, most JSON libraries pass "1.0" as an integer: CORE-JSON-002/-003/-001, CORE-TYPE-004;
 *  - javax.xml resolves DOCTYPEs and external entities by default: turn them off (readModelXml).
 *
 * ============================================================================================
 * LEARNED FROM THE VECTORS AND THE REFERENCE, NOT FROM THE DOCS: nothing now
 * ============================================================================================
 *
 * What this file first learned from the vectors, the kit's reference and its source is stated in
 * Spec/records.md (sections 1, 2, 3, 7 and 8); comments below cite the rule or section.
 */

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

public class RecordsTestee {

    // ==========================================================================================
    // 1. Protocol (Conformance/testee-protocol.md; records.md 8.1)
    // ==========================================================================================

    static final String IMPLEMENTATION = "java-records-template 0.2 (example records codecs)";
    static final List<Object> HELLO_FAMILIES = List.of("records");
    // Names from Conformance/families.json. Narrow these to what your code implements.
    static final List<Object> HELLO_KINDS = List.of("Idea", "Habit", "HabitLog", "CD_Card", "CD_CardField",
            "CD_CardAttachment", "sync-state", "sync-log", "conflict", "model", "xcdatamodel", "mirrored-record");
    static final List<Object> HELLO_MACHINES = List.of("idea-sync", "log-retention", "sync-queue", "initial-sync",
            "record-zone");
    /** The kinds that report their first failing check only (records.md 8.1); the others report all. */
    static final Set<String> FIRST_VIOLATION_KINDS = Set.of("sync-state", "sync-log", "conflict");

    public static void main(String[] args) throws IOException {
        InputStream in = new BufferedInputStream(System.in);
        OutputStream out = new FileOutputStream(FileDescriptor.out); // stdout: answers only, UTF-8
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
            } catch (RuntimeException e) { // a bug here must not kill the session: say so and go on
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
        if ("run-machine".equals(op)) return runMachine(request);
        return outcome(request, "invalid-request", "reason", "unknown op " + op);
    }

    static Map<String, Object> hello(Map<String, Object> request) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("protocol", 1L);
        a.put("implementation", IMPLEMENTATION);
        a.put("families", HELLO_FAMILIES);
        a.put("kinds", HELLO_KINDS);
        a.put("machines", HELLO_MACHINES);
        if (!Long.valueOf(1).equals(asLongOrNull(request.get("protocol")))) {
            log("runner speaks protocol " + request.get("protocol") + ", this testee speaks 1");
        }
        return a;
    }

    /** One document vector: the exact bytes, the kind and the context. */
    static Map<String, Object> validate(Map<String, Object> request) {
        if (!"records".equals(request.get("family"))) {
            return outcome(request, "unsupported", "reason", "family not implemented");
        }
        if (!(request.get("document") instanceof String)) return outcome(request, "invalid-request", "reason", "no document");
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode((String) request.get("document"));
        } catch (IllegalArgumentException e) {
            return outcome(request, "invalid-request", "reason", "document is not base64");
        }
        String kind = String.valueOf(request.get("kind"));
        Context context = new Context(request.get("context") instanceof Map ? asObject(request.get("context")) : Map.of());
        Findings findings = new Findings(FIRST_VIOLATION_KINDS.contains(kind));
        Object canonical;
        try {
            switch (kind) {
                case "Idea": case "Habit": case "HabitLog": case "CD_Card": case "CD_CardField": case "CD_CardAttachment":
                    canonical = checkChapterRecord(readRecordsDocument(bytes), kind, context.timeZone(), findings); break;
                case "mirrored-record": canonical = checkMirroredRecord(readRecordsDocument(bytes), context, findings); break;
                case "sync-state": canonical = checkSyncState(readRecordsDocument(bytes)); break;
                case "sync-log": canonical = checkSyncLog(readRecordsDocument(bytes)); break;
                case "conflict": canonical = checkConflict(readRecordsDocument(bytes), findings); break;
                case "model": canonical = checkModelDocument(readModelJson(readRecordsDocument(bytes)), context, findings); break;
                case "xcdatamodel": canonical = checkModelDocument(readModelXml(bytes), context, findings); break;
                default: return outcome(request, "unsupported", "reason", "kind not implemented");
            }
        } catch (Violation v) { // what stops the checks: the wire profile, the root, recordName/recordType,
            findings.list.add(v); // or the first violation of a first-violation kind
            canonical = null;
        } catch (InvalidRequest e) {
            return outcome(request, "invalid-request", "reason", e.getMessage());
        }
        if (!findings.list.isEmpty()) return outcome(request, "reject", "violations", findings.toJson());
        return outcome(request, "accept", "canonical", canonical);
    }

    static Map<String, Object> outcome(Map<String, Object> request, String outcome, String key, Object value) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("case", request.get("case"));
        a.put("outcome", outcome);
        a.put(key, value);
        return a;
    }

    /** The request's context (records.md 8.1); a kind reads only the members it needs. */
    record Context(Map<String, Object> members) {
        /** `timeZone`: an IANA zone name (REC-HLOG-002); another string is an invalid request. */
        ZoneId timeZone() {
            Object zone = members.get("timeZone");
            if (zone == null || zone == Json.NULL) return null;
            if (!(zone instanceof String) || !ZoneId.getAvailableZoneIds().contains(zone)) {
                throw new InvalidRequest("context.timeZone is not an IANA zone name: " + zone);
            }
            return ZoneId.of((String) zone);
        }

        Object model() {
            return members.get("model") == Json.NULL ? null : members.get("model");
        }

        Object previous() {
            return members.get("previous") == Json.NULL ? null : members.get("previous");
        }

        boolean strictFields() {
            return Boolean.TRUE.equals(members.get("strictFields"));
        }
    }

    /**
     * The violations of one document. For the kinds that report every independent violation, each
     * independent group of checks runs in group(...): its first failing check (a thrown Violation)
     * is recorded and the next group goes on. For the first-violation kinds (FIRST_VIOLATION_KINDS)
     * nothing is caught: the first Violation ends the checks.
     */
    static final class Findings {
        final boolean firstOnly;
        final List<Violation> list = new ArrayList<>();

        Findings(boolean firstOnly) {
            this.firstOnly = firstOnly;
        }

        void group(Runnable checks) {
            if (firstOnly) {
                checks.run();
                return;
            }
            try {
                checks.run();
            } catch (Violation v) {
                list.add(v);
            }
        }

        void add(String rule, String path) {
            Violation v = new Violation(rule, path);
            if (firstOnly) throw v;
            list.add(v);
        }

        int size() {
            return list.size();
        }

        List<Object> toJson() {
            List<Object> out = new ArrayList<>();
            for (Violation v : list) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("path", v.path);
                m.put("rule", v.rule);
                out.add(m);
            }
            return out;
        }
    }

    /** CORE-JSON-004 (1 MiB: records.md states no other limit), then the wire profile. */
    static Object readRecordsDocument(byte[] bytes) {
        if (bytes.length > 1_048_576) throw new Violation("CORE-JSON-004", "");
        return new JsonReader(bytes, 64).readDocument();
    }

    // ==========================================================================================
    // 2. CloudKit records (records.md sections 2 and 8.2): the envelope, the fields, the values.
    //    One generic checker, driven by a RecordSchema per record type (sections 3 and 4).
    // ==========================================================================================

    /** A field's own rule on its decoded value (8.2 "one field", step 6); throws its Violation. */
    interface FieldRule {
        void check(Object value, String path);
    }

    /** A model's cross-field rules, run when nothing else failed; throws the first failing one. */
    interface CrossRule {
        void check(Map<String, Object> record, Map<String, Object> values, String base);
    }

    /** A field the schema does not declare: throw its Violation, or return (ignored and dropped). */
    interface UndeclaredField {
        void check(String name, String path);
    }

    /** One declared field (records.md section 3). */
    static final class FieldSpec {
        final String name;
        FieldSpec assetOf;          // for NAME_ckAsset: NAME, checked in the same group right after it
        final Set<String> types;    // the CloudKit types it may state (REC-REC-004)
        final boolean required;     // REC-REC-005
        final FieldRule rule;       // its own rules, or null
        String asset;               // NAME_ckAsset, which may stand in for it (REC-CD-002)
        Map<String, Object> defaultField; // the canonical {value, type} when absent (Habit maxCheckInCount)
        boolean ciphertext;         // REC-ENC-001: QuickVault's sealed fields
        boolean cloudEncrypted;     // REC-ENC-002: the app's model says allowsCloudEncryption

        FieldSpec(String name, Set<String> types, boolean required, FieldRule rule) {
            this.name = name;
            this.types = types;
            this.required = required;
            this.rule = rule;
        }
    }

    /** A record type: its declared fields in the model's order, cross-field rules, undeclared fields. */
    static final class RecordSchema {
        final List<FieldSpec> fields = new ArrayList<>();
        CrossRule cross;
        UndeclaredField undeclared; // null: fields a model does not declare are ignored and dropped

        FieldSpec add(String name, String type, boolean required, FieldRule rule) {
            return add(new FieldSpec(name, Set.of(type), required, rule));
        }

        FieldSpec add(FieldSpec f) {
            fields.add(f);
            return f;
        }

        /** A value that may travel as NAME_ckAsset (an ASSETID), in place of NAME or beside it. */
        void addWithAsset(FieldSpec f) {
            f.asset = f.name + "_ckAsset";
            add(f.asset, "ASSETID", false, null).assetOf = f; // beside it, the asset is checked first,
            add(f);                                           // then NAME, in one group (8.2)
        }

        boolean declares(String name) {
            for (FieldSpec f : fields) if (f.name.equals(name)) return true;
            return false;
        }
    }

    /**
     * A record, in 8.2's order: recordName and recordType (a violation there is the only one
     * reported: it is thrown), then independent checks (the change tag, created, modified,
     * REC-REC-007, deleted, zoneID, fields, each declared field, each undeclared one), then, when
     * nothing failed, the cross-field rules. `schemaOf` gives a record type's schema, or null when
     * the type is not one of the kind's (REC-REC-002). Returns the canonical form, or null when
     * this record added findings.
     */
    static Map<String, Object> checkRecord(Object document, String base, Function<String, RecordSchema> schemaOf,
            Findings findings) {
        int before = findings.size();
        Map<String, Object> o = rootObject(document, base);
        Map<String, Object> c = new LinkedHashMap<>();
        String recordName = requiredString(o, base, "recordName");
        checkRecordName(recordName, pointer(base, "recordName"));                          // REC-REC-001
        c.put("recordName", recordName);
        String recordType = requiredString(o, base, "recordType");
        RecordSchema schema = schemaOf.apply(recordType);
        if (schema == null) throw new Violation("REC-REC-002", pointer(base, "recordType"));
        c.put("recordType", recordType);

        findings.group(() -> {                                                             // REC-REC-006
            String tag = optionalString(o, base, "recordChangeTag");
            if (tag == null) return; // a new record has none
            if (!isPrintableAscii(tag, 1, 256)) throw new Violation("REC-REC-006", pointer(base, "recordChangeTag"));
            c.put("recordChangeTag", tag);
        });
        findings.group(() -> checkStamp(o, base, "created", c));
        findings.group(() -> checkStamp(o, base, "modified", c));
        if (c.get("created") != null && c.get("modified") != null) {                      // REC-REC-007
            findings.group(() -> {
                if (timestampOf(c.get("modified")) < timestampOf(c.get("created"))) {
                    throw new Violation("REC-REC-007", pointer(base, "modified") + "/timestamp");
                }
            });
        }
        boolean[] deleted = new boolean[1];
        findings.group(() -> {
            Object d = optional(o, "deleted");
            if (d != null && !(d instanceof Boolean)) throw new Violation("CORE-TYPE-003", pointer(base, "deleted"));
            deleted[0] = Boolean.TRUE.equals(d);
            if (deleted[0]) c.put("deleted", true); // canonical: only when true
        });
        findings.group(() -> checkZone(o, base, c));

        // fields: an object, required unless deleted is true; a violation here ends the checks (thrown)
        String at = pointer(base, "fields");
        Object fieldsValue = deleted[0] ? optional(o, "fields") : required(o, base, "fields");
        if (fieldsValue != null && !(fieldsValue instanceof Map)) throw new Violation("CORE-TYPE-003", at);
        if (fieldsValue == null) return findings.size() == before ? c : null;
        Map<String, Object> values = new HashMap<>(); // decoded values, for the cross-field rules
        c.put("fields", checkFields(asObject(fieldsValue), at, schema, deleted[0], values, findings));

        if (findings.size() != before) return null;
        if (schema.cross != null && !deleted[0]) findings.group(() -> schema.cross.check(c, values, base));
        return findings.size() == before ? c : null;
    }

    /** `created` / `modified`: optional {timestamp (REC-TIME-001), userRecordName?, deviceID?}. */
    static void checkStamp(Map<String, Object> o, String base, String name, Map<String, Object> canonical) {
        Object v = optional(o, name);
        if (v == null) return;
        String at = pointer(base, name);
        Map<String, Object> stamp = objectAt(v, at);
        Map<String, Object> c = new LinkedHashMap<>();
        long timestamp = requiredInteger(stamp, at, "timestamp");
        checkEpochMillis(timestamp, pointer(at, "timestamp"));
        c.put("timestamp", stamp.get("timestamp")); // as received
        String user = optionalString(stamp, at, "userRecordName");
        if (user != null) c.put("userRecordName", user);
        String device = optionalString(stamp, at, "deviceID");
        if (device != null) c.put("deviceID", device);
        canonical.put(name, c);
    }

    static long timestampOf(Object stamp) {
        return asLongOrNull(asObject(stamp).get("timestamp"));
    }

    /** `zoneID`: optional {zoneName (required, 1 to 255 bytes: REC-REC-008), ownerRecordName?}. */
    static void checkZone(Map<String, Object> o, String base, Map<String, Object> canonical) {
        Object z = optional(o, "zoneID");
        if (z == null) return;
        String at = pointer(base, "zoneID");
        Map<String, Object> zone = objectAt(z, at);
        Map<String, Object> c = new LinkedHashMap<>();
        String zoneName = requiredString(zone, at, "zoneName");
        int length = zoneName.getBytes(StandardCharsets.UTF_8).length;
        if (length < 1 || length > 255) throw new Violation("REC-REC-008", pointer(at, "zoneName"));
        c.put("zoneName", zoneName);
        String owner = optionalString(zone, at, "ownerRecordName");
        if (owner != null) c.put("ownerRecordName", owner);
        canonical.put("zoneID", c);
    }

    /**
     * The fields: each declared one in the model's order, a group of its own (REC-REC-005 when a
     * required one is absent, else its checks), then each undeclared one the schema reports.
     * Canonical: the declared fields given, as received; an absent one with a default, with it.
     */
    static Map<String, Object> checkFields(Map<String, Object> fields, String at, RecordSchema schema, boolean deleted,
            Map<String, Object> values, Findings findings) {
        Map<String, Object> canonical = new LinkedHashMap<>();
        Set<String> failedAssets = new HashSet<>();
        for (FieldSpec spec : schema.fields) {
            String path = pointer(at, spec.name);
            if (given(fields, spec.name)) {
                if (failedAssets.contains(spec.name)) continue; // its asset failed: one group, one violation (8.2)
                findings.group(() -> {
                    try {
                        values.put(spec.name, checkField(spec, fields.get(spec.name), path));
                    } catch (Violation v) {
                        if (spec.assetOf != null) failedAssets.add(spec.assetOf.name);
                        throw v;
                    }
                    Map<String, Object> f = asObject(fields.get(spec.name));
                    Map<String, Object> c = new LinkedHashMap<>(); // {value, type}, other members dropped
                    c.put("value", canonicalValue((String) f.get("type"), f.get("value")));
                    c.put("type", f.get("type"));
                    canonical.put(spec.name, c);
                });
            } else if (spec.required && !deleted && !(spec.asset != null && given(fields, spec.asset))) {
                findings.add("REC-REC-005", path); // a deleted record requires none
            } else if (spec.defaultField != null && !deleted) {
                canonical.put(spec.name, spec.defaultField); // e.g. maxCheckInCount: absent means 5
            }
        }
        if (schema.undeclared != null) {
            for (String name : fields.keySet()) {
                if (!schema.declares(name) && given(fields, name)) {
                    findings.group(() -> schema.undeclared.check(name, pointer(at, name)));
                }
            }
        }
        return canonical;
    }

    /** A field whose value is null is absent (CORE-TYPE-002). */
    static boolean given(Map<String, Object> fields, String name) {
        Object f = fields.get(name);
        return f != null && f != Json.NULL;
    }

    /**
     * One field, the first failing check of (8.2, "one field"): REC-ENC-001 for plaintext where
     * ciphertext belongs; {value, type} well-formed (CORE-TYPE-*, REC-REC-003); the value against
     * the type it STATES; the stated type against the declared one (REC-REC-004, REC-ENC-002); the
     * field's own rules. Returns the decoded value.
     */
    static Object checkField(FieldSpec spec, Object field, String path) {
        String typePath = pointer(path, "type");
        if (spec.ciphertext && field instanceof Map) {                                    // REC-ENC-001
            Object t = asObject(field).get("type");
            if (t instanceof String && !((String) t).endsWith("BYTES")) throw new Violation("REC-ENC-001", typePath);
        }
        Map<String, Object> f = objectAt(field, path);
        String type = requiredString(f, path, "type"); // required: REC-REC-003's "Decision"
        if (!isCloudKitType(type)) throw new Violation("REC-REC-003", typePath);
        Object value = checkValue(type, required(f, path, "value"), pointer(path, "value"));
        checkDeclaredType(spec, type, typePath);
        if (spec.rule != null) spec.rule.check(value, pointer(path, "value"));
        return value;
    }

    static void checkDeclaredType(FieldSpec spec, String type, String typePath) {
        if (spec.cloudEncrypted) {
            // REC-ENC-002: the plain type is the attribute in clear text on the server.
            if (spec.types.contains(type)) throw new Violation("REC-ENC-002", typePath);
            if (type.startsWith("ENCRYPTED_") && spec.types.contains(type.substring("ENCRYPTED_".length()))) return;
            throw new Violation("REC-REC-004", typePath);
        }
        // ENCRYPTED_ where the model does not encrypt is a mismatch too (REC-ENC-002's text).
        if (!spec.types.contains(type)) throw new Violation("REC-REC-004", typePath);   // REC-REC-004
    }

    static final Set<String> BASE_TYPES = Set.of("STRING", "INT64", "DOUBLE", "TIMESTAMP", "BYTES", "REFERENCE",
            "ASSETID", "LOCATION");

    /** REC-REC-003's types, their _LIST forms, and ENCRYPTED_ before any but references and assets. */
    static boolean isCloudKitType(String type) {
        String t = type;
        boolean encrypted = t.startsWith("ENCRYPTED_");
        if (encrypted) t = t.substring("ENCRYPTED_".length());
        if (t.endsWith("_LIST")) t = t.substring(0, t.length() - "_LIST".length());
        if (encrypted && (t.equals("REFERENCE") || t.equals("ASSETID"))) return false;
        return BASE_TYPES.contains(t);
    }

    /** The value against its stated type (8.2 "one field", step 3); returns the decoded value. */
    static Object checkValue(String type, Object value, String path) {
        String t = type.startsWith("ENCRYPTED_") ? type.substring("ENCRYPTED_".length()) : type;
        if (!t.endsWith("_LIST")) return checkScalarValue(t, value, path);
        if (!(value instanceof List)) throw new Violation("CORE-TYPE-003", path);
        String element = t.substring(0, t.length() - "_LIST".length());
        List<Object> in = asArray(value);
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) out.add(checkScalarValue(element, in.get(i), path + "/" + i));
        return out;
    }

    static Object checkScalarValue(String type, Object v, String path) {
        switch (type) {
            case "STRING": return asString(v, path);
            case "INT64": return asInteger(v, path); // an integer literal within +-(2^53 - 1): CORE-TYPE-004
            case "DOUBLE":
                if (!(v instanceof Json.Number)) throw new Violation("CORE-TYPE-003", path);
                return v;
            case "TIMESTAMP": {
                long ms = asInteger(v, path);
                checkEpochMillis(ms, path);                                                // REC-TIME-001
                return ms;
            }
            case "BYTES": {
                String s = asString(v, path);
                if (!isStandardBase64(s)) throw new Violation("REC-REC-003", path);
                return s;
            }
            case "REFERENCE": return checkReference(v, path);
            case "ASSETID": return checkAsset(v, path);
            default: return checkLocation(v, path); // LOCATION (isCloudKitType admitted nothing else)
        }
    }

    /** The members CloudKit Web Services defines for a REFERENCE, ASSETID and LOCATION value. */
    static final Map<String, List<String>> VALUE_MEMBERS = Map.of(
            "REFERENCE", List.of("recordName", "action"),
            "ASSETID", List.of("fileChecksum", "size", "referenceChecksum", "wrappingKey", "receipt", "downloadURL"),
            "LOCATION", List.of("latitude", "longitude", "horizontalAccuracy", "verticalAccuracy", "altitude", "speed",
                    "course", "timestamp"));

    /** A checked value as received, an object value (or list element) keeping only its defined members. */
    static Object canonicalValue(String type, Object value) {
        String t = type.startsWith("ENCRYPTED_") ? type.substring("ENCRYPTED_".length()) : type;
        if (t.endsWith("_LIST")) {
            List<Object> out = new ArrayList<>();
            for (Object element : asArray(value)) out.add(canonicalValue(t.substring(0, t.length() - "_LIST".length()), element));
            return out;
        }
        List<String> members = VALUE_MEMBERS.get(t);
        if (members == null) return value; // a string, a number: exactly as received
        Map<String, Object> in = asObject(value);
        Map<String, Object> out = new LinkedHashMap<>();
        for (String m : members) if (in.containsKey(m) && in.get(m) != Json.NULL) out.put(m, in.get(m));
        return out;
    }

    static final Set<String> REFERENCE_ACTIONS = Set.of("NONE", "DELETE_SELF", "VALIDATE");

    /** REFERENCE: {recordName (REC-REC-001), action? (REC-REC-003)}. */
    static Map<String, Object> checkReference(Object v, String path) {
        Map<String, Object> r = objectAt(v, path);
        checkRecordName(requiredString(r, path, "recordName"), pointer(path, "recordName"));
        String action = optionalString(r, path, "action");
        if (action != null && !REFERENCE_ACTIONS.contains(action)) throw new Violation("REC-REC-003", pointer(path, "action"));
        return r;
    }

    /** ASSETID: {fileChecksum, size >= 0, ...}. */
    static Map<String, Object> checkAsset(Object v, String path) {
        Map<String, Object> a = objectAt(v, path);
        requiredString(a, path, "fileChecksum");
        if (requiredInteger(a, path, "size") < 0) throw new Violation("REC-REC-003", pointer(path, "size"));
        return a;
    }

    /** LOCATION: {latitude in [-90, 90], longitude in [-180, 180], ...}. */
    static Map<String, Object> checkLocation(Object v, String path) {
        Map<String, Object> l = objectAt(v, path);
        for (String name : List.of("latitude", "longitude")) {
            Object n = required(l, path, name);
            if (!(n instanceof Json.Number)) throw new Violation("CORE-TYPE-003", pointer(path, name));
            double d = Double.parseDouble(((Json.Number) n).literal());
            double bound = name.equals("latitude") ? 90 : 180;
            if (d < -bound || d > bound) throw new Violation("REC-REC-003", pointer(path, name));
        }
        return l;
    }

    /** REC-REC-001: 1 to 255 printable ASCII characters (0x21-0x7E, no space), not starting with `_`. */
    static void checkRecordName(String name, String path) {
        if (!isPrintableAscii(name, 1, 255) || name.startsWith("_")) throw new Violation("REC-REC-001", path);
    }

    /** Printable ASCII is 0x21-0x7E (REC-REC-001, REC-REC-006). */
    static boolean isPrintableAscii(String s, int min, int max) {
        if (s.length() < min || s.length() > max) return false;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) < 0x21 || s.charAt(i) > 0x7E) return false;
        return true;
    }

    /** REC-TIME-001: epoch milliseconds in [10^12, 10^13) (seconds and microseconds are caught). */
    static void checkEpochMillis(long ms, String path) {
        if (ms < 1_000_000_000_000L || ms >= 10_000_000_000_000L) throw new Violation("REC-TIME-001", path);
    }

    /** Standard base64 (RFC 4648 section 4): its alphabet, padded to a multiple of 4. */
    static boolean isStandardBase64(String s) {
        if (s.length() % 4 != 0) return false;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            boolean alphabet = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
                    || ch == '+' || ch == '/';
            if (alphabet) continue;
            if (ch != '=' || i < s.length() - 2) return false;
            if (i == s.length() - 2 && s.charAt(i + 1) != '=') return false;
        }
        return true;
    }

    static int base64Length(String s) {
        int pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
        return s.length() / 4 * 3 - pad;
    }

    // ==========================================================================================
    // 3. The Spec's record types (records.md section 3): Idea, Habit, HabitLog and QuickVault's
    //    Core Data mirrorings. One schema method per kind: fields in declaration order, each with
    //    its rules, then the cross-field rules in 8.2's order (the first failing one is reported).
    // ==========================================================================================

    /** A kind checked as itself: the record type MUST be the kind (REC-REC-002). */
    static Map<String, Object> checkChapterRecord(Object document, String kind, ZoneId zone, Findings findings) {
        return checkRecord(document, "", type -> type.equals(kind) ? chapterSchema(type, zone) : null, findings);
    }

    /** The schema of one of this chapter's six record types, or null (REC-REC-002). */
    static RecordSchema chapterSchema(String recordType, ZoneId zone) {
        switch (recordType) {
            case "Idea": return ideaSchema();
            case "Habit": return habitSchema();
            case "HabitLog": return habitLogSchema(zone);
            case "CD_Card": return cardSchema();
            case "CD_CardField": return cardFieldSchema();
            case "CD_CardAttachment": return cardAttachmentSchema();
            default: return null;
        }
    }

    /** Idea (001 "CloudKit 映射"): REC-IDEA-001, REC-IDEA-002, REC-LEN-001. */
    static RecordSchema ideaSchema() {
        RecordSchema s = new RecordSchema();
        s.add("id", "STRING", true, (v, p) -> {
            if (!isUuid((String) v)) throw new Violation("REC-IDEA-001", p);               // REC-IDEA-001
        });
        s.add("title", "STRING", true, (v, p) -> nonBlankWithin((String) v, 256, "REC-IDEA-002", p));
        s.add("description", "STRING", false, (v, p) -> checkLength((String) v, 4096, p));
        s.add("isCompleted", "INT64", true, (v, p) -> zeroOrOne(v, "REC-IDEA-002", p)); // Bool as Int 0/1
        s.add("createdAt", "TIMESTAMP", true, null);
        s.add("updatedAt", "TIMESTAMP", true, null);
        s.add("deviceId", "STRING", true, (v, p) -> nonBlankWithin((String) v, 256, "REC-IDEA-002", p));
        s.add("version", "INT64", true, (v, p) -> atLeast(v, 0, "REC-IDEA-002", p));
        s.add("lastSyncedAt", "TIMESTAMP", false, null);
        s.cross = (record, values, base) -> {
            updatedNotBefore(values, "createdAt", "updatedAt", "REC-IDEA-002", base);      // REC-IDEA-002
            // REC-IDEA-001: one idea is one record on every device: its name is the id (any case).
            if (!asciiEqualsIgnoreCase((String) record.get("recordName"), (String) values.get("id"))) {
                throw new Violation("REC-IDEA-001", pointer(base, "recordName"));
            }
        };
        return s;
    }

    /** Habit (004 §3): REC-HABIT-001, REC-LEN-001. */
    static RecordSchema habitSchema() {
        RecordSchema s = new RecordSchema();
        s.add("name", "STRING", true, (v, p) -> nonBlankWithin((String) v, 256, "REC-HABIT-001", p));
        s.add("emoji", "STRING", true, (v, p) -> {
            int scalars = scalarCount((String) v); // one emoji, ZWJ sequences included: 1 to 16 scalars
            if (scalars < 1 || scalars > 16) throw new Violation("REC-HABIT-001", p);
        });
        s.add("colorTheme", "STRING", true, (v, p) -> nonBlankWithin((String) v, 64, "REC-HABIT-001", p));
        s.add("habitType", "STRING", true, (v, p) -> {
            if (!v.equals("Checkbox") && !v.equals("Count")) throw new Violation("REC-HABIT-001", p);
        });
        s.add("createdAt", "TIMESTAMP", true, null);
        s.add("backgroundColor", "STRING", false, (v, p) -> {
            if (!isHexColor((String) v)) throw new Violation("REC-HABIT-001", p);          // #RRGGBB
        });
        FieldSpec max = s.add("maxCheckInCount", "INT64", false, (v, p) -> atLeast(v, 1, "REC-HABIT-001", p));
        max.defaultField = Map.of("value", 5L, "type", "INT64"); // absent means 5: the canonical form shows it
        s.add("updatedAt", "TIMESTAMP", false, null);
        s.add("isArchived", "INT64", false, (v, p) -> zeroOrOne(v, "REC-HABIT-001", p));
        s.cross = (record, values, base) -> updatedNotBefore(values, "createdAt", "updatedAt", "REC-HABIT-001", base);
        return s;
    }

    /** HabitLog (004 §3): REC-HLOG-001, REC-HLOG-002, REC-HABIT-001. createdAt is optional (section 3). */
    static RecordSchema habitLogSchema(ZoneId zone) {
        RecordSchema s = new RecordSchema();
        s.add("habit", "REFERENCE", true, (v, p) -> {
            Object action = asObject(v).get("action"); // REC-HLOG-001: no action (NONE), NONE or DELETE_SELF
            if ("VALIDATE".equals(action)) throw new Violation("REC-HLOG-001", pointer(p, "action"));
        });
        s.add("date", "TIMESTAMP", true, (v, p) -> {
            // REC-HLOG-002, some zone's midnight: a multiple of 15 minutes (UTC offsets are whole
            // quarter hours, so every such instant is some zone's midnight); the writer's zone is
            // the cross-field part below (REC-HLOG-002, 8.2 step 3)
            if (Math.floorMod((Long) v, 900_000L) != 0) throw new Violation("REC-HLOG-002", p);
        });
        s.add("count", "INT64", true, (v, p) -> atLeast(v, 0, "REC-HABIT-001", p));
        s.add("createdAt", "TIMESTAMP", false, null); // optional (section 3)
        s.add("updatedAt", "TIMESTAMP", false, null);
        s.cross = (record, values, base) -> {
            updatedNotBefore(values, "createdAt", "updatedAt", "REC-HABIT-001", base);
            if (zone != null && !isStartOfDay((Long) values.get("date"), zone)) {          // REC-HLOG-002
                throw new Violation("REC-HLOG-002", base + "/fields/date/value"); // its day in the writer's zone
            }
        };
        return s;
    }

    /**
     * REC-HLOG-002 with the writer's zone: that zone's start of the day (01:00 after a DST gap:
     * atStartOfDay, never "00:00 local") or UTC midnight.
     */
    static boolean isStartOfDay(long ms, ZoneId zone) {
        if (Math.floorMod(ms, 86_400_000L) == 0) return true;
        Instant instant = Instant.ofEpochMilli(ms);
        LocalDate day = instant.atZone(zone).toLocalDate();
        return day.atStartOfDay(zone).toInstant().equals(instant);
    }

    /** CD_Card (QuickVault's Card): REC-CD-001 (ids UUIDs, titles non-blank), REC-LEN-001. */
    static RecordSchema cardSchema() {
        RecordSchema s = new RecordSchema();
        entityName(s, "Card");
        s.add("CD_id", "STRING", true, RecordsTestee::uuidField); // all four required (section 3)
        s.add("CD_title", "STRING", true, (v, p) -> nonBlankWithin((String) v, 256, "REC-CD-001", p));
        s.add("CD_createdAt", "TIMESTAMP", true, null);
        s.add("CD_updatedAt", "TIMESTAMP", true, null);
        s.cross = (record, values, base) -> updatedNotBefore(values, "CD_createdAt", "CD_updatedAt", "REC-CD-001", base);
        return s;
    }

    /** CD_CardField: the sealed value is BYTES of at least 28 bytes, or its asset (REC-ENC-001). */
    static RecordSchema cardFieldSchema() {
        RecordSchema s = new RecordSchema();
        entityName(s, "CardField");
        s.add("CD_id", "STRING", true, RecordsTestee::uuidField); // required, as CD_label, CD_encryptedValue (section 3)
        s.add("CD_card", "STRING", false, RecordsTestee::recordNameField); // to-one: the card's record name, optional (section 3)
        s.add("CD_label", "STRING", true, (v, p) -> checkLength((String) v, 256, p));
        s.addWithAsset(ciphertext("CD_encryptedValue", true));
        s.add("CD_order", "INT64", true, (v, p) -> atLeast(v, 0, "REC-CD-001", p)); // orders >= 0; required (section 3)
        return s;
    }

    /** CD_CardAttachment: `fileType` (not mimeType) and `encryptedData` optional (section 3's table). */
    static RecordSchema cardAttachmentSchema() {
        RecordSchema s = new RecordSchema();
        entityName(s, "CardAttachment");
        s.add("CD_id", "STRING", true, RecordsTestee::uuidField); // required (section 3)
        s.add("CD_card", "STRING", false, RecordsTestee::recordNameField);
        // required (section 3), non-blank (REC-CD-001), at most 255 scalars (REC-LEN-001)
        s.add("CD_fileName", "STRING", true, (v, p) -> nonBlankWithin((String) v, 255, "REC-CD-001", p));
        s.addWithAsset(ciphertext("CD_encryptedData", false));
        s.add("CD_fileType", "STRING", false, null);
        return s;
    }

    /** REC-CD-001: CD_entityName, declared first, names the entity (absent: REC-REC-005, 8.3). */
    static void entityName(RecordSchema s, String entity) {
        s.add("CD_entityName", "STRING", true, (v, p) -> {
            if (!v.equals(entity)) throw new Violation("REC-CD-001", p);
        });
    }

    /** REC-ENC-001: AES-GCM's 12-byte nonce and 16-byte tag around the ciphertext: 28 bytes at least. */
    static FieldSpec ciphertext(String name, boolean required) {
        FieldSpec f = new FieldSpec(name, Set.of("BYTES"), required, (v, p) -> {
            if (base64Length((String) v) < 28) throw new Violation("REC-ENC-001", p);
        });
        f.ciphertext = true;
        return f;
    }

    static void uuidField(Object v, String path) {
        if (!isUuid((String) v)) throw new Violation("REC-CD-001", path); // ids are UUIDs
    }

    static void recordNameField(Object v, String path) {
        checkRecordName((String) v, path); // a to-one relationship holds the related record's name
    }

    /** "Non-blank, then its length" (8.2 "one field", step 6). */
    static void nonBlankWithin(String s, int max, String blankRule, String path) {
        if (isBlank(s)) throw new Violation(blankRule, path);
        checkLength(s, max, path);
    }

    /** REC-LEN-001: at most `max` Unicode scalar values (not UTF-16 units, not graphemes). */
    static void checkLength(String s, int max, String path) {
        if (scalarCount(s) > max) throw new Violation("REC-LEN-001", path);
    }

    static void zeroOrOne(Object v, String rule, String path) {
        if ((Long) v != 0 && (Long) v != 1) throw new Violation(rule, path);
    }

    static void atLeast(Object v, long min, String rule, String path) {
        if ((Long) v < min) throw new Violation(rule, path);
    }

    /** `updated` not before `created`, when both are given; reported at the updated field's value. */
    static void updatedNotBefore(Map<String, Object> values, String created, String updated, String rule, String base) {
        Long c = (Long) values.get(created);
        Long u = (Long) values.get(updated);
        if (c != null && u != null && u < c) throw new Violation(rule, base + "/fields/" + updated + "/value");
    }

    // ==========================================================================================
    // 4. mirrored-record: CD_ records checked against the types derived from the app's Core Data
    //    model in context.model (records.md section 3 "Types derived from the app's model", 8.2;
    //    REC-REC-002, REC-CD-001, REC-CD-002, REC-CD-003, REC-ENC-002).
    // ==========================================================================================

    static Map<String, Object> checkMirroredRecord(Object document, Context context, Findings findings) {
        context.timeZone(); // validated (8.1), though no derived field needs it
        if (context.model() == null) throw new InvalidRequest("context has no model");
        Model model = modelFromContext(context.model());
        Map<String, RecordSchema> types = derivedSchemas(model, context.strictFields());
        return checkRecord(document, "", types::get, findings); // REC-REC-002: one of the derived types
    }

    /** Core Data's attribute types -> CloudKit field types (the table of section 3). */
    static Set<String> cloudKitTypes(String attributeType) {
        switch (attributeType) {
            case "String": case "UUID": case "URI": return Set.of("STRING");
            case "Integer16": case "Integer32": case "Integer64": case "Boolean": return Set.of("INT64");
            case "Double": case "Float": return Set.of("DOUBLE");
            case "Decimal": return Set.of("STRING", "DOUBLE"); // Apple does not document it: both
            case "Date": return Set.of("TIMESTAMP");
            case "Binary": case "Transformable": return Set.of("BYTES");
            default: return Set.of(); // Undefined, ObjectID: no CloudKit field (REC-MODEL-006)
        }
    }

    /** Variable-length attributes, whose value Core Data may move into CD_x_ckAsset (REC-CD-002). */
    static final Set<String> VARIABLE_LENGTH = Set.of("String", "URI", "Binary", "Transformable");
    static final Set<String> CDMR_FIELDS = Set.of("CD_entityNames", "CD_recordNames", "CD_relationships");

    /** Record type -> schema: CD_R per mirrored inheritance root R, and CDMR for many-to-many. */
    static Map<String, RecordSchema> derivedSchemas(Model model, boolean strictFields) {
        Set<String> mirrored = model.mirrored();
        Map<String, RecordSchema> types = new LinkedHashMap<>();
        for (Entity e : model.entities) {
            if (mirrored.contains(e.name) && e.parent == null) types.put("CD_" + e.name, rootSchema(model, e, strictFields));
        }
        if (hasManyToMany(model, mirrored)) types.put("CDMR", cdmrSchema(model, mirrored));
        return types;
    }

    /** The hierarchy of root R: R first, then every entity whose root is R, in model order. */
    static List<Entity> hierarchy(Model model, Entity root) {
        List<Entity> out = new ArrayList<>();
        out.add(root);
        for (Entity e : model.entities) if (e != root && model.rootOf(e) == root) out.add(e);
        return out;
    }

    /**
     * CD_R: CD_entityName (one entity of the hierarchy: REC-CD-001), then per entity its attributes
     * (required when the ROOT declares them non-optional without a default) and its to-one
     * relationships (a record name), then CD_moveReceipt; undeclared fields per REC-CD-002.
     */
    static RecordSchema rootSchema(Model model, Entity root, boolean strictFields) {
        RecordSchema s = new RecordSchema();
        List<Entity> family = hierarchy(model, root);
        Set<String> names = new HashSet<>();
        for (Entity e : family) names.add(e.name);
        s.add("CD_entityName", "STRING", true, (v, p) -> {
            if (!names.contains(v)) throw new Violation("REC-CD-001", p);
        });
        Set<String> properties = new HashSet<>();
        Set<String> toMany = new HashSet<>();
        for (Entity e : family) {
            for (Attribute a : e.attributes) {
                if (!properties.add(a.name)) continue;
                boolean required = e == root && !a.optional && !a.hasDefault;
                FieldSpec f = new FieldSpec("CD_" + a.name, cloudKitTypes(a.type), required, null);
                f.cloudEncrypted = a.cloudEncrypted;
                if (VARIABLE_LENGTH.contains(a.type)) s.addWithAsset(f);
                else s.add(f);
            }
            for (Relationship r : e.relationships) {
                if (!properties.add(r.name)) continue;
                if (r.toMany) toMany.add(r.name); // no field: the other side (or CDMR) holds it
                else s.add("CD_" + r.name, "STRING", false, RecordsTestee::recordNameField);
            }
        }
        s.addWithAsset(new FieldSpec("CD_moveReceipt", Set.of("BYTES"), false, null)); // on every type
        s.undeclared = (name, path) -> {                                                   // REC-CD-002
            if (!name.startsWith("CD_") || CDMR_FIELDS.contains(name)) throw new Violation("REC-CD-002", path);
            String property = name.substring("CD_".length());
            if (toMany.contains(property)) throw new Violation("REC-CD-002", path);
            if (property.endsWith("_ckAsset")
                    && properties.contains(property.substring(0, property.length() - "_ckAsset".length()))) {
                throw new Violation("REC-CD-002", path); // an asset of a property that is not variable-length
            }
            // no property of the hierarchy: a newer version's field, unless the model is the newest
            if (strictFields) throw new Violation("REC-CD-002", path);
        };
        return s;
    }

    /** A to-many relationship whose inverse is to-many, between mirrored entities (REC-REC-002). */
    static boolean hasManyToMany(Model model, Set<String> mirrored) {
        for (Entity e : model.entities) {
            if (!mirrored.contains(e.name)) continue;
            for (Relationship r : e.relationships) {
                if (!r.toMany || r.inverse == null || !mirrored.contains(r.destination)) continue;
                Relationship inverse = model.relationship(r.destination, r.inverse);
                if (inverse != null && inverse.toMany) return true;
            }
        }
        return false;
    }

    /**
     * CDMR (REC-CD-003): three required STRING fields, each two non-empty parts joined by one `:`;
     * the entity names name mirrored entities, the record names are record names (REC-REC-001);
     * the relationship pair (a to-many relationship of each entity, the second the first's
     * inverse) is a cross-field rule. No other field (REC-CD-002).
     */
    static RecordSchema cdmrSchema(Model model, Set<String> mirrored) {
        RecordSchema s = new RecordSchema();
        s.add("CD_entityNames", "STRING", true, (v, p) -> {
            for (String entity : twoParts((String) v, p)) if (!mirrored.contains(entity)) throw new Violation("REC-CD-003", p);
        });
        s.add("CD_recordNames", "STRING", true, (v, p) -> {
            for (String name : twoParts((String) v, p)) checkRecordName(name, p);
        });
        s.add("CD_relationships", "STRING", true, (v, p) -> twoParts((String) v, p));
        s.cross = (record, values, base) -> {
            String[] entities = ((String) values.get("CD_entityNames")).split(":");
            String[] rels = ((String) values.get("CD_relationships")).split(":");
            Relationship r1 = model.relationship(entities[0], rels[0]); // declared or inherited
            Relationship r2 = model.relationship(entities[1], rels[1]);
            if (r1 == null || r2 == null || !r1.toMany || !r2.toMany || !rels[1].equals(r1.inverse)) {
                throw new Violation("REC-CD-003", base + "/fields/CD_relationships/value");
            }
        };
        s.undeclared = (name, path) -> {
            throw new Violation("REC-CD-002", path);
        };
        return s;
    }

    static String[] twoParts(String value, String path) {
        String[] parts = value.split(":", -1);
        if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) throw new Violation("REC-CD-003", path);
        return parts;
    }

    // ==========================================================================================
    // 5. Local documents (records.md sections 4 and 8.4): sync-state and sync-log. Each reports
    //    its FIRST failing check: members in section 4's order, each present if required
    //    (CORE-TYPE-001), not null (-002), its JSON type (-003, -004), then its rule; then, for
    //    sync-state, REC-SYNC-002. Straight-line code: the first Violation thrown is the answer.
    // ==========================================================================================

    /** sync-state (001 §2); also the state of the idea-sync machine. */
    static Map<String, Object> checkSyncState(Object document) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        String ideaId = requiredString(o, "", "ideaId");
        if (!isUuid(ideaId)) throw new Violation("REC-SYNC-001", "/ideaId");              // REC-SYNC-001
        c.put("ideaId", ideaId);
        long localVersion = requiredInteger(o, "", "localVersion");
        if (localVersion < 0) throw new Violation("REC-SYNC-001", "/localVersion");
        c.put("localVersion", o.get("localVersion"));
        Long remoteVersion = optionalInteger(o, "", "remoteVersion");
        if (remoteVersion != null && remoteVersion < 0) throw new Violation("REC-SYNC-001", "/remoteVersion");
        if (remoteVersion != null) c.put("remoteVersion", o.get("remoteVersion"));
        String recordName = optionalString(o, "", "cloudKitRecordName");
        if (recordName != null) {
            checkRecordName(recordName, "/cloudKitRecordName");                           // REC-REC-001
            c.put("cloudKitRecordName", recordName);
        }
        for (String name : List.of("lastSyncedAt", "lastConflictAt", "lastModifiedAt")) {
            String t = name.equals("lastModifiedAt") ? requiredString(o, "", name) : optionalString(o, "", name);
            if (t == null) continue;
            isoMillis(t, "/" + name);                                                      // REC-TIME-002
            c.put(name, t);
        }
        c.put("isPendingSync", requiredBoolean(o, "", "isPendingSync"));
        c.put("isObsolete", requiredBoolean(o, "", "isObsolete"));
        String strategy = requiredString(o, "", "conflictResolutionStrategy");
        if (!strategy.equals("lastWrite")) throw new Violation("REC-SYNC-001", "/conflictResolutionStrategy");
        c.put("conflictResolutionStrategy", strategy);
        // REC-SYNC-002: a sync sets its three results together (path: the first one absent) ...
        List<String> together = List.of("remoteVersion", "cloudKitRecordName", "lastSyncedAt");
        boolean synced = false;
        for (String name : together) synced |= c.containsKey(name);
        if (synced) for (String name : together) if (!c.containsKey(name)) throw new Violation("REC-SYNC-002", "/" + name);
        // ... the idea is pending until a first sync succeeded ...
        if (!synced && !Boolean.TRUE.equals(c.get("isPendingSync"))) throw new Violation("REC-SYNC-002", "/isPendingSync");
        // ... and the server has no version the idea never had.
        if (remoteVersion != null && remoteVersion > localVersion) throw new Violation("REC-SYNC-002", "/remoteVersion");
        return c;
    }

    static final Set<String> SYNC_LOG_EVENTS = Set.of("sync_success", "sync_failure", "conflict", "retry");

    /** sync-log (001 §3): REC-SLOG-001, REC-TIME-002. */
    static Map<String, Object> checkSyncLog(Object document) {
        Map<String, Object> o = rootObject(document, "");
        Map<String, Object> c = new LinkedHashMap<>();
        for (String name : List.of("id", "ideaId")) {
            String id = requiredString(o, "", name);
            if (!isUuid(id)) throw new Violation("REC-SLOG-001", "/" + name); // id and ideaId alike (REC-SLOG-001, 8.4)
            c.put(name, id);
        }
        String type = requiredString(o, "", "eventType");
        if (!SYNC_LOG_EVENTS.contains(type)) throw new Violation("REC-SLOG-001", "/eventType");
        c.put("eventType", type);
        String timestamp = requiredString(o, "", "timestamp"); // a number here is CORE-TYPE-003
        isoMillis(timestamp, "/timestamp");                                                // REC-TIME-002
        c.put("timestamp", timestamp);
        String details = optionalString(o, "", "details");
        if (details != null) {
            try { // JSON text (001 "詳細信息（JSON 格式）"), read under the same wire profile
                new JsonReader(details.getBytes(StandardCharsets.UTF_8), 64).readDocument();
            } catch (Violation v) {
                throw new Violation("REC-SLOG-001", "/details");
            }
            c.put("details", details);
        }
        String device = requiredString(o, "", "deviceId");
        if (isBlank(device)) throw new Violation("REC-SLOG-001", "/deviceId");
        c.put("deviceId", device);
        Long code = optionalInteger(o, "", "errorCode");
        if (code != null) c.put("errorCode", o.get("errorCode"));
        return c;
    }

    /**
     * REC-TIME-002: exactly YYYY-MM-DDTHH:MM:SS.sssZ (ASCII digits, a real date and time, UTC);
     * returns the instant in epoch milliseconds.
     */
    static long isoMillis(String t, String path) {
        String shape = "dddd-dd-ddTdd:dd:dd.dddZ";
        boolean ok = t.length() == shape.length();
        for (int i = 0; ok && i < shape.length(); i++) {
            char want = shape.charAt(i);
            char ch = t.charAt(i);
            ok = want == 'd' ? ch >= '0' && ch <= '9' : ch == want;
        }
        if (!ok) throw new Violation("REC-TIME-002", path);
        try {
            LocalDateTime time = LocalDateTime.of(num(t, 0, 4), num(t, 5, 7), num(t, 8, 10), num(t, 11, 13),
                    num(t, 14, 16), num(t, 17, 19), num(t, 20, 23) * 1_000_000);
            return time.toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeException e) { // February 30th, hour 24, ...
            throw new Violation("REC-TIME-002", path);
        }
    }

    static int num(String s, int from, int to) {
        return Integer.parseInt(s.substring(from, to));
    }

    /** Epoch ms -> the local documents' time form (JavaScript's toISOString). */
    static String isoOf(long ms) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(ms, 1000), 0, ZoneOffset.UTC);
        return String.format("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                t.getHour(), t.getMinute(), t.getSecond(), Math.floorMod(ms, 1000));
    }

    // ==========================================================================================
    // 6. Conflicts (records.md sections 6 and 8.5): {strategy, ancestor?, local, server} -> the
    //    record to save, the winner, the SyncLog events. First failing check only, in the order:
    //    strategy (REC-CONF-003); ancestor, local, server, each a record (8.2) by its first
    //    violation; the same record (REC-CONF-001); write times (REC-CONF-002); ancestor (-004).
    // ==========================================================================================

    static final Set<String> STRATEGIES = Set.of("lastWrite", "keepLocal", "keepServer", "merge");

    static Map<String, Object> checkConflict(Object document, Findings findings) {
        Map<String, Object> o = rootObject(document, "");
        String strategy = requiredString(o, "", "strategy");
        if (!STRATEGIES.contains(strategy)) throw new Violation("REC-CONF-003", "/strategy");
        // Each side: a record of one of the six types, against the Spec's types, without timeZone.
        Function<String, RecordSchema> anyType = type -> chapterSchema(type, null);
        Object ancestorValue = optional(o, "ancestor");
        Map<String, Object> ancestor = ancestorValue == null ? null : checkRecord(ancestorValue, "/ancestor", anyType, findings);
        Map<String, Object> local = checkRecord(required(o, "", "local"), "/local", anyType, findings);
        Map<String, Object> server = checkRecord(required(o, "", "server"), "/server", anyType, findings);
        for (String side : List.of("server", "ancestor")) {                              // REC-CONF-001
            Map<String, Object> r = side.equals("server") ? server : ancestor;
            if (r != null && !(r.get("recordName").equals(local.get("recordName"))
                    && r.get("recordType").equals(local.get("recordType")))) {
                throw new Violation("REC-CONF-001", "/" + side + "/recordName");
            }
        }
        String winner;
        Map<String, Object> fields;
        switch (strategy) {
            case "keepLocal": winner = "local"; fields = fieldsOf(local); break;   // a forced save of the local fields
            case "keepServer": winner = "server"; fields = null; break;             // the local change is dropped
            case "merge":
                if (ancestor == null) throw new Violation("REC-CONF-004", "/ancestor"); // REC-CONF-004
                winner = "merged";
                fields = merge(fieldsOf(ancestor), fieldsOf(local), fieldsOf(server));
                break;
            default: { // lastWrite (REC-CONF-002)
                Long localTime = writeTime(local);
                if (localTime == null) throw new Violation("REC-CONF-002", "/local/modified");
                Long serverTime = writeTime(server);
                if (serverTime == null) throw new Violation("REC-CONF-002", "/server/modified");
                // equal times: local wins only when its fields' JCS text is greater, byte by byte
                boolean localWins = localTime > serverTime || (localTime.equals(serverTime)
                        && compareBytes(jcs(fieldsOf(local)), jcs(fieldsOf(server))) > 0);
                winner = localWins ? "local" : "server";
                fields = localWins ? fieldsOf(local) : null;
            }
        }
        Map<String, Object> record = server; // the server won: its record stands
        if (fields != null) { // the local record, saved with the server's change tag so the save succeeds
            record = new LinkedHashMap<>(local);
            if (server.containsKey("recordChangeTag")) record.put("recordChangeTag", server.get("recordChangeTag"));
            else record.remove("recordChangeTag");
            record.put("fields", fields);
        }
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("eventType", "conflict");
        event.put("winner", winner);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("record", record);
        c.put("winner", winner); // "local", "server" or "merged"
        c.put("events", List.of(event));
        return c;
    }

    /** A write time: the `updatedAt` field's value, else `modified.timestamp`; null: neither. */
    static Long writeTime(Map<String, Object> record) {
        Object updated = fieldsOf(record).get("updatedAt");
        if (updated != null) return asLongOrNull(asObject(updated).get("value"));
        Object modified = record.get("modified");
        return modified == null ? null : timestampOf(modified);
    }

    /**
     * REC-CONF-004 (NSMergeByPropertyObjectTrumpMergePolicy): a field whose local {value, type}
     * differs from the ancestor's (absent on one side included) takes the local one; every other
     * field takes the server's.
     */
    static Map<String, Object> merge(Map<String, Object> ancestor, Map<String, Object> local, Map<String, Object> server) {
        Set<String> names = new LinkedHashSet<>(server.keySet());
        names.addAll(local.keySet());
        names.addAll(ancestor.keySet());
        Map<String, Object> merged = new LinkedHashMap<>();
        for (String name : names) {
            boolean changedLocally = !Json.write(local.get(name)).equals(Json.write(ancestor.get(name)));
            Object field = changedLocally ? local.get(name) : server.get(name);
            if (field != null) merged.put(name, field);
        }
        return merged;
    }

    static Map<String, Object> fieldsOf(Map<String, Object> record) {
        Object f = record.get("fields");
        return f instanceof Map ? asObject(f) : Map.of();
    }

    /** The canonical (JCS) text's UTF-8 bytes. */
    static byte[] jcs(Object value) {
        return Json.write(value).getBytes(StandardCharsets.UTF_8);
    }

    static int compareBytes(byte[] a, byte[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            int d = (a[i] & 0xFF) - (b[i] & 0xFF);
            if (d != 0) return d;
        }
        return a.length - b.length;
    }

    // ==========================================================================================
    // 7. The model checker (records.md sections 7 and 8.6): kinds `model` (the JSON form) and
    //    `xcdatamodel` (Xcode's contents XML, read into the JSON form), context.previous for the
    //    evolution rules. Every finding; paths point into the JSON form.
    // ==========================================================================================

    static final class Model {
        Boolean cloudKit; // null: not said
        final List<Entity> entities = new ArrayList<>();
        final List<Configuration> configurations = new ArrayList<>();

        Entity entity(String name) {
            for (Entity e : entities) if (e.name.equals(name)) return e;
            return null;
        }

        /**
         * The entities CloudKit mirrors: none with cloudKit false; when a configuration says
         * cloudKit (Xcode: usedWithCloudKit="YES"), only those configurations' entities; else all.
         */
        Set<String> mirrored() {
            Set<String> out = new LinkedHashSet<>();
            if (Boolean.FALSE.equals(cloudKit)) return out;
            boolean anyCloudConfiguration = false;
            for (Configuration c : configurations) {
                if (!c.cloudKit()) continue;
                anyCloudConfiguration = true;
                out.addAll(c.entities());
            }
            if (!anyCloudConfiguration) for (Entity e : entities) out.add(e.name);
            return out;
        }

        /** The inheritance root of e (a parent chain that loops or leaves the model stops there). */
        Entity rootOf(Entity e) {
            Entity at = e;
            Set<Entity> seen = new HashSet<>();
            while (at.parent != null && seen.add(at)) {
                Entity parent = entity(at.parent);
                if (parent == null) break;
                at = parent;
            }
            return at;
        }

        /** A relationship of an entity, declared or inherited. */
        Relationship relationship(String entityName, String name) {
            Entity e = entity(entityName);
            Set<Entity> seen = new HashSet<>();
            while (e != null && seen.add(e)) {
                Relationship r = e.relationship(name);
                if (r != null) return r;
                e = e.parent == null ? null : entity(e.parent);
            }
            return null;
        }
    }

    static final class Entity {
        String name, parent, path;
        final List<Attribute> attributes = new ArrayList<>();
        final List<Relationship> relationships = new ArrayList<>();
        int uniquenessConstraints;

        Attribute attribute(String n) {
            for (Attribute a : attributes) if (a.name.equals(n)) return a;
            return null;
        }

        Relationship relationship(String n) {
            for (Relationship r : relationships) if (r.name.equals(n)) return r;
            return null;
        }
    }

    static final class Attribute {
        String name, type, renamingIdentifier, valueTransformerName, path;
        boolean optional, hasDefault, unique, derived, cloudEncrypted;
    }

    static final class Relationship {
        String name, destination, inverse, deleteRule, renamingIdentifier, path;
        boolean optional, ordered, toMany;
    }

    record Configuration(String name, boolean cloudKit, List<String> entities) {}

    /** REC-MODEL-009: NSObject's and NSManagedObject's methods without parameters (the rule's list). */
    static final Set<String> RESERVED_NAMES = Set.of("description", "debugDescription", "hash", "class",
            "superclass", "self", "zone", "isProxy", "retainCount", "autorelease", "retain", "release", "copy",
            "mutableCopy", "init", "dealloc", "entity", "objectID", "managedObjectContext", "isInserted", "inserted",
            "isUpdated", "updated", "isDeleted", "deleted", "hasChanges", "hasPersistentChangedValues", "isFault",
            "fault", "faultingState", "changedValues", "changedValuesForCurrentEvent", "awakeFromFetch",
            "awakeFromInsert", "willSave", "didSave", "willTurnIntoFault", "didTurnIntoFault", "prepareForDeletion",
            "validateForDelete", "validateForInsert", "validateForUpdate");

    /** REC-MODEL-006: Core Data's types but Undefined and ObjectID; secure transformers only. */
    static final Set<String> SUPPORTED_TYPES = Set.of("String", "Integer16", "Integer32", "Integer64", "Decimal",
            "Double", "Float", "Boolean", "Date", "Binary", "UUID", "URI", "Transformable");
    static final Set<String> INSECURE_TRANSFORMERS = Set.of("NSKeyedUnarchiveFromData", "NSUnarchiveFromData");

    /** Kinds model and xcdatamodel: every finding, else {entities: [every entity's name]} (8.6). */
    static Map<String, Object> checkModelDocument(Model model, Context context, Findings findings) {
        Model previous = context.previous() == null ? null : modelFromContext(context.previous());
        checkModel(model, findings);
        if (previous != null) checkEvolution(previous, model, findings);
        List<Object> names = new ArrayList<>();
        for (Entity e : model.entities) names.add(e.name);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("entities", names);
        return c;
    }

    /**
     * REC-MODEL-001..009, entity by entity (8.6): its uniqueness constraints, each attribute, each
     * relationship. A mirrored entity gets the CloudKit rules; every entity gets REC-MODEL-009
     * (Core Data refuses those names whatever the configuration).
     */
    static void checkModel(Model model, Findings findings) {
        Set<String> mirrored = model.mirrored();
        for (Entity e : model.entities) {
            boolean cloud = mirrored.contains(e.name);
            for (int k = 0; cloud && k < e.uniquenessConstraints; k++) {
                findings.add("REC-MODEL-001", e.path + "/uniquenessConstraints/" + k);
            }
            for (Attribute a : e.attributes) {
                if (RESERVED_NAMES.contains(a.name)) findings.add("REC-MODEL-009", a.path + "/name");
                if (cloud) checkAttribute(a, findings);
            }
            for (Relationship r : e.relationships) {
                if (RESERVED_NAMES.contains(r.name)) findings.add("REC-MODEL-009", r.path + "/name");
                if (cloud) checkRelationship(r, model, mirrored, findings);
            }
        }
    }

    static void checkAttribute(Attribute a, Findings findings) {
        if (a.unique) findings.add("REC-MODEL-001", a.path + "/unique");                  // @Attribute(.unique)
        if (a.derived) findings.add("REC-MODEL-005", a.path + "/derived");
        if (!SUPPORTED_TYPES.contains(a.type)) {
            findings.add("REC-MODEL-006", a.path + "/type");                              // Undefined, ObjectID
        } else if (a.type.equals("Transformable")
                && (a.valueTransformerName == null || INSECURE_TRANSFORMERS.contains(a.valueTransformerName))) {
            // no name means Core Data's NSCoding default: the insecure unarchiving the rule keeps out
            findings.add("REC-MODEL-006", a.path + "/valueTransformerName");
        }
        if (!a.optional && !a.hasDefault) findings.add("REC-MODEL-007", a.path + "/optional");
    }

    static void checkRelationship(Relationship r, Model model, Set<String> mirrored, Findings findings) {
        if (r.destination == null || model.entity(r.destination) == null || !mirrored.contains(r.destination)) {
            findings.add("REC-MODEL-008", r.path + "/destination"); // named, exists, and CloudKit mirrors it too
        }
        if (!r.optional) findings.add("REC-MODEL-002", r.path + "/optional");
        if (r.ordered) findings.add("REC-MODEL-002", r.path + "/ordered");
        if (r.inverse == null) findings.add("REC-MODEL-003", r.path + "/inverse");
        if ("Deny".equals(r.deleteRule)) findings.add("REC-MODEL-004", r.path + "/deleteRule");
    }

    /**
     * REC-EVOL-001..004 against the previous version, for each entity it mirrored (a version that
     * never reached CloudKit binds nothing), in 8.6's order and paths.
     */
    static void checkEvolution(Model previous, Model current, Findings findings) {
        if (Boolean.FALSE.equals(current.cloudKit)) return; // the CloudKit rules are off
        Set<String> bound = previous.mirrored();
        for (Entity e : current.entities) {
            Entity before = previous.entity(e.name);
            if (before == null || !bound.contains(e.name)) continue;
            Set<String> kept = new HashSet<>(); // previous attributes kept by name or renaming identifier
            for (Attribute a : e.attributes) {
                kept.add(a.name);
                if (a.renamingIdentifier != null) kept.add(a.renamingIdentifier);
                Attribute old = before.attribute(a.name);
                if (old != null) {
                    if (!old.type.equals(a.type)) findings.add("REC-EVOL-003", a.path + "/type");
                } else if (a.renamingIdentifier != null && before.attribute(a.renamingIdentifier) != null) {
                    findings.add("REC-EVOL-002", a.path + "/name");
                } else if (!a.optional && !a.hasDefault) {
                    findings.add("REC-EVOL-004", a.path + "/optional");
                }
            }
            for (Attribute old : before.attributes) {
                if (!kept.contains(old.name)) findings.add("REC-EVOL-001", e.path + "/attributes");
            }
            Set<String> keptRelationships = new HashSet<>();
            for (Relationship r : e.relationships) {
                keptRelationships.add(r.name);
                if (r.renamingIdentifier != null) keptRelationships.add(r.renamingIdentifier);
                if (before.relationship(r.name) == null && r.renamingIdentifier != null
                        && before.relationship(r.renamingIdentifier) != null) {
                    findings.add("REC-EVOL-002", r.path + "/name");
                }
            }
            for (Relationship old : before.relationships) {
                if (!keptRelationships.contains(old.name)) findings.add("REC-EVOL-001", e.path + "/relationships");
            }
        }
        for (String name : bound) {
            if (previous.entity(name) != null && current.entity(name) == null) findings.add("REC-EVOL-001", "/entities");
        }
    }

    /** context.model / context.previous: the JSON form (an object) or Xcode's XML (a string). */
    static Model modelFromContext(Object value) {
        if (value instanceof String) return readModelXml(((String) value).getBytes(StandardCharsets.UTF_8));
        if (value instanceof Map) {
            try {
                return readModelJson(value);
            } catch (Violation v) {
                throw new InvalidRequest("the context's model is not in the JSON form: " + v.getMessage());
            }
        }
        throw new InvalidRequest("the context's model is neither the JSON form nor Xcode's XML");
    }

    /**
     * The JSON form: {cloudKit?, configurations?, entities: [{name, parent?, attributes?,
     * relationships?, uniquenessConstraints?}]}; required unless `optional` is true. A member of
     * another JSON type, or a missing name or type, is one CORE-TYPE-* violation (thrown).
     */
    static Model readModelJson(Object document) {
        Map<String, Object> o = rootObject(document, "");
        Model m = new Model();
        m.cloudKit = optionalBoolean(o, "", "cloudKit");
        List<Object> configurations = optionalArray(o, "", "configurations");
        for (int i = 0; configurations != null && i < configurations.size(); i++) {
            String at = "/configurations/" + i;
            Map<String, Object> c = objectAt(configurations.get(i), at);
            List<String> names = new ArrayList<>();
            List<Object> list = optionalArray(c, at, "entities");
            for (int j = 0; list != null && j < list.size(); j++) names.add(asString(list.get(j), at + "/entities/" + j));
            m.configurations.add(new Configuration(optionalString(c, at, "name"),
                    Boolean.TRUE.equals(optionalBoolean(c, at, "cloudKit")), names));
        }
        List<Object> entities = requiredArray(o, "", "entities");
        for (int i = 0; i < entities.size(); i++) { // every entity is an object that names itself, first (8.6)
            requiredString(objectAt(entities.get(i), "/entities/" + i), "/entities/" + i, "name");
        }
        for (int i = 0; i < entities.size(); i++) {
            String at = "/entities/" + i;
            Map<String, Object> eo = asObject(entities.get(i));
            Entity e = new Entity();
            e.path = at;
            e.name = (String) eo.get("name");
            e.parent = optionalString(eo, at, "parent");
            List<Object> attributes = optionalArray(eo, at, "attributes");
            for (int j = 0; attributes != null && j < attributes.size(); j++) {
                String ap = at + "/attributes/" + j;
                Map<String, Object> ao = objectAt(attributes.get(j), ap);
                Attribute a = new Attribute();
                a.path = ap;
                a.name = requiredString(ao, ap, "name");
                a.type = requiredString(ao, ap, "type");
                a.optional = Boolean.TRUE.equals(optionalBoolean(ao, ap, "optional")); // Core Data's default: required
                a.hasDefault = optional(ao, "defaultValue") != null;
                a.unique = Boolean.TRUE.equals(optionalBoolean(ao, ap, "unique"));
                a.derived = Boolean.TRUE.equals(optionalBoolean(ao, ap, "derived"));
                a.renamingIdentifier = optionalString(ao, ap, "renamingIdentifier");
                a.valueTransformerName = optionalString(ao, ap, "valueTransformerName");
                a.cloudEncrypted = Boolean.TRUE.equals(optionalBoolean(ao, ap, "allowsCloudEncryption"));
                e.attributes.add(a);
            }
            List<Object> relationships = optionalArray(eo, at, "relationships");
            for (int j = 0; relationships != null && j < relationships.size(); j++) {
                String rp = at + "/relationships/" + j;
                Map<String, Object> ro = objectAt(relationships.get(j), rp);
                Relationship r = new Relationship();
                r.path = rp;
                r.name = requiredString(ro, rp, "name");
                r.destination = optionalString(ro, rp, "destination");
                r.optional = Boolean.TRUE.equals(optionalBoolean(ro, rp, "optional"));
                r.ordered = Boolean.TRUE.equals(optionalBoolean(ro, rp, "ordered"));
                r.toMany = Boolean.TRUE.equals(optionalBoolean(ro, rp, "toMany"));
                r.inverse = optionalString(ro, rp, "inverse");
                r.deleteRule = optionalString(ro, rp, "deleteRule");
                r.renamingIdentifier = optionalString(ro, rp, "renamingIdentifier");
                e.relationships.add(r);
            }
            List<Object> constraints = optionalArray(eo, at, "uniquenessConstraints");
            e.uniquenessConstraints = constraints == null ? 0 : constraints.size();
            m.entities.add(e);
        }
        return m;
    }

    /**
     * Xcode's .xcdatamodel/contents read into the JSON form with Core Data's defaults (section 7):
     * optional="YES" or required; "Integer 16" is Integer16, "Object ID" ObjectID; elementID is the
     * renaming identifier; a default is defaultValueString or defaultDateTimeInterval; <attribute>
     * and <relationship> elements each indexed on their own (8.6). Not such XML: invalid-request.
     */
    static Model readModelXml(byte[] bytes) {
        Element root;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true); // no XXE
            factory.setExpandEntityReferences(false);
            factory.setXIncludeAware(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null);
            root = builder.parse(new ByteArrayInputStream(bytes)).getDocumentElement();
        } catch (Exception e) {
            throw new InvalidRequest("not Xcode model XML: " + e.getMessage());
        }
        if (!root.getTagName().equals("model")) throw new InvalidRequest("not Xcode model XML: <" + root.getTagName() + ">");
        Model m = new Model();
        for (Element ee : children(root, "entity")) {
            Entity e = new Entity();
            e.path = "/entities/" + m.entities.size();
            e.name = ee.getAttribute("name");
            e.parent = attr(ee, "parentEntity");
            for (Element ae : children(ee, "attribute")) {
                Attribute a = new Attribute();
                a.path = e.path + "/attributes/" + e.attributes.size();
                a.name = ae.getAttribute("name");
                a.type = ae.getAttribute("attributeType").replace(" ", "");
                a.optional = yes(ae, "optional");
                a.hasDefault = attr(ae, "defaultValueString") != null || attr(ae, "defaultDateTimeInterval") != null;
                a.derived = yes(ae, "derived");
                a.renamingIdentifier = attr(ae, "elementID");
                a.valueTransformerName = attr(ae, "valueTransformerName");
                a.cloudEncrypted = yes(ae, "allowsCloudEncryption");
                e.attributes.add(a);
            }
            for (Element re : children(ee, "relationship")) {
                Relationship r = new Relationship();
                r.path = e.path + "/relationships/" + e.relationships.size();
                r.name = re.getAttribute("name");
                r.destination = attr(re, "destinationEntity");
                r.optional = yes(re, "optional");
                r.ordered = yes(re, "ordered");
                r.toMany = yes(re, "toMany");
                r.inverse = attr(re, "inverseName");
                r.deleteRule = attr(re, "deletionRule");
                r.renamingIdentifier = attr(re, "elementID");
                e.relationships.add(r);
            }
            for (Element ue : children(ee, "uniquenessConstraints")) {
                e.uniquenessConstraints += children(ue, "uniquenessConstraint").size();
            }
            m.entities.add(e);
        }
        for (Element ce : children(root, "configuration")) {
            List<String> members = new ArrayList<>();
            for (Element me : children(ce, "memberEntity")) members.add(me.getAttribute("name"));
            m.configurations.add(new Configuration(ce.getAttribute("name"), yes(ce, "usedWithCloudKit"), members));
        }
        return m;
    }

    static List<Element> children(Element parent, String tag) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element && ((Element) n).getTagName().equals(tag)) out.add((Element) n);
        }
        return out;
    }

    static String attr(Element e, String name) {
        return e.hasAttribute(name) ? e.getAttribute(name) : null;
    }

    static boolean yes(Element e, String name) {
        return "YES".equals(e.getAttribute(name));
    }

    // ==========================================================================================
    // 8. Machines (records.md sections 5, 6 and 8.7): sans-I/O, events in, state and actions
    //    out. run-machine answers one step per event: the state after it and the actions it
    //    emitted. An event a machine does not know, or one without a member it needs, makes the
    //    request invalid (8.7).
    // ==========================================================================================

    interface Machine {
        void on(Event event, List<Object> actions);

        Map<String, Object> state(); // a fresh snapshot

        /** A machine that keeps time says when it next needs a tick (null: never); it asks for no timer. */
        default Optional<Object> deadline() {
            return Optional.empty();
        }
    }

    static Map<String, Object> runMachine(Map<String, Object> request) {
        Map<String, Object> context = request.get("context") instanceof Map ? asObject(request.get("context")) : Map.of();
        if (!(request.get("events") instanceof List)) return outcome(request, "invalid-request", "reason", "no events");
        List<Object> steps = new ArrayList<>();
        try {
            Machine machine;
            switch (String.valueOf(request.get("machine"))) {
                case "idea-sync": machine = new IdeaSync(context); break;
                case "log-retention": machine = new LogRetention(); break;
                case "sync-queue": machine = new SyncQueue(); break;
                case "initial-sync": machine = new InitialSync(); break;
                case "record-zone": machine = new RecordZone(); break;
                default: return outcome(request, "unsupported", "reason", "machine not implemented");
            }
            for (Object e : asArray(request.get("events"))) {
                if (!(e instanceof Map)) throw new InvalidRequest("an event is not an object");
                List<Object> actions = new ArrayList<>();
                machine.on(new Event(asObject(e)), actions);
                Map<String, Object> step = new LinkedHashMap<>();
                step.put("state", machine.state());
                step.put("actions", actions);
                machine.deadline().ifPresent(d -> step.put("deadline", d));
                steps.add(step);
            }
        } catch (InvalidRequest e) {
            return outcome(request, "invalid-request", "reason", e.getMessage());
        }
        return outcome(request, "trace", "steps", steps);
    }

    /** An event and its members; a member it lacks makes the request invalid. */
    record Event(Map<String, Object> members) {
        String name() {
            return String.valueOf(members.get("event"));
        }

        long integer(String member) {
            Long v = asLongOrNull(members.get(member));
            if (v == null) throw new InvalidRequest("event " + name() + " has no integer " + member);
            return v;
        }

        boolean bool(String member) {
            if (!(members.get(member) instanceof Boolean)) throw new InvalidRequest("event " + name() + " has no boolean " + member);
            return (Boolean) members.get(member);
        }

        String string(String member) {
            if (!(members.get(member) instanceof String)) throw new InvalidRequest("event " + name() + " has no string " + member);
            return (String) members.get(member);
        }

        Map<String, Object> object(String member) {
            if (!(members.get(member) instanceof Map)) throw new InvalidRequest("event " + name() + " has no object " + member);
            return asObject(members.get(member));
        }

        InvalidRequest unknown() {
            return new InvalidRequest("unknown event " + name());
        }
    }

    static Map<String, Object> action(String name, Object... members) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("action", name);
        for (int i = 0; i < members.length; i += 2) a.put((String) members[i], members[i + 1]);
        return a;
    }

    static final long THIRTY_DAYS = 2_592_000_000L;

    /** idea-sync (001 §2 "狀態轉遷"): one idea's sync-state. REC-STATE-001, REC-STATE-002. */
    static final class IdeaSync implements Machine {
        final String ideaId;
        final long createdAt;
        long localVersion = 0; // a new idea: pending, version 0, last modified at its creation
        long lastModifiedAt;
        Long remoteVersion, lastSyncedAt, lastConflictAt;
        String cloudKitRecordName;
        boolean pending = true, obsolete = false;

        IdeaSync(Map<String, Object> context) {
            if (!(context.get("ideaId") instanceof String) || asLongOrNull(context.get("createdAt")) == null) {
                throw new InvalidRequest("idea-sync needs context.ideaId and context.createdAt");
            }
            ideaId = (String) context.get("ideaId");
            createdAt = asLongOrNull(context.get("createdAt"));
            lastModifiedAt = createdAt;
        }

        public void on(Event e, List<Object> actions) {
            long at = e.integer("at");
            switch (e.name()) {
                case "local-change":
                    localVersion++;
                    pending = true;
                    lastModifiedAt = at;
                    return;
                case "sync-succeeded": {
                    long version = e.integer("remoteVersion");
                    String recordName = e.string("recordName");
                    long lastSynced = remoteVersion == null ? 0 : remoteVersion;
                    if (version < lastSynced || version > localVersion) { // older than synced, or not yet made
                        actions.add(action("drop", "rule", "REC-STATE-001"));
                        return;
                    }
                    remoteVersion = version;
                    cloudKitRecordName = recordName;
                    lastSyncedAt = at;
                    pending = false;
                    obsolete = false;
                    actions.add(log("sync_success", at));
                    return;
                }
                case "sync-failed": {
                    Map<String, Object> entry = log("sync_failure", at);
                    entry.put("errorCode", e.integer("errorCode"));
                    actions.add(entry);
                    return;
                }
                case "retry":
                    actions.add(log("retry", at));
                    return;
                case "conflict":
                    lastConflictAt = at;
                    actions.add(log("conflict", at));
                    return;
                case "tick": {
                    // REC-STATE-002: pending, and more than 30 days since the last sync or the creation
                    long since = lastSyncedAt != null ? lastSyncedAt : createdAt;
                    if (pending && !obsolete && at - since > THIRTY_DAYS) {
                        obsolete = true;
                        actions.add(action("obsolete", "rule", "REC-STATE-002"));
                    }
                    return;
                }
                default: throw e.unknown();
            }
        }

        /** A SyncLog entry the outcome writes; its timestamp is the event's time as ISO text. */
        Map<String, Object> log(String eventType, long at) {
            return action("log", "eventType", eventType, "timestamp", isoOf(at));
        }

        public Map<String, Object> state() {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("ideaId", ideaId);
            s.put("localVersion", localVersion);
            if (remoteVersion != null) s.put("remoteVersion", remoteVersion);
            if (cloudKitRecordName != null) s.put("cloudKitRecordName", cloudKitRecordName);
            if (lastSyncedAt != null) s.put("lastSyncedAt", isoOf(lastSyncedAt));
            if (lastConflictAt != null) s.put("lastConflictAt", isoOf(lastConflictAt));
            s.put("lastModifiedAt", isoOf(lastModifiedAt));
            s.put("isPendingSync", pending);
            s.put("isObsolete", obsolete);
            s.put("conflictResolutionStrategy", "lastWrite");
            return s;
        }

        /** REC-STATE-002: when a pending change turns obsolete; nothing else waits for time. */
        public Optional<Object> deadline() {
            if (!pending || obsolete) return Optional.of(Json.NULL);
            return Optional.of((lastSyncedAt != null ? lastSyncedAt : createdAt) + THIRTY_DAYS + 1);
        }
    }

    /** log-retention (001 §3 "保留策略"): entries checked as sync-log, pruned at launch. REC-SLOG-002. */
    static final class LogRetention implements Machine {
        record Entry(String id, long timestamp) {} // one per valid append, even when an id repeats (8.7)

        final List<Entry> entries = new ArrayList<>(); // every stored entry in append order (an id may repeat)

        public void on(Event e, List<Object> actions) {
            switch (e.name()) {
                case "append": {
                    Map<String, Object> entry;
                    try {
                        entry = checkSyncLog(e.object("document"));
                    } catch (Violation v) { // a bad entry is not stored: dropped on its one violation
                        actions.add(action("drop", "rule", v.rule, "path", v.path));
                        return;
                    }
                    entries.add(new Entry((String) entry.get("id"), isoMillis((String) entry.get("timestamp"), "/timestamp")));
                    return;
                }
                case "launch": {
                    long now = e.integer("at");
                    List<Object> pruned = new ArrayList<>();
                    for (Entry entry : entries) {
                        if (now - entry.timestamp() > THIRTY_DAYS) pruned.add(entry.id()); // exactly 30 days stays
                    }
                    entries.removeIf(entry -> now - entry.timestamp() > THIRTY_DAYS);
                    if (!pruned.isEmpty()) actions.add(action("prune", "ids", pruned, "rule", "REC-SLOG-002"));
                    return;
                }
                default: throw e.unknown();
            }
        }

        public Map<String, Object> state() {
            Map<String, Object> s = new LinkedHashMap<>();
            List<Object> ids = new ArrayList<>();
            for (Entry entry : entries) ids.add(entry.id());
            s.put("entries", ids);
            return s;
        }
    }

    /**
     * sync-queue (001 "批量操作"), REC-BATCH-001: saves of at most 100 ideas, the oldest change
     * first (ties by ideaId in code point order), one save at a time; an idea changed again while
     * in flight stays pending; downloads in pages of at most 50.
     */
    static final class SyncQueue implements Machine {
        final Map<String, Long> pending = new HashMap<>();  // idea -> its latest change time
        final Map<String, Long> inFlight = new LinkedHashMap<>(); // idea -> its change time when sent

        public void on(Event e, List<Object> actions) {
            switch (e.name()) {
                case "change":
                    pending.merge(e.string("ideaId"), e.integer("at"), Math::max);
                    return;
                case "flush":
                    if (inFlight.isEmpty()) upload(actions); // one save at a time
                    return;
                case "uploaded":
                    for (var sent : inFlight.entrySet()) {
                        // saved, unless a later change came while it was in flight
                        if (pending.get(sent.getKey()) <= sent.getValue()) pending.remove(sent.getKey());
                    }
                    inFlight.clear();
                    upload(actions); // the next batch starts by itself
                    return;
                case "upload-failed":
                    inFlight.clear(); // its ideas stay pending until the next flush
                    return;
                case "download": {
                    long total = e.integer("total");
                    for (long offset = 0; offset < total; offset += 50) {
                        actions.add(action("fetch-page", "offset", offset, "limit", Math.min(50, total - offset)));
                    }
                    return;
                }
                default: throw e.unknown();
            }
        }

        void upload(List<Object> actions) {
            if (pending.isEmpty()) return;
            List<String> order = new ArrayList<>(pending.keySet());
            order.sort((a, b) -> {
                int byTime = Long.compare(pending.get(a), pending.get(b));
                return byTime != 0 ? byTime : compareCodePoints(a, b);
            });
            List<String> batch = order.subList(0, Math.min(100, order.size()));
            for (String id : batch) inFlight.put(id, pending.get(id));
            Map<String, Object> a = action("upload", "ideaIds", new ArrayList<Object>(batch));
            long deferred = order.size() - batch.size();
            if (deferred > 0) { // says how many are left for a later save
                a.put("deferred", deferred);
                a.put("rule", "REC-BATCH-001");
            }
            actions.add(a);
        }

        public Map<String, Object> state() {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("pending", (long) pending.size()); // those in flight included
            s.put("inFlight", (long) inFlight.size());
            return s;
        }
    }

    /**
     * initial-sync (004 §4.1, §5, §7), the table of 8.7: REC-INIT-001 (the decision flow; an event
     * out of order is dropped) and REC-INIT-002 (a failed operation is retried after 1, 2, 4, 8,
     * 16 s; its sixth failure gives up). `failures` counts the current operation's failures.
     */
    static final class InitialSync implements Machine {
        static final Map<String, String> OPERATIONS = Map.of(
                "checkingPurchase", "restore-purchases",
                "checkingAccount", "fetch-account-status",
                "querying", "query-records",
                "restoring", "fetch-all-records",
                "deletingCloud", "delete-cloud-records");
        static final Set<String> EVENTS = Set.of("launched", "pro-purchased", "purchase-restored", "account-status",
                "query-result", "user-choice", "succeeded", "failed", "tick");
        static final Set<String> RETRIED = Set.of("checkingPurchase", "checkingAccount", "querying", "deletingCloud");

        String name = "start";
        long failures = 0;
        String operation;  // the current operation
        String retryState; // the state a retry returns to
        long retryAt;      // when, while waitingRetry

        public void on(Event e, List<Object> actions) {
            if (!EVENTS.contains(e.name())) throw e.unknown();
            long at = e.integer("at");
            switch (name + " " + e.name()) {
                case "start launched":
                    if (e.bool("reinstall")) perform("checkingPurchase", actions); // the purchase first
                    else name = "localOnly"; // a first install asks iCloud nothing
                    return;
                case "localOnly pro-purchased":
                    perform("checkingAccount", actions);
                    return;
                case "checkingPurchase purchase-restored":
                    if (e.bool("pro")) perform("checkingAccount", actions); // only a PRO user's account
                    else name = "localOnly";
                    return;
                case "checkingAccount account-status":
                    if (e.bool("available")) {
                        perform("querying", actions);
                    } else {
                        name = "failed"; // no iCloud account: no retry
                        actions.add(action("show-error", "code", "icloud-account-unavailable"));
                    }
                    return;
                case "querying query-result":
                    if (e.bool("found")) {
                        name = "awaitingChoice";
                        actions.add(action("prompt-restore"));
                    } else {
                        name = "ready";
                        actions.add(action("upload-local")); // no records: the local data is the initial data
                    }
                    return;
                case "awaitingChoice user-choice":
                case "restoreFailed user-choice": {
                    String choice = e.string("choice");
                    if (choice.equals("restore") || choice.equals("retry")) perform("restoring", actions);
                    else if (choice.equals("discard") || choice.equals("delete")) perform("deletingCloud", actions);
                    else actions.add(action("drop", "rule", "REC-INIT-001"));
                    return;
                }
                case "restoring succeeded":
                    name = "ready";
                    return;
                case "restoring failed":
                    name = "restoreFailed"; // a failed restore offers retry or delete
                    actions.add(action("prompt-retry-or-delete"));
                    return;
                case "deletingCloud succeeded":
                    name = "ready";
                    actions.add(action("upload-local")); // start fresh
                    return;
                case "waitingRetry tick":
                    if (at >= retryAt) perform(retryState, actions);
                    return;
                default:
                    if (e.name().equals("tick")) return; // nothing due: a tick changes nothing
                    if (e.name().equals("failed") && RETRIED.contains(name)) {
                        fail(at, actions);
                    } else {
                        actions.add(action("drop", "rule", "REC-INIT-001")); // out of order
                    }
            }
        }

        void perform(String state, List<Object> actions) {
            String op = OPERATIONS.get(state);
            if (!op.equals(operation)) failures = 0; // another operation begins
            operation = op;
            name = state;
            actions.add(action("perform", "operation", op));
        }

        /** REC-INIT-002: delay = min(60 s, 1 s * 2^(n-1)) after the n-th failure, from its time. */
        void fail(long at, List<Object> actions) {
            failures++;
            if (failures >= 6) {
                name = "failed";
                actions.add(action("show-error", "code", "sync-unavailable", "rule", "REC-INIT-002"));
                return;
            }
            retryState = name;
            name = "waitingRetry";
            retryAt = at + Math.min(60_000L, 1_000L << (failures - 1));
        }

        public Optional<Object> deadline() {
            return Optional.of(name.equals("waitingRetry") ? (Object) retryAt : Json.NULL);
        }

        public Map<String, Object> state() {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", name);
            s.put("failures", failures);
            return s;
        }
    }

    /**
     * record-zone (section 6, 8.7): the server's side of optimistic concurrency (REC-CONF-001). A
     * save naming the zone's tag for the record (or creating one) is stored under the next tag,
     * t1, t2, ... counting every save of the zone; any other save of a held record fails with
     * server-record-changed {client, server, ancestor}; a forced save overwrites. The zone does
     * not check the documents.
     */
    static final class RecordZone implements Machine {
        final Map<String, String> tags = new LinkedHashMap<>(); // recordName -> its current tag
        final Map<String, Map<String, Object>> versions = new HashMap<>(); // "name tag" -> the record saved so
        int saves = 0;

        public void on(Event e, List<Object> actions) {
            if (!e.name().equals("save") && !e.name().equals("save-forced")) throw e.unknown();
            Map<String, Object> document = e.object("document");
            if (!(document.get("recordName") instanceof String)) throw new InvalidRequest("a document without recordName");
            String name = (String) document.get("recordName");
            String current = tags.get(name);
            Object sent = document.get("recordChangeTag");
            if (e.name().equals("save") && current != null && !current.equals(sent)) {
                Map<String, Object> conflict = action("server-record-changed");
                conflict.put("client", document);
                conflict.put("server", versions.get(name + " " + current));
                Map<String, Object> ancestor = versions.get(name + " " + sent); // none: no tag, or never issued
                conflict.put("ancestor", ancestor == null ? Json.NULL : ancestor);
                conflict.put("rule", "REC-CONF-001");
                actions.add(conflict);
                return;
            }
            String tag = "t" + ++saves;
            Map<String, Object> saved = new LinkedHashMap<>(document);
            saved.put("recordChangeTag", tag);
            tags.put(name, tag);
            versions.put(name + " " + tag, saved);
            actions.add(action("saved", "recordChangeTag", tag));
        }

        public Map<String, Object> state() {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("tags", new LinkedHashMap<String, Object>(tags));
            return s;
        }
    }

    /** Code point order (String.compareTo is UTF-16 unit order, which differs above U+FFFF). */
    static int compareCodePoints(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i), y = b.codePointAt(j);
            if (x != y) return Integer.compare(x, y);
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }
    // ==========================================================================================
    // 9. Text helpers
    // ==========================================================================================

    /** Lengths are Unicode scalar values (REC-LEN-001): not String.length(), not graphemes. */
    static int scalarCount(String s) {
        return s.codePointCount(0, s.length());
    }

    /** Unicode White_Space (PropList.txt), which is neither Character.isWhitespace nor trim(). */
    static boolean isWhiteSpace(char ch) {
        return (ch >= 0x09 && ch <= 0x0D) || ch == 0x20 || ch == 0x85 || ch == 0xA0 || ch == 0x1680
                || (ch >= 0x2000 && ch <= 0x200A) || ch == 0x2028 || ch == 0x2029 || ch == 0x202F
                || ch == 0x205F || ch == 0x3000;
    }

    /** Blank: nothing but White_Space (the empty string included). */
    static boolean isBlank(String s) {
        for (int i = 0; i < s.length(); i++) if (!isWhiteSpace(s.charAt(i))) return false;
        return true;
    }

    /** A UUID in its text form, 8-4-4-4-12 ASCII hex digits, either case (iOS writes upper case). */
    static boolean isUuid(String s) {
        if (s.length() != 36) return false;
        for (int i = 0; i < 36; i++) {
            char ch = s.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (ch != '-') return false;
            } else if (!isAsciiHex(ch)) {
                return false;
            }
        }
        return true;
    }

    static boolean isAsciiHex(char ch) {
        return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
    }

    /** #RRGGBB (REC-HABIT-001 backgroundColor). */
    static boolean isHexColor(String s) {
        if (s.length() != 7 || s.charAt(0) != '#') return false;
        for (int i = 1; i < 7; i++) if (!isAsciiHex(s.charAt(i))) return false;
        return true;
    }

    /** Case-insensitive in ASCII only (equalsIgnoreCase also folds U+017F, U+212A). */
    static boolean asciiEqualsIgnoreCase(String a, String b) {
        if (a.length() != b.length()) return false;
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i), y = b.charAt(i);
            if (x >= 'A' && x <= 'Z') x = (char) (x + 32);
            if (y >= 'A' && y <= 'Z') y = (char) (y + 32);
            if (x != y) return false;
        }
        return true;
    }

    // ---- typed members (Spec/core.md CORE-TYPE-001..004) ----------------------------------------

    /** The root (or a nested record) must be an object: CORE-TYPE-003 at its pointer. */
    static Map<String, Object> rootObject(Object document, String path) {
        if (!(document instanceof Map)) throw new Violation("CORE-TYPE-003", path);
        return asObject(document);
    }

    static Map<String, Object> objectAt(Object v, String path) {
        return rootObject(v, path);
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

    static boolean requiredBoolean(Map<String, Object> o, String base, String name) {
        Object v = required(o, base, name);
        if (!(v instanceof Boolean)) throw new Violation("CORE-TYPE-003", pointer(base, name));
        return (Boolean) v;
    }

    static Boolean optionalBoolean(Map<String, Object> o, String base, String name) {
        Object v = optional(o, name);
        if (v == null) return null;
        if (!(v instanceof Boolean)) throw new Violation("CORE-TYPE-003", pointer(base, name));
        return (Boolean) v;
    }

    static List<Object> requiredArray(Map<String, Object> o, String base, String name) {
        Object v = required(o, base, name);
        if (!(v instanceof List)) throw new Violation("CORE-TYPE-003", pointer(base, name));
        return asArray(v);
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
        if (v instanceof Long) return (Long) v;
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

    /** A failing check: a rule id and an RFC 6901 pointer into the document. */
    static final class Violation extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String rule;
        final String path;

        Violation(String rule, String path) {
            super(rule + " at \"" + path + "\"", null, false, false);
            this.rule = rule;
            this.path = path;
        }
    }

    /** The request itself is unusable (a context without a member the kind needs). */
    static final class InvalidRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidRequest(String reason) {
            super(reason);
        }
    }

    // ==========================================================================================
    // 10. The wire profile (Spec/core.md): a strict reader on the exact bytes, as in the pairing
    //     template Testee.java. Checks, in document order: CORE-JSON-001 (syntax), -002 (UTF-8 and
    //     \\u escapes), -003 (duplicate names after unescaping), -005 (depth), -006 (finite
    //     numbers). CORE-JSON-004 (size) is the caller's.
    //     Values: Map (LinkedHashMap), List, String, Json.Number, Boolean, Json.NULL.
    // ==========================================================================================

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

    // ---- JSON values and the writer: members sorted by UTF-16 code units and numbers in
    //      ECMAScript form, as RFC 8785 (JCS) lays them out (core.md "Canonical form"). ----------

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

    /** One request line (without its \n), or null at end of input. Split on \n only (U+2028 is text). */
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
