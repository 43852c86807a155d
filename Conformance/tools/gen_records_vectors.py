"""Writes the records vectors (Spec/records.md): Vectors/records/<kind>.json and machine files.
Expectations are written by hand from the Spec; nothing is computed by an implementation."""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vector_file import VectorFile, arm  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "records")
T = 1747300000000
DAY = 86400000
ID = "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f"


def f(value, type_):
    return {"value": value, "type": type_}


IDEA = {"recordName": ID, "recordType": "Idea", "recordChangeTag": "t1",
        "fields": {"id": f(ID, "STRING"), "title": f("买菜 🥬", "STRING"), "description": f("Milk, eggs", "STRING"),
                   "isCompleted": f(0, "INT64"), "createdAt": f(T, "TIMESTAMP"), "updatedAt": f(T + 5000, "TIMESTAMP"),
                   "deviceId": f("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "STRING"), "version": f(3, "INT64"),
                   "lastSyncedAt": f(T + 6000, "TIMESTAMP")},
        "created": {"timestamp": T, "userRecordName": "_a1b2c3"}, "modified": {"timestamp": T + 6000, "userRecordName": "_a1b2c3"},
        "zoneID": {"zoneName": "_defaultZone"}}
HABIT = {"recordName": "habit-1", "recordType": "Habit",
         "fields": {"name": f("喝水", "STRING"), "emoji": f("💧", "STRING"), "colorTheme": f("ocean", "STRING"),
                    "habitType": f("Count", "STRING"), "createdAt": f(T, "TIMESTAMP"), "backgroundColor": f("#A0D8EF", "STRING"),
                    "maxCheckInCount": f(8, "INT64")}}
LOG = {"recordName": "log-1", "recordType": "HabitLog",
       "fields": {"habit": f({"recordName": "habit-1", "action": "DELETE_SELF"}, "REFERENCE"), "date": f(1747267200000, "TIMESTAMP"),
                  "count": f(3, "INT64")}}
CARD_FIELD = {"recordName": "CD_CardField_6F1A", "recordType": "CD_CardField",
              "fields": {"CD_entityName": f("CardField", "STRING"), "CD_id": f("7d1c0e9a-5b2f-4a8e-9c3d-2e1f0a9b8c7d", "STRING"),
                         "CD_card": f("CD_Card_1A2B", "STRING"), "CD_label": f("Password", "STRING"),
                         "CD_encryptedValue": f("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygp", "BYTES"), "CD_order": f(0, "INT64")}}


def edit(doc, path, value):
    d = copy.deepcopy(doc)
    target = d
    keys = path.split("/")
    for k in keys[:-1]:
        target = target[k]
    if value is DROP:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return d


DROP = object()


class File(VectorFile):
    family = "records"
    out = OUT

    def accept(self, slug, comment, doc, canonical, rules, flags=(), context=None):
        self.case(slug, comment, rules, flags, context, input=doc, expected={"outcome": "accept", "canonical": canonical})

    def reject(self, slug, comment, doc, violations, flags=(), text=None, context=None, rules=None):
        if isinstance(violations, tuple):
            violations = [violations]
        source = {"inputText": text} if text is not None else {"input": doc}
        self.case(slug, comment, rules or sorted({r for _, r in violations}), flags, context, **source,
                  expected={"outcome": "reject", "violations": [{"path": p, "rule": r} for p, r in violations]})


def canon(record):
    return record


files = []

# ------------------------------------------------------------------ Idea
idea = File(kind="Idea", description="Idea records (seed 001 CloudKit 映射; Spec records.md 3).")
files.append(idea)
idea.accept("seed-mapping", "The seed's Idea mapping with all fields, isCompleted as INT64 0/1.", IDEA, IDEA,
            ["REC-REC-001", "REC-REC-002", "REC-REC-003", "REC-REC-004", "REC-REC-005", "REC-REC-006", "REC-REC-007", "REC-REC-008",
             "REC-TIME-001", "REC-IDEA-001", "REC-IDEA-002", "REC-LEN-001"], ["seed-example"])
minimal = edit(edit(edit(IDEA, "fields/description", DROP), "fields/lastSyncedAt", DROP), "recordChangeTag", DROP)
for k in ("created", "modified", "zoneID"):
    minimal = edit(minimal, k, DROP)
idea.accept("new-record-minimal", "A new record: no change tag, no metadata, no description.", minimal, minimal, ["REC-REC-005", "REC-REC-006"])
idea.accept("upper-case-record-name", "recordName and id compare case-insensitively (iOS writes upper-case UUIDs).",
            edit(IDEA, "recordName", ID.upper()), edit(IDEA, "recordName", ID.upper()), ["REC-IDEA-001"], ["interop-trap"])
idea.accept("unknown-field-ignored", "A field a newer app version added is ignored and dropped.",
            edit(IDEA, "fields/priority", f(2, "INT64")), IDEA, ["REC-REC-004", "CORE-MEMBER-001"], ["interop-trap"])
idea.accept("deleted-null-not-given", "deleted: null is \"not given\" (CORE-TYPE-002 on an optional member): a live record, no deleted in the canonical form.",
            edit(IDEA, "deleted", None), IDEA, ["CORE-TYPE-002"], ["interop-trap"])
t256 = "字" * 255 + "😀"
idea.accept("title-256-scalars", "A title of exactly 256 scalars (the last one an emoji) is accepted.", edit(IDEA, "fields/title", f(t256, "STRING")),
            edit(IDEA, "fields/title", f(t256, "STRING")), ["REC-LEN-001", "REC-IDEA-002"], ["boundary"])
emoji200 = "😀" * 200
idea.accept("title-200-emoji", "200 emoji are 200 scalars (400 UTF-16 units): within 256. A UTF-16 counter would reject it.",
            edit(IDEA, "fields/title", f(emoji200, "STRING")), edit(IDEA, "fields/title", f(emoji200, "STRING")), ["REC-LEN-001"], ["interop-trap"])
fam = "👨‍👩‍👧" * 51
idea.accept("title-family-emoji", "51 family emoji are 255 scalars (5 each) though only 51 graphemes: accepted.",
            edit(IDEA, "fields/title", f(fam, "STRING")), edit(IDEA, "fields/title", f(fam, "STRING")), ["REC-LEN-001"], ["interop-trap"])
idea.accept("deleted-tombstone", "A deleted record in a change feed carries no fields.",
            {"recordName": ID, "recordType": "Idea", "deleted": True}, {"recordName": ID, "recordType": "Idea", "deleted": True}, ["REC-REC-005"])
idea.reject("record-name-underscore", "Record names starting with _ are reserved.", edit(IDEA, "recordName", "_idea"), ("/recordName", "REC-REC-001"))
idea.reject("record-name-space", "Record names are printable ASCII.", edit(IDEA, "recordName", "my idea"), ("/recordName", "REC-REC-001"))
idea.reject("record-type-other", "Checked as Idea, a Habit is the wrong type.", HABIT, ("/recordType", "REC-REC-002"))
idea.reject("field-without-type", "A field must say its type: 0 is INT64 to one client, DOUBLE to another.",
            edit(IDEA, "fields/isCompleted", {"value": 0}), ("/fields/isCompleted/type", "CORE-TYPE-001"), ["interop-trap"], rules=["CORE-TYPE-001", "REC-REC-003"])
idea.reject("field-type-unknown", "BOOLEAN is not a CloudKit type.", edit(IDEA, "fields/isCompleted", f(False, "BOOLEAN")), ("/fields/isCompleted/type", "REC-REC-003"), ["interop-trap"])
idea.reject("bool-as-json-bool", "isCompleted as a JSON boolean under INT64.", edit(IDEA, "fields/isCompleted", f(True, "INT64")), ("/fields/isCompleted/value", "CORE-TYPE-003"), ["interop-trap"])
idea.reject("int64-beyond-2-53", "An INT64 beyond 2^53 cannot cross JSON exactly.", None, ("/fields/version/value", "CORE-TYPE-004"), ["interop-trap"],
            text=json.dumps(IDEA, ensure_ascii=False).replace('"version": {"value": 3', '"version": {"value": 9007199254740993'))
idea.reject("declared-type-mismatch", "updatedAt declared TIMESTAMP, sent as STRING.", edit(IDEA, "fields/updatedAt", f("2025-05-15T09:06:45.000Z", "STRING")),
            ("/fields/updatedAt/type", "REC-REC-004"), ["interop-trap"])
idea.reject("every-field-reported", "Fields are checked on their own: a missing title, a boolean isCompleted and a change tag with a space are reported together.",
            edit(edit(edit(IDEA, "fields/title", DROP), "fields/isCompleted", f(True, "INT64")), "recordChangeTag", "t 1"),
            [("/recordChangeTag", "REC-REC-006"), ("/fields/title", "REC-REC-005"), ("/fields/isCompleted/value", "CORE-TYPE-003")])
idea.reject("title-missing", "title is required.", edit(IDEA, "fields/title", DROP), ("/fields/title", "REC-REC-005"))
idea.reject("change-tag-empty", "An empty change tag.", edit(IDEA, "recordChangeTag", ""), ("/recordChangeTag", "REC-REC-006"))
idea.reject("modified-before-created", "modified earlier than created.", edit(IDEA, "modified/timestamp", T - 1), ("/modified/timestamp", "REC-REC-007"))
idea.reject("zone-name-empty", "An empty zone name.", edit(IDEA, "zoneID/zoneName", ""), ("/zoneID/zoneName", "REC-REC-008"))
idea.reject("timestamp-seconds", "createdAt in seconds where CloudKit TIMESTAMP is milliseconds.", edit(IDEA, "fields/createdAt", f(T // 1000, "TIMESTAMP")),
            ("/fields/createdAt/value", "REC-TIME-001"), ["interop-trap"])
idea.reject("id-not-uuid", "id must be a UUID.", edit(edit(IDEA, "fields/id", f("idea-1", "STRING")), "recordName", "idea-1"), ("/fields/id/value", "REC-IDEA-001"))
idea.reject("record-name-not-id", "recordName must be the idea's id.", edit(IDEA, "recordName", "3f2c6a1e-0000-4c2e-8f10-5a6b7c8d9e0f"), ("/recordName", "REC-IDEA-001"))
idea.reject("title-blank", "A blank title.", edit(IDEA, "fields/title", f("   ", "STRING")), ("/fields/title/value", "REC-IDEA-002"))
idea.reject("title-257-scalars", "257 scalars is over the limit.", edit(IDEA, "fields/title", f("字" * 256 + "😀", "STRING")), ("/fields/title/value", "REC-LEN-001"), ["boundary"])
idea.reject("title-combining-marks", "e + U+0301 counts 2: 129 decomposed é are 258 scalars (129 graphemes).",
            edit(IDEA, "fields/title", f("e\u0301" * 129, "STRING")), ("/fields/title/value", "REC-LEN-001"), ["interop-trap"])
idea.reject("description-4097", "A description of 4097 scalars.", edit(IDEA, "fields/description", f("a" * 4097, "STRING")), ("/fields/description/value", "REC-LEN-001"), ["boundary"])
idea.reject("is-completed-two", "isCompleted is 0 or 1.", edit(IDEA, "fields/isCompleted", f(2, "INT64")), ("/fields/isCompleted/value", "REC-IDEA-002"))
idea.reject("updated-before-created", "updatedAt before createdAt.", edit(IDEA, "fields/updatedAt", f(T - 1, "TIMESTAMP")), ("/fields/updatedAt/value", "REC-IDEA-002"))
idea.reject("version-negative", "version is ≥ 0.", edit(IDEA, "fields/version", f(-1, "INT64")), ("/fields/version/value", "REC-IDEA-002"))
idea.reject("value-not-of-its-stated-type", "title sent as INT64 with a string value: the value is checked against the type it states first (CORE-TYPE-003), before the declared type (REC-REC-004).",
            edit(IDEA, "fields/title", f("买菜", "INT64")), ("/fields/title/value", "CORE-TYPE-003"), ["interop-trap"], rules=["CORE-TYPE-003", "REC-REC-004"])
idea.reject("title-blank-and-too-long", "300 spaces: blank (REC-IDEA-002) is checked before the length (REC-LEN-001).",
            edit(IDEA, "fields/title", f(" " * 300, "STRING")), ("/fields/title/value", "REC-IDEA-002"), ["boundary"], rules=["REC-IDEA-002", "REC-LEN-001"])
idea.reject("cross-field-first-only", "updatedAt before createdAt and a recordName that is not the id: cross-field rules run after every field passed, and report the first.",
            edit(edit(IDEA, "fields/updatedAt", f(T - 1, "TIMESTAMP")), "recordName", "3f2c6a1e-0000-4c2e-8f10-5a6b7c8d9e0f"),
            ("/fields/updatedAt/value", "REC-IDEA-002"), rules=["REC-IDEA-002", "REC-IDEA-001"])

cf = File(kind="CD_CardField", description="QuickVault card fields with encrypted values (seed 003).")
files.append(cf)
cf.accept("encrypted-bytes", "The encrypted value as BYTES: nonce, ciphertext, tag.", CARD_FIELD, CARD_FIELD, ["REC-ENC-001", "REC-CD-001"], ["seed-example"])
cf.accept("relationship-absent", "The to-one relationship is optional.", edit(CARD_FIELD, "fields/CD_card", DROP), edit(CARD_FIELD, "fields/CD_card", DROP), ["REC-CD-001"])
cf.reject("encrypted-as-string", "A password field sent as STRING is plaintext on its way to iCloud.",
          edit(CARD_FIELD, "fields/CD_encryptedValue", f("hunter2", "STRING")), ("/fields/CD_encryptedValue/type", "REC-ENC-001"), ["interop-trap"])
cf.reject("encrypted-too-short", "27 bytes cannot hold a nonce and a tag.", edit(CARD_FIELD, "fields/CD_encryptedValue", f("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBka", "BYTES")),
          ("/fields/CD_encryptedValue/value", "REC-ENC-001"), ["boundary"])
cf.reject("bytes-not-base64", "BYTES must be base64.", edit(CARD_FIELD, "fields/CD_encryptedValue", f("not base64!", "BYTES")), ("/fields/CD_encryptedValue/value", "REC-REC-003"))
cf.reject("card-reference-bad", "A mirrored relationship holds a record name.", edit(CARD_FIELD, "fields/CD_card", f("", "STRING")), ("/fields/CD_card/value", "REC-REC-001"))
cf.reject("order-negative", "order is ≥ 0.", edit(CARD_FIELD, "fields/CD_order", f(-1, "INT64")), ("/fields/CD_order/value", "REC-CD-001"))
ASSET = f({"fileChecksum": "AbCdEf0123456789", "size": 1250000}, "ASSETID")
as_asset = edit(edit(CARD_FIELD, "fields/CD_encryptedValue", DROP), "fields/CD_encryptedValue_ckAsset", ASSET)
cf.accept("encrypted-value-as-asset", "Core Data moved a large ciphertext into an asset: CD_encryptedValue_ckAsset replaces the BYTES field.",
          as_asset, as_asset, ["REC-CD-002", "REC-REC-005"], ["real-implementation"])
both = edit(CARD_FIELD, "fields/CD_encryptedValue_ckAsset", ASSET)
cf.accept("value-and-asset", "Both the BYTES field and its asset form, as in Apple's fully materialized record: accepted; the BYTES "
          "value is the one Core Data imports, so it is checked (REC-ENC-001).", both, both, ["REC-CD-002", "REC-ENC-001"], ["real-implementation"])
cf.reject("value-and-asset-short-ciphertext", "With the asset beside it, the BYTES value is still what Core Data imports: 27 bytes cannot hold a nonce and a tag.",
          edit(both, "fields/CD_encryptedValue", f("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBka", "BYTES")), ("/fields/CD_encryptedValue/value", "REC-ENC-001"), ["boundary"])
cf.reject("asset-not-assetid", "The asset form is an ASSETID.", edit(as_asset, "fields/CD_encryptedValue_ckAsset", f("AAEC", "BYTES")),
          ("/fields/CD_encryptedValue_ckAsset/type", "REC-REC-004"))

CIPHER = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygp"
SHORT_CIPHER = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBka"
QV_CARD = {"recordName": "CD_Card_1A2B", "recordType": "CD_Card",
           "fields": {"CD_entityName": f("Card", "STRING"), "CD_id": f("c3d4e5f6-0a1b-4c2d-8e3f-405162738495", "STRING"),
                      "CD_title": f("Bank 🏦", "STRING"), "CD_createdAt": f(T, "TIMESTAMP"), "CD_updatedAt": f(T + 5000, "TIMESTAMP")}}
card = File(kind="CD_Card", description="QuickVault cards (seed 003; Spec records.md 3).")
files.append(card)
card.accept("card", "A card as Core Data mirrors it: CD_entityName, id, title and both dates.", QV_CARD, QV_CARD, ["REC-CD-001", "REC-REC-005"], ["seed-example"])
QV_EXTRA = edit(edit(edit(QV_CARD, "fields/CD_isPinned", f(1, "INT64")), "fields/CD_tagsJSON", f("[]", "STRING")), "fields/CD_group", f("personal", "STRING"))
card.accept("quickvault-fields-pass", "QuickVault's other Card attributes (isPinned, tagsJSON, group) pass unchecked and are dropped from the canonical form.",
            QV_EXTRA, QV_CARD, ["REC-CD-001", "CORE-MEMBER-001"], ["real-implementation"])
card.reject("entity-name-absent", "CD_entityName missing: a required field (REC-REC-005), not REC-CD-001.", edit(QV_CARD, "fields/CD_entityName", DROP),
            ("/fields/CD_entityName", "REC-REC-005"), rules=["REC-REC-005", "REC-CD-001"])
card.reject("entity-name-int64", "CD_entityName not a STRING: the declared type (REC-REC-004), not REC-CD-001.", edit(QV_CARD, "fields/CD_entityName", f(1, "INT64")),
            ("/fields/CD_entityName/type", "REC-REC-004"), rules=["REC-REC-004", "REC-CD-001"])
card.reject("entity-name-other", "CD_entityName names another entity.", edit(QV_CARD, "fields/CD_entityName", f("CardField", "STRING")),
            ("/fields/CD_entityName/value", "REC-CD-001"))
card.reject("id-not-uuid", "CD_id is a UUID.", edit(QV_CARD, "fields/CD_id", f("card-1", "STRING")), ("/fields/CD_id/value", "REC-CD-001"))
card.reject("title-blank", "A blank title.", edit(QV_CARD, "fields/CD_title", f("\u3000", "STRING")), ("/fields/CD_title/value", "REC-CD-001"), ["interop-trap"])
card.reject("title-257-scalars", "A title over 256 scalars is REC-LEN-001 whichever model states the limit.", edit(QV_CARD, "fields/CD_title", f("卡" * 257, "STRING")),
            ("/fields/CD_title/value", "REC-LEN-001"), ["boundary"])
card.reject("updated-before-created", "CD_updatedAt before CD_createdAt (a cross-field rule, reported under the CD_ name).",
            edit(QV_CARD, "fields/CD_updatedAt", f(T - 1, "TIMESTAMP")), ("/fields/CD_updatedAt/value", "REC-CD-001"))
card.reject("record-type-other", "Checked as CD_Card, a CD_CardField is the wrong type.", CARD_FIELD, ("/recordType", "REC-REC-002"))
card.reject("fields-without-prefix", "A writer that forgot the CD_ prefix: id, title, createdAt, updatedAt are unknown fields (ignored), so each required CD_ field is missing, and each is reported.",
            edit(QV_CARD, "fields", {"CD_entityName": f("Card", "STRING"), "id": QV_CARD["fields"]["CD_id"], "title": QV_CARD["fields"]["CD_title"],
                                     "createdAt": f(T, "TIMESTAMP"), "updatedAt": f(T + 5000, "TIMESTAMP")}),
            [("/fields/CD_id", "REC-REC-005"), ("/fields/CD_title", "REC-REC-005"), ("/fields/CD_createdAt", "REC-REC-005"), ("/fields/CD_updatedAt", "REC-REC-005")],
            ["interop-trap"])

QV_ATT = {"recordName": "CD_CardAttachment_9C3D", "recordType": "CD_CardAttachment",
          "fields": {"CD_entityName": f("CardAttachment", "STRING"), "CD_id": f("9c3d2e1f-0a9b-4c7d-8e6f-5a4b3c2d1e0f", "STRING"),
                     "CD_card": f("CD_Card_1A2B", "STRING"), "CD_fileName": f("passport.pdf", "STRING"),
                     "CD_encryptedData": f(CIPHER, "BYTES"), "CD_fileType": f("pdf", "STRING")}}
att = File(kind="CD_CardAttachment", description="QuickVault card attachments with encrypted data (seed 003; Spec records.md 3).")
files.append(att)
att.accept("encrypted-data", "An attachment with its encrypted data as BYTES (nonce, ciphertext, tag) and its fileType.", QV_ATT, QV_ATT,
           ["REC-CD-001", "REC-ENC-001"], ["seed-example"])
QV_MIN = edit(edit(edit(QV_ATT, "fields/CD_encryptedData", DROP), "fields/CD_fileType", DROP), "fields/CD_card", DROP)
att.accept("minimal", "encryptedData, fileType and the card relationship are optional.", QV_MIN, QV_MIN, ["REC-REC-005", "REC-CD-001"])
QV_ASSET = edit(edit(QV_ATT, "fields/CD_encryptedData", DROP), "fields/CD_encryptedData_ckAsset", ASSET)
att.accept("encrypted-data-as-asset", "Core Data moved the ciphertext into an asset: CD_encryptedData_ckAsset in place of the BYTES field, kept in the canonical form.",
           QV_ASSET, QV_ASSET, ["REC-CD-002", "REC-ENC-001"], ["real-implementation"])
NAME255 = "文" * 251 + ".pdf"
att.accept("file-name-255-scalars", "A fileName of exactly 255 scalars.", edit(QV_ATT, "fields/CD_fileName", f(NAME255, "STRING")),
           edit(QV_ATT, "fields/CD_fileName", f(NAME255, "STRING")), ["REC-LEN-001"], ["boundary"])
att.reject("file-name-256-scalars", "fileName's limit is 255 scalars.", edit(QV_ATT, "fields/CD_fileName", f("文" + NAME255, "STRING")),
           ("/fields/CD_fileName/value", "REC-LEN-001"), ["boundary"])
att.reject("file-name-blank", "A blank fileName.", edit(QV_ATT, "fields/CD_fileName", f(" ", "STRING")), ("/fields/CD_fileName/value", "REC-CD-001"))
att.reject("file-name-missing", "fileName is required.", edit(QV_ATT, "fields/CD_fileName", DROP), ("/fields/CD_fileName", "REC-REC-005"))
att.reject("encrypted-data-as-string", "Attachment data sent as STRING is plaintext on its way to iCloud: REC-ENC-001 at the type, before any type rule.",
           edit(QV_ATT, "fields/CD_encryptedData", f("JVBERi0xLjQK", "STRING")), ("/fields/CD_encryptedData/type", "REC-ENC-001"), ["interop-trap"],
           rules=["REC-ENC-001", "REC-REC-004"])
att.reject("encrypted-data-too-short", "27 bytes cannot hold a nonce and a tag.", edit(QV_ATT, "fields/CD_encryptedData", f(SHORT_CIPHER, "BYTES")),
           ("/fields/CD_encryptedData/value", "REC-ENC-001"), ["boundary"])
att.reject("entity-name-absent", "CD_entityName missing: a required field (REC-REC-005), not REC-CD-001.", edit(QV_ATT, "fields/CD_entityName", DROP),
           ("/fields/CD_entityName", "REC-REC-005"), rules=["REC-REC-005", "REC-CD-001"])
att.reject("entity-name-card", "CD_entityName names the parent card's entity.", edit(QV_ATT, "fields/CD_entityName", f("Card", "STRING")),
           ("/fields/CD_entityName/value", "REC-CD-001"))
att.reject("id-not-uuid", "CD_id is a UUID.", edit(QV_ATT, "fields/CD_id", f("attachment-1", "STRING")), ("/fields/CD_id/value", "REC-CD-001"))
att.reject("card-reference-bad", "The to-one card holds a record name: a reserved one is REC-REC-001.", edit(QV_ATT, "fields/CD_card", f("_card", "STRING")),
           ("/fields/CD_card/value", "REC-REC-001"))
att.reject("every-field-reported", "Fields are checked on their own: a wrong entity name, a blank fileName and short ciphertext are reported together.",
           edit(edit(edit(QV_ATT, "fields/CD_entityName", f("CardField", "STRING")), "fields/CD_fileName", f("", "STRING")),
                "fields/CD_encryptedData", f(SHORT_CIPHER, "BYTES")),
           [("/fields/CD_entityName/value", "REC-CD-001"), ("/fields/CD_fileName/value", "REC-CD-001"), ("/fields/CD_encryptedData/value", "REC-ENC-001")])

hb = File(kind="Habit", description="Habit records (seed 004 §3).")
files.append(hb)
hb.accept("seed-fields", "A Count habit with its background color.", HABIT, HABIT, ["REC-HABIT-001"], ["seed-example"])
nomax = edit(HABIT, "fields/maxCheckInCount", DROP)
hb.accept("max-default-5", "maxCheckInCount absent means 5: the canonical form shows the default.", nomax, edit(HABIT, "fields/maxCheckInCount", f(5, "INT64")), ["REC-HABIT-001"])
zwj = edit(HABIT, "fields/emoji", f("👨‍👩‍👧‍👦", "STRING"))
hb.accept("emoji-zwj-sequence", "A ZWJ family emoji is 7 scalars: one emoji.", zwj, zwj, ["REC-HABIT-001", "REC-LEN-001"], ["interop-trap"])
hb.reject("habit-type-lowercase", "habitType is Checkbox or Count.", edit(HABIT, "fields/habitType", f("count", "STRING")), ("/fields/habitType/value", "REC-HABIT-001"), ["interop-trap"])
hb.reject("emoji-empty", "An empty emoji.", edit(HABIT, "fields/emoji", f("", "STRING")), ("/fields/emoji/value", "REC-HABIT-001"))
hb.reject("emoji-17-scalars", "17 scalars is not one emoji.", edit(HABIT, "fields/emoji", f("😀" * 17, "STRING")), ("/fields/emoji/value", "REC-HABIT-001"), ["boundary"])
hb.reject("max-zero", "maxCheckInCount ≥ 1.", edit(HABIT, "fields/maxCheckInCount", f(0, "INT64")), ("/fields/maxCheckInCount/value", "REC-HABIT-001"))
hb.reject("background-named", "backgroundColor is #RRGGBB.", edit(HABIT, "fields/backgroundColor", f("blue", "STRING")), ("/fields/backgroundColor/value", "REC-HABIT-001"))
hb.reject("name-missing", "name is required.", edit(HABIT, "fields/name", DROP), ("/fields/name", "REC-REC-005"))

hl = File(kind="HabitLog", description="HabitLog records (seed 004 §3).")
files.append(hl)
hl.accept("seed-fields", "A log referencing its habit, dated by UTC day.", LOG, LOG, ["REC-HLOG-001", "REC-HLOG-002", "REC-HABIT-001"], ["seed-example"])
SHANGHAI = edit(LOG, "fields/date", f(1736265600000, "TIMESTAMP"))
hl.accept("local-midnight", "2025-01-08 00:00 in UTC+8 (1736265600000), as the habit tracker writes it (Calendar.current): some zone's midnight.",
          SHANGHAI, SHANGHAI, ["REC-HLOG-002"], ["real-implementation"])
hl.accept("local-midnight-in-the-writer-zone", "With the writer's zone known, its midnight is accepted.", SHANGHAI, SHANGHAI, ["REC-HLOG-002"],
          ["real-implementation"], context={"timeZone": "Asia/Shanghai"})
hl.accept("utc-midnight-in-any-zone", "UTC midnight is accepted whatever the writer's zone.", LOG, LOG, ["REC-HLOG-002"], context={"timeZone": "America/New_York"})
KATHMANDU = edit(LOG, "fields/date", f(1736273700000, "TIMESTAMP"))
hl.accept("quarter-hour-zone", "Midnight of 2025-01-08 in Kathmandu (UTC+5:45), with the zone given.", KATHMANDU, KATHMANDU, ["REC-HLOG-002"], ["boundary"],
          context={"timeZone": "Asia/Kathmandu"})
HAVANA = edit(LOG, "fields/date", f(1710046800000, "TIMESTAMP"))
hl.accept("day-starting-at-one", "Havana skipped 00:00-01:00 on 2024-03-10: that day starts at 01:00 local (05:00 UTC).", HAVANA, HAVANA, ["REC-HLOG-002"],
          ["boundary"], context={"timeZone": "America/Havana"})
hl.reject("other-zone-midnight", "Shanghai's midnight is not the start of a day in New York (the writer's zone).", SHANGHAI,
          ("/fields/date/value", "REC-HLOG-002"), context={"timeZone": "America/New_York"})
noaction = edit(LOG, "fields/habit", f({"recordName": "habit-1"}, "REFERENCE"))
hl.accept("reference-action-absent", "A reference without action (NONE).", noaction, noaction, ["REC-HLOG-001"])
hl.reject("habit-as-string", "habit as a STRING record name instead of a REFERENCE.", edit(LOG, "fields/habit", f("habit-1", "STRING")), ("/fields/habit/type", "REC-REC-004"), ["interop-trap"])
hl.reject("reference-validate", "VALIDATE is not a HabitLog action.", edit(LOG, "fields/habit", f({"recordName": "habit-1", "action": "VALIDATE"}, "REFERENCE")),
          ("/fields/habit/value/action", "REC-HLOG-001"))
hl.reject("reference-no-name", "A reference needs a record name.", edit(LOG, "fields/habit", f({"action": "NONE"}, "REFERENCE")), ("/fields/habit/value/recordName", "CORE-TYPE-001"))
hl.reject("date-with-time", "A date with a time of day no zone has as midnight (09:10 UTC).", edit(LOG, "fields/date", f(1747267200000 + 9 * 3600000 + 10 * 60000, "TIMESTAMP")),
          ("/fields/date/value", "REC-HLOG-002"), ["interop-trap"])
hl.reject("count-negative", "count is ≥ 0.", edit(LOG, "fields/count", f(-1, "INT64")), ("/fields/count/value", "REC-HABIT-001"))
hl.reject("reference-action-unknown", "An action CloudKit does not have is REC-REC-003 (the value's shape), not REC-HLOG-001.",
          edit(LOG, "fields/habit", f({"recordName": "habit-1", "action": "CASCADE"}, "REFERENCE")), ("/fields/habit/value/action", "REC-REC-003"),
          rules=["REC-REC-003", "REC-HLOG-001"])
hl.reject("habit-absent", "A HabitLog without its habit: the required field is missing (REC-REC-005), whatever REC-HLOG-001 says of its form.",
          edit(LOG, "fields/habit", DROP), ("/fields/habit", "REC-REC-005"), rules=["REC-REC-005", "REC-HLOG-001"])
hl.accept("reference-members-dropped", "A REFERENCE value keeps only recordName and action; a member CloudKit Web Services does not define is dropped "
          "from the canonical form (CORE-MEMBER-001).", edit(LOG, "fields/habit", f({"recordName": "habit-1", "action": "NONE", "note": "x"}, "REFERENCE")),
          edit(LOG, "fields/habit", f({"recordName": "habit-1", "action": "NONE"}, "REFERENCE")), ["REC-REC-003", "CORE-MEMBER-001"])

ss = File(kind="sync-state", description="SyncState as the app stores it (seed 001 §2).")
files.append(ss)
SS = {"ideaId": ID, "localVersion": 4, "remoteVersion": 3, "cloudKitRecordName": ID, "lastSyncedAt": "2025-05-15T09:06:40.000Z",
      "lastModifiedAt": "2025-05-15T09:10:00.123Z", "isPendingSync": True, "isObsolete": False, "conflictResolutionStrategy": "lastWrite"}
NEW = {"ideaId": ID, "localVersion": 0, "lastModifiedAt": "2025-05-15T09:06:40.000Z", "isPendingSync": True, "isObsolete": False, "conflictResolutionStrategy": "lastWrite"}
ss.accept("synced-then-changed", "Synced at version 3, changed since (version 4, pending).", SS, SS, ["REC-SYNC-001", "REC-SYNC-002", "REC-TIME-002"], ["seed-example"])
ss.accept("never-synced", "A new idea: pending, nothing synced yet.", NEW, NEW, ["REC-SYNC-002"])
ss.reject("time-without-millis", "ISO 8601 without milliseconds (Swift's default ISO8601DateFormatter).", edit(SS, "lastModifiedAt", "2025-05-15T09:10:00Z"),
          ("/lastModifiedAt", "REC-TIME-002"), ["interop-trap"])
ss.reject("time-with-offset", "An offset instead of Z.", edit(SS, "lastSyncedAt", "2025-05-15T17:06:40.000+08:00"), ("/lastSyncedAt", "REC-TIME-002"), ["interop-trap"])
ss.reject("time-microseconds", "Six fraction digits.", edit(SS, "lastModifiedAt", "2025-05-15T09:10:00.123456Z"), ("/lastModifiedAt", "REC-TIME-002"))
ss.reject("time-impossible-date", "February 30th.", edit(SS, "lastModifiedAt", "2025-02-30T09:10:00.000Z"), ("/lastModifiedAt", "REC-TIME-002"))
ss.reject("strategy-other", "Only lastWrite exists.", edit(SS, "conflictResolutionStrategy", "serverWins"), ("/conflictResolutionStrategy", "REC-SYNC-001"))
ss.reject("idea-id-not-uuid", "ideaId is a UUID.", edit(SS, "ideaId", "idea-1"), ("/ideaId", "REC-SYNC-001"))
ss.reject("synced-without-record-name", "A sync result without the record name.", edit(SS, "cloudKitRecordName", DROP), ("/cloudKitRecordName", "REC-SYNC-002"))
ss.reject("not-pending-never-synced", "isPendingSync false before any sync.", edit(NEW, "isPendingSync", False), ("/isPendingSync", "REC-SYNC-002"))
ss.reject("remote-ahead", "remoteVersion beyond localVersion.", edit(SS, "remoteVersion", 5), ("/remoteVersion", "REC-SYNC-002"))
ss.reject("two-violations-first-reported", "lastModifiedAt without milliseconds and remoteVersion beyond localVersion: a sync-state reports only the first failing check.",
         edit(edit(SS, "lastModifiedAt", "2025-05-15T09:10:00Z"), "remoteVersion", 5), ("/lastModifiedAt", "REC-TIME-002"), rules=["REC-TIME-002", "REC-SYNC-002"])
ss.reject("record-name-reserved", "cloudKitRecordName is a record name: a reserved one is REC-REC-001, not REC-SYNC-001.",
         edit(SS, "cloudKitRecordName", "_idea"), ("/cloudKitRecordName", "REC-REC-001"), rules=["REC-REC-001", "REC-SYNC-001"])

sl = File(kind="sync-log", description="SyncLog entries (seed 001 §3).")
files.append(sl)
SL = {"id": "a1b2c3d4-0001-4000-8000-000000000001", "ideaId": ID, "eventType": "sync_failure", "timestamp": "2025-05-15T09:06:40.000Z",
      "details": "{\"message\":\"network\"}", "deviceId": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "errorCode": 4}
sl.accept("failure-with-code", "A failure with its error code and JSON details.", SL, SL, ["REC-SLOG-001", "REC-TIME-002"], ["seed-example"])
sl.reject("event-type-unknown", "eventType is one of four.", edit(SL, "eventType", "synced"), ("/eventType", "REC-SLOG-001"))
sl.reject("details-not-json", "details is JSON text.", edit(SL, "details", "network down"), ("/details", "REC-SLOG-001"))
sl.reject("timestamp-epoch", "A numeric timestamp in a local document.", edit(SL, "timestamp", T), ("/timestamp", "CORE-TYPE-003"), ["interop-trap"])
sl.reject("two-violations-first-reported", "A timestamp without milliseconds and a blank deviceId: a sync-log entry reports only the first failing check.",
         edit(edit(SL, "timestamp", "2025-05-15T09:06:40Z"), "deviceId", "  "), ("/timestamp", "REC-TIME-002"), rules=["REC-TIME-002", "REC-SLOG-001"])

# ------------------------------------------------------------------ conflicts
cfl = File(kind="conflict", description="Conflict resolution: (ancestor, local, server, strategy) → the record to save (Spec records.md 6).")
files.append(cfl)
BASE = edit(IDEA, "recordChangeTag", "t1")
LOCAL = edit(edit(BASE, "fields/title", f("买菜 🥬 and fruit", "STRING")), "fields/updatedAt", f(T + 9000, "TIMESTAMP"))
SERVER = edit(edit(edit(BASE, "fields/isCompleted", f(1, "INT64")), "fields/updatedAt", f(T + 8000, "TIMESTAMP")), "recordChangeTag", "t2")


def saved(record, fields):
    r = copy.deepcopy(record)
    r["fields"] = fields
    r["recordChangeTag"] = "t2"
    return r


cfl.accept("last-write-local-later", "lastWrite: the local write is later, so the local fields are saved with the server's tag.",
           {"strategy": "lastWrite", "local": LOCAL, "server": SERVER},
           {"record": saved(LOCAL, LOCAL["fields"]), "winner": "local", "events": [{"eventType": "conflict", "winner": "local"}]}, ["REC-CONF-002"], ["seed-example"])
cfl.accept("last-write-server-later", "lastWrite: the server's write is later; the server's record stands.",
           {"strategy": "lastWrite", "local": edit(LOCAL, "fields/updatedAt", f(T + 7000, "TIMESTAMP")), "server": SERVER},
           {"record": SERVER, "winner": "server", "events": [{"eventType": "conflict", "winner": "server"}]}, ["REC-CONF-002"])
cfl.reject("local-null", "local is required: null is CORE-TYPE-002, absence CORE-TYPE-001.",
           {"strategy": "lastWrite", "local": None, "server": SERVER}, ("/local", "CORE-TYPE-002"))
TIE_L = edit(LOCAL, "fields/updatedAt", f(T + 8000, "TIMESTAMP"))
cfl.accept("last-write-tie", "Equal times: the greater canonical field text wins (here the server's: its isCompleted 1 sorts after the local's 0).",
           {"strategy": "lastWrite", "local": TIE_L, "server": SERVER},
           {"record": SERVER, "winner": "server", "events": [{"eventType": "conflict", "winner": "server"}]}, ["REC-CONF-002"], ["boundary"])
cfl.accept("last-write-tie-swapped", "The same tie seen from the other device gives the same winner.",
           {"strategy": "lastWrite", "local": edit(SERVER, "recordChangeTag", "t1"), "server": edit(TIE_L, "recordChangeTag", "t2")},
           {"record": saved(SERVER, SERVER["fields"]), "winner": "local", "events": [{"eventType": "conflict", "winner": "local"}]}, ["REC-CONF-002"], ["boundary"])
cfl.accept("keep-local", "The user keeps the local version: a forced save of the local fields.",
           {"strategy": "keepLocal", "local": LOCAL, "server": SERVER},
           {"record": saved(LOCAL, LOCAL["fields"]), "winner": "local", "events": [{"eventType": "conflict", "winner": "local"}]}, ["REC-CONF-003"])
cfl.accept("keep-server", "The user keeps the cloud version.", {"strategy": "keepServer", "local": LOCAL, "server": SERVER},
           {"record": SERVER, "winner": "server", "events": [{"eventType": "conflict", "winner": "server"}]}, ["REC-CONF-003"])
merged = copy.deepcopy(SERVER["fields"])
merged["title"] = LOCAL["fields"]["title"]
merged["updatedAt"] = LOCAL["fields"]["updatedAt"]
cfl.accept("merge-object-trumps", "Merge: the local title change and the server's completion both survive; updatedAt changed on both sides, the local one trumps.",
           {"strategy": "merge", "ancestor": BASE, "local": LOCAL, "server": SERVER},
           {"record": saved(LOCAL, merged), "winner": "merged", "events": [{"eventType": "conflict", "winner": "merged"}]}, ["REC-CONF-004"])
HL = {"recordName": "habit-1", "recordType": "Habit", "fields": HABIT["fields"]}
cfl.reject("last-write-without-times", "lastWrite needs a write time on both sides: a Habit without updatedAt or modified has none.",
           {"strategy": "lastWrite", "local": HL, "server": dict(HL, recordChangeTag="t2")}, ("/local/modified", "REC-CONF-002"))
cfl.reject("merge-without-ancestor", "A merge needs the ancestor.", {"strategy": "merge", "local": LOCAL, "server": SERVER}, ("/ancestor", "REC-CONF-004"))
cfl.reject("strategy-unknown", "Strategies are lastWrite, keepLocal, keepServer, merge.", {"strategy": "newest", "local": LOCAL, "server": SERVER}, ("/strategy", "REC-CONF-003"))
OTHER = "9a8b7c6d-0000-4000-8000-000000000001"
cfl.reject("different-records", "Both sides must be the same record.",
           {"strategy": "lastWrite", "local": LOCAL, "server": edit(edit(SERVER, "recordName", OTHER), "fields/id", f(OTHER, "STRING"))},
           ("/server/recordName", "REC-CONF-001"))
cfl.reject("invalid-side", "Each side is checked as a record.", {"strategy": "keepLocal", "local": edit(LOCAL, "fields/title", f("", "STRING")), "server": SERVER},
           ("/local/fields/title/value", "REC-IDEA-002"))
BAD_SIDE = edit(edit(LOCAL, "fields/title", f("", "STRING")), "recordChangeTag", "")
cfl.reject("invalid-side-first-only", "A side with two violations (an empty change tag, a blank title): a conflict document reports only the first, in section 2's order.",
           {"strategy": "keepLocal", "local": BAD_SIDE, "server": SERVER}, ("/local/recordChangeTag", "REC-REC-006"), rules=["REC-REC-006", "REC-IDEA-002"])
cfl.reject("ancestor-checked-before-local", "The members are checked strategy, ancestor, local, server: a bad ancestor is reported, not the bad local record after it.",
           {"strategy": "merge", "ancestor": edit(BASE, "fields/isCompleted", f(2, "INT64")), "local": BAD_SIDE, "server": SERVER},
           ("/ancestor/fields/isCompleted/value", "REC-IDEA-002"), rules=["REC-IDEA-002", "REC-REC-006"])

# ------------------------------------------------------------------ model checker
md = File(kind="model", description="Core Data models checked for CloudKit mirroring and schema evolution (Spec records.md 7).")
files.append(md)


def attr(name, type_, optional=True, default=None, **kw):
    a = {"name": name, "type": type_, "optional": optional}
    if default is not None:
        a["defaultValue"] = default
    a.update(kw)
    return a


SEED001 = {"entities": [
    {"name": "Idea", "attributes": [attr("id", "UUID", False, unique=True), attr("title", "String", False), attr("isCompleted", "Boolean", False, False),
                                    attr("createdAt", "Date", False)],
     "relationships": [{"name": "syncState", "destination": "SyncState", "optional": True, "inverse": None, "deleteRule": "Nullify"}]},
    {"name": "SyncState", "attributes": [attr("ideaId", "UUID", False, unique=True), attr("localVersion", "Integer64", False, 0)]},
    {"name": "SyncLog", "attributes": [attr("id", "UUID", False, unique=True), attr("eventType", "String", False)]}]}
md.reject("seed-001-model", "Seed 001's SwiftData model: every @Attribute(.unique), required attributes without defaults, a relationship without inverse.",
          SEED001, [("/entities/0/attributes/0/unique", "REC-MODEL-001"), ("/entities/0/attributes/0/optional", "REC-MODEL-007"),
                    ("/entities/0/attributes/1/optional", "REC-MODEL-007"), ("/entities/0/attributes/3/optional", "REC-MODEL-007"),
                    ("/entities/0/relationships/0/inverse", "REC-MODEL-003"), ("/entities/1/attributes/0/unique", "REC-MODEL-001"),
                    ("/entities/1/attributes/0/optional", "REC-MODEL-007"), ("/entities/2/attributes/0/unique", "REC-MODEL-001"),
                    ("/entities/2/attributes/0/optional", "REC-MODEL-007"), ("/entities/2/attributes/1/optional", "REC-MODEL-007")], ["seed-example"])
md.reject("entity-without-name", "Every entity names itself: the second one does not.",
          {"entities": [{"name": "Idea", "attributes": [attr("title", "String")]}, {"attributes": [attr("title", "String")]}]},
          ("/entities/1/name", "CORE-TYPE-001"))
md.reject("member-types-checked-when-not-mirrored", "cloudKit: false turns the CloudKit rules off, not the form: a flag that is no boolean is still wrong.",
          {"cloudKit": False, "entities": [{"name": "Idea", "attributes": [attr("title", "String", unique="")]}]},
          ("/entities/0/attributes/0/unique", "CORE-TYPE-003"))
md.reject("configuration-entities-not-an-array", "A configuration lists its entities in an array, whether it is used with CloudKit or not.",
          {"configurations": [{"name": "Local", "cloudKit": False, "entities": "Idea"}], "entities": [{"name": "Idea", "attributes": [attr("title", "String")]}]},
          ("/configurations/0/entities", "CORE-TYPE-003"))
md.reject("relationship-without-destination", "A relationship names the entity it points to: without one, CloudKit has nothing to mirror it to.",
          {"entities": [{"name": "Idea", "attributes": [attr("title", "String")],
                         "relationships": [{"name": "tags", "optional": True, "toMany": True, "inverse": "ideas", "deleteRule": "Nullify"}]}]},
          ("/entities/0/relationships/0/destination", "REC-MODEL-008"))
VALID = {"entities": [
    {"name": "Card", "attributes": [attr("id", "UUID"), attr("title", "String", False, ""), attr("createdAt", "Date"), attr("icon", "Transformable", valueTransformerName="NSSecureUnarchiveFromDataTransformer")],
     "relationships": [{"name": "fields", "destination": "CardField", "optional": True, "toMany": True, "inverse": "card", "deleteRule": "Cascade"}]},
    {"name": "CardField", "attributes": [attr("id", "UUID"), attr("encryptedValue", "Binary"), attr("order", "Integer16", False, 0)],
     "relationships": [{"name": "card", "destination": "Card", "optional": True, "inverse": "fields", "deleteRule": "Nullify"}]}]}
md.accept("cloudkit-valid", "QuickVault's model as seed 003 requires: optional or defaulted attributes, optional relationships with inverses, a secure transformer.",
          VALID, {"entities": ["Card", "CardField"]}, ["REC-MODEL-001", "REC-MODEL-002", "REC-MODEL-003", "REC-MODEL-004", "REC-MODEL-005", "REC-MODEL-006", "REC-MODEL-007"])
md.accept("not-synced", "With cloudKit false the same unique constraint is fine.", dict(SEED001, cloudKit=False), {"entities": ["Idea", "SyncState", "SyncLog"]}, ["REC-MODEL-001"])
bad = copy.deepcopy(VALID)
bad["entities"][0]["uniquenessConstraints"] = [["id"]]
bad["entities"][0]["relationships"][0]["optional"] = False
bad["entities"][0]["relationships"][0]["deleteRule"] = "Deny"
bad["entities"][1]["attributes"].append(attr("total", "Decimal"))
bad["entities"][1]["attributes"].append(attr("label", "String", derived=True))
bad["entities"][1]["attributes"][1] = attr("encryptedValue", "Transformable")
bad["entities"][1]["relationships"][0]["ordered"] = True
md.reject("every-finding", "All CloudKit incompatibilities, in model order.", bad,
          [("/entities/0/uniquenessConstraints/0", "REC-MODEL-001"), ("/entities/0/relationships/0/optional", "REC-MODEL-002"),
           ("/entities/0/relationships/0/deleteRule", "REC-MODEL-004"), ("/entities/1/attributes/1/valueTransformerName", "REC-MODEL-006"),
           ("/entities/1/attributes/4/derived", "REC-MODEL-005"),
           ("/entities/1/relationships/0/ordered", "REC-MODEL-002")])
v2 = copy.deepcopy(VALID)
v2["entities"][0]["attributes"][1] = attr("name", "String", False, "", renamingIdentifier="title")
v2["entities"][0]["attributes"][2] = attr("createdAt", "String")
v2["entities"][0]["attributes"].append(attr("color", "String", False))
del v2["entities"][1]["attributes"][2]
md.reject("evolution-breaks", "Against the previous version: a rename, a type change, a new required attribute, a removal.", v2,
          [("/entities/0/attributes/4/optional", "REC-MODEL-007"), ("/entities/0/attributes/1/name", "REC-EVOL-002"),
           ("/entities/0/attributes/2/type", "REC-EVOL-003"), ("/entities/0/attributes/4/optional", "REC-EVOL-004"),
           ("/entities/1/attributes", "REC-EVOL-001")], context={"previous": VALID})
v3 = copy.deepcopy(VALID)
v3["entities"][0]["attributes"].append(attr("color", "String"))
v3["entities"][0]["attributes"].append(attr("rank", "Integer32", False, 0))
v3["entities"].append({"name": "Tag", "attributes": [attr("name", "String")]})
md.accept("evolution-additive", "New optional or defaulted attributes and a new entity are fine.", v3, {"entities": ["Card", "CardField", "Tag"]},
          ["REC-EVOL-001", "REC-EVOL-002", "REC-EVOL-003", "REC-EVOL-004"], context={"previous": VALID})
v4 = {"entities": [VALID["entities"][0]]}
md.reject("entity-removed", "A removed entity (and the relationship still pointing at it).", v4,
          [("/entities/0/relationships/0/destination", "REC-MODEL-008"), ("/entities", "REC-EVOL-001")], context={"previous": VALID})

md.accept("float-decimal-and-xcode-transformer", "Float and Decimal are mirrored (Apple refuses only Undefined and ObjectID), and NSSecureUnarchiveFromData is the name Xcode writes.",
          {"entities": [{"name": "Entry", "attributes": [attr("rating", "Float"), attr("amount", "Decimal"),
                                                         attr("tags", "Transformable", valueTransformerName="NSSecureUnarchiveFromData")]}]},
          {"entities": ["Entry"]}, ["REC-MODEL-006"], ["real-implementation"])
md.reject("undefined-and-object-id", "Undefined and ObjectID attributes are what CloudKit refuses; a Transformable without a secure transformer too.",
          {"entities": [{"name": "Entry", "attributes": [attr("any", "Undefined"), attr("ref", "ObjectID"), attr("blob", "Transformable"),
                                                         attr("old", "Transformable", valueTransformerName="NSKeyedUnarchiveFromData")]}]},
          [("/entities/0/attributes/0/type", "REC-MODEL-006"), ("/entities/0/attributes/1/type", "REC-MODEL-006"),
           ("/entities/0/attributes/2/valueTransformerName", "REC-MODEL-006"), ("/entities/0/attributes/3/valueTransformerName", "REC-MODEL-006")])
md.reject("required-by-default", "An attribute or relationship that does not say optional is required, as in Core Data's XML.",
          {"entities": [{"name": "A", "attributes": [{"name": "title", "type": "String"}],
                         "relationships": [{"name": "b", "destination": "B", "inverse": "a", "deleteRule": "Nullify"}]},
                        {"name": "B", "attributes": [], "relationships": [{"name": "a", "destination": "A", "optional": True, "inverse": "b", "deleteRule": "Nullify"}]}]},
          [("/entities/0/attributes/0/optional", "REC-MODEL-007"), ("/entities/0/relationships/0/optional", "REC-MODEL-002")])
CONF = {"entities": [{"name": "Card", "attributes": [attr("id", "UUID")],
                      "relationships": [{"name": "cache", "destination": "Cache", "optional": True, "inverse": "card", "deleteRule": "Nullify"},
                                        {"name": "ghost", "destination": "Ghost", "optional": True, "inverse": "card", "deleteRule": "Nullify"}]},
                     {"name": "Cache", "attributes": [attr("key", "String", False)], "uniquenessConstraints": [["key"]],
                      "relationships": [{"name": "card", "destination": "Card", "optional": True, "inverse": "cache", "deleteRule": "Nullify"}]}],
        "configurations": [{"name": "Cloud", "cloudKit": True, "entities": ["Card"]}, {"name": "Local", "cloudKit": False, "entities": ["Cache"]}]}
md.reject("configurations", "Only the CloudKit configuration's entities are checked (the local cache's unique key and required attribute are fine), "
          "and none of them may point out of it or to an entity that does not exist (Apple).",
          CONF, [("/entities/0/relationships/0/destination", "REC-MODEL-008"), ("/entities/0/relationships/1/destination", "REC-MODEL-008")])
LOCAL = {"entities": [{"name": "Card", "attributes": [attr("id", "UUID"), attr("title", "String")]}], "cloudKit": False}
md.accept("evolution-of-an-unsynced-version", "A previous version that never reached CloudKit binds nothing: removing its attribute is fine.",
          {"entities": [{"name": "Card", "attributes": [attr("id", "UUID")]}]}, {"entities": ["Card"]}, ["REC-EVOL-001"], context={"previous": LOCAL})

# Xcode's XML form (an .xcdatamodel's contents), read with Core Data's defaults.
xm = File(kind="xcdatamodel", description="Core Data models as Xcode writes them (.xcdatamodel/contents), read with Core Data's defaults (Spec records.md 7).")
files.append(xm)


def xml_model(entities, configurations=()):
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
           '<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23C71" '
           'minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">']
    for name, body in entities:
        out.append(f'    <entity name="{name}" representedClassName="{name}" syncable="YES" codeGenerationType="class">')
        out += ["        " + line for line in body]
        out.append("    </entity>")
    for name, cloud, members in configurations:
        out.append(f'    <configuration name="{name}"' + (' usedWithCloudKit="YES"' if cloud else "") + ">")
        out += [f'        <memberEntity name="{m}"/>' for m in members]
        out.append("    </configuration>")
    out.append("</model>")
    return "\n".join(out) + "\n"


CARD = ['<attribute name="createdAt" optional="YES" attributeType="Date" usesScalarValueType="NO"/>',
        '<attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>',
        '<attribute name="isPinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>',
        '<attribute name="rating" optional="YES" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>',
        '<attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>',
        '<attribute name="title" attributeType="String" defaultValueString=""/>',
        '<relationship name="fields" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="CardField" inverseName="card" inverseEntity="CardField"/>']
FIELD = ['<attribute name="label" optional="YES" attributeType="String"/>',
         '<attribute name="order" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>',
         '<relationship name="card" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Card" inverseName="fields" inverseEntity="Card"/>']
CACHE = ['<attribute name="key" attributeType="String"/>',
         '<uniquenessConstraints>', '    <uniquenessConstraint>', '        <constraint value="key"/>', '    </uniquenessConstraint>', '</uniquenessConstraints>']
CONFS = [("Cloud", True, ["Card", "CardField"]), ("Local", False, ["LocalCache"])]
GOOD = xml_model([("Card", CARD), ("CardField", FIELD), ("LocalCache", CACHE)], CONFS)
xm.case("cloudkit-ready", "A model shaped like the public apps': Float, a secure transformer as Xcode names it, Integer 16, defaults; a unique key in a local-only configuration.",
        ["REC-MODEL-001", "REC-MODEL-006", "REC-MODEL-007", "REC-MODEL-008"], ["real-implementation"], None, inputText=GOOD,
        expected={"outcome": "accept", "canonical": {"entities": ["Card", "CardField", "LocalCache"]}})
BAD_CARD = [line.replace('optional="YES" attributeType="UUID"', 'attributeType="UUID"') for line in CARD]
BAD_CARD.append('<attribute name="owner" optional="YES" attributeType="Object ID"/>')
BAD_CARD.append('<relationship name="cache" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="LocalCache"/>')
BAD = xml_model([("Card", BAD_CARD), ("CardField", FIELD), ("LocalCache", CACHE)], CONFS)
xm.case("core-data-defaults", "Without optional=\"YES\" an attribute is required (here without a default); Object ID is refused; a relationship "
        "into the local configuration, without inverse, with Deny. Paths point into the model's JSON form, in the XML's order.",
        ["REC-MODEL-002", "REC-MODEL-003", "REC-MODEL-004", "REC-MODEL-006", "REC-MODEL-007", "REC-MODEL-008"], [], None, inputText=BAD,
        expected={"outcome": "reject", "violations": [
            {"path": "/entities/0/attributes/1/optional", "rule": "REC-MODEL-007"},
            {"path": "/entities/0/attributes/6/type", "rule": "REC-MODEL-006"},
            {"path": "/entities/0/relationships/1/destination", "rule": "REC-MODEL-008"},
            {"path": "/entities/0/relationships/1/inverse", "rule": "REC-MODEL-003"},
            {"path": "/entities/0/relationships/1/deleteRule", "rule": "REC-MODEL-004"}]})
DATED = xml_model([("Solve", ['<attribute name="date" attributeType="Date" defaultDateTimeInterval="-595929600" usesScalarValueType="NO"/>',
                              '<attribute name="time" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>'])])
xm.case("date-default-as-time-interval", "A required Date whose default Xcode writes as defaultDateTimeInterval (seconds since 2001, here before it): "
        "it has a default (REC-MODEL-007), as a team's fix for Apple's \"date\" error.",
        ["REC-MODEL-007"], ["real-implementation", "boundary"], None, inputText=DATED,
        expected={"outcome": "accept", "canonical": {"entities": ["Solve"]}})
V1 = xml_model([("Card", CARD + ['<attribute name="subtitle" optional="YES" attributeType="String"/>']), ("CardField", FIELD), ("LocalCache", CACHE)], CONFS)
xm.case("evolution-from-the-previous-version", "Against the version before it (context.previous, its contents): an attribute removed.",
        ["REC-EVOL-001"], [], {"previous": V1}, inputText=GOOD,
        expected={"outcome": "reject", "violations": [{"path": "/entities/0/attributes", "rule": "REC-EVOL-001"}]})

md.reject("reserved-names", "IdeaBox's Idea as a Core Data entity: `description` is an NSObject method and Core Data refuses the name (a relationship named entity too).",
          {"entities": [{"name": "Idea", "attributes": [attr("id", "UUID"), attr("title", "String"), attr("description", "String")],
                         "relationships": [{"name": "entity", "destination": "Idea", "optional": True, "inverse": "entity", "deleteRule": "Nullify"}]}]},
          [("/entities/0/attributes/2/name", "REC-MODEL-009"), ("/entities/0/relationships/0/name", "REC-MODEL-009")], ["real-implementation"])
md.accept("names-beside-reserved-ones", "Names that only contain a reserved one are fine: ideaDescription, hashValue, entityName.",
          {"entities": [{"name": "Idea", "attributes": [attr("ideaDescription", "String"), attr("hashValue", "Integer64"), attr("entityName", "String")]}]},
          {"entities": ["Idea"]}, ["REC-MODEL-009"])
v5 = copy.deepcopy(VALID)
v5["entities"][1]["relationships"][0]["name"] = "owner"
v5["entities"][1]["relationships"][0]["renamingIdentifier"] = "card"
v5["entities"][0]["relationships"][0]["inverse"] = "owner"
v6 = copy.deepcopy(VALID)
del v6["entities"][0]["relationships"]
del v6["entities"][1]["relationships"]
md.reject("relationship-renamed", "A to-one relationship renamed between versions: its field CD_card would become CD_owner.", v5,
          [("/entities/1/relationships/0/name", "REC-EVOL-002")], context={"previous": VALID})
md.reject("relationships-removed", "Both sides of a relationship removed between versions.", v6,
          [("/entities/0/relationships", "REC-EVOL-001"), ("/entities/1/relationships", "REC-EVOL-001")], context={"previous": VALID})

# Records checked against the record types derived from the app's own model.
mr = File(kind="mirrored-record", description="CD_ records checked against the types derived from the app's Core Data model in context.model (Spec records.md 3, REC-CD-002).")
files.append(mr)
ATTACH = ['<attribute name="encryptedData" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>',
          '<attribute name="fileName" attributeType="String" defaultValueString=""/>',
          '<attribute name="fileType" optional="YES" attributeType="String"/>',
          '<attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>',
          '<attribute name="size" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>',
          '<attribute name="thumbnail" optional="YES" attributeType="Binary" allowsCloudEncryption="YES"/>',
          '<attribute name="createdAt" attributeType="Date" usesScalarValueType="NO"/>',
          '<relationship name="card" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Card" inverseName="attachments" inverseEntity="Card"/>']
CARD_X = ['<attribute name="title" optional="YES" attributeType="String"/>',
          '<attribute name="rating" optional="YES" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>',
          '<attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>',
          '<relationship name="attachments" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="CardAttachment" inverseName="card" inverseEntity="CardAttachment"/>']
NOTE = ['<attribute name="body" optional="YES" attributeType="String"/>']
APP = xml_model([("Card", CARD_X), ("CardAttachment", ATTACH), ("PhotoCard", NOTE), ("LocalCache", CACHE)],
                [("Cloud", True, ["Card", "CardAttachment", "PhotoCard"]), ("Local", False, ["LocalCache"])]).replace(
    '<entity name="PhotoCard" representedClassName="PhotoCard" syncable="YES" codeGenerationType="class">',
    '<entity name="PhotoCard" representedClassName="PhotoCard" parentEntity="Card" syncable="YES" codeGenerationType="class">')
THUMB = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygp"
ATT = {"recordName": "8D1F2C3A-51B7-4C09-9E55-0A6F3B2C1D01", "recordType": "CD_CardAttachment",
       "fields": {"CD_entityName": f("CardAttachment", "STRING"), "CD_encryptedData_ckAsset": ASSET, "CD_fileName": f("scan.pdf", "STRING"),
                  "CD_fileType": f("pdf", "STRING"), "CD_id": f("8d1f2c3a-51b7-4c09-9e55-0a6f3b2c1d01", "STRING"), "CD_size": f(1250000, "INT64"),
                  "CD_thumbnail": f(THUMB, "ENCRYPTED_BYTES"), "CD_createdAt": f(T, "TIMESTAMP"),
                  "CD_card": f("C0A8E1D2-0000-4000-8000-00000000C0DE", "STRING")}}
CTX = {"model": APP}
ATT_CANON = {"recordName": ATT["recordName"], "recordType": "CD_CardAttachment",
             "fields": {k: ATT["fields"][k] for k in ["CD_entityName", "CD_encryptedData_ckAsset", "CD_fileName", "CD_fileType", "CD_id", "CD_size",
                                                      "CD_thumbnail", "CD_createdAt", "CD_card"]}}
mr.accept("attachment-with-asset-and-encrypted-thumbnail", "Every field from the model: a large Binary as CD_encryptedData_ckAsset, the cloud-encrypted "
          "thumbnail as ENCRYPTED_BYTES, the to-one card as a record name.", ATT, ATT_CANON, ["REC-CD-001", "REC-CD-002", "REC-ENC-002"], ["real-implementation"], context=CTX)
PHOTO = {"recordName": "C0A8E1D2-0000-4000-8000-00000000C0DE", "recordType": "CD_Card",
         "fields": {"CD_entityName": f("PhotoCard", "STRING"), "CD_title": f("Passport", "STRING"), "CD_rating": f(4.5, "DOUBLE"),
                    "CD_price": f("12.50", "STRING"), "CD_body": f("scan of page 2", "STRING")}}
mr.accept("subentity-under-its-root", "PhotoCard inherits from Card: its records are CD_Card, CD_entityName says PhotoCard; Float is a DOUBLE, Decimal a STRING.",
          PHOTO, PHOTO, ["REC-CD-001", "REC-CD-002"], context=CTX)
price_double = edit(PHOTO, "fields/CD_price", f(12.5, "DOUBLE"))
mr.accept("decimal-as-double", "Decimal as a DOUBLE is accepted too: Apple does not document which.", price_double, price_double, ["REC-REC-004"], context=CTX)
mr.accept("model-in-json-form", "The same model in the JSON form (as SwiftData teams write it).", PHOTO, PHOTO, ["REC-CD-002"],
          context={"model": {"entities": [{"name": "Card", "attributes": [attr("title", "String"), attr("rating", "Float"), attr("price", "Decimal")]},
                                          {"name": "PhotoCard", "parent": "Card", "attributes": [attr("body", "String")]}]}})
DRIFT = edit(edit(edit(edit(ATT, "fields/CD_fileType", f(3, "INT64")), "fields/CD_thumbnail", f(THUMB, "BYTES")), "fields/CD_deviceId", f("iPhone", "STRING")),
             "fields/CD_card_ckAsset", ASSET)
mr.reject("undeclared-and-mistyped", "CD_deviceId may be a newer version's attribute (accepted, dropped); CD_card_ckAsset cannot be: card is a "
          "to-one relationship of this type, whose record name Core Data never moves into an asset; CD_fileType sent as INT64 for a String attribute; a "
          "plaintext thumbnail where the model encrypts it.", DRIFT,
          [("/fields/CD_fileType/type", "REC-REC-004"), ("/fields/CD_thumbnail/type", "REC-ENC-002"), ("/fields/CD_card_ckAsset", "REC-CD-002")],
          ["interop-trap"], context=CTX)
mr.reject("undeclared-and-mistyped-strict", "The same record with strictFields (the model is the writer's newest): CD_deviceId is reported too.", DRIFT,
          [("/fields/CD_fileType/type", "REC-REC-004"), ("/fields/CD_thumbnail/type", "REC-ENC-002"), ("/fields/CD_deviceId", "REC-CD-002"),
           ("/fields/CD_card_ckAsset", "REC-CD-002")], ["interop-trap"], context=dict(CTX, strictFields=True))
NEWER = edit(edit(ATT, "fields/CD_pageCount", f(12, "INT64")), "fields/CD_summary_ckAsset", ASSET)
mr.accept("newer-version-fields", "CD_pageCount and CD_summary_ckAsset are not in this model: a newer app version's attributes, which an older "
          "Core Data ignores (Apple: older versions have every record, not every field). Accepted, dropped from the canonical form.",
          NEWER, ATT_CANON, ["REC-CD-002"], context=CTX)
CARD_RN, TAG_RN = "C0A8E1D2-0000-4000-8000-00000000C0DE", "5D5DF5B2-DB27-4F01-B311-52A274374F59"
mr.reject("not-core-data-fields", "No model version gives an entity record a field without CD_, nor a CDMR field.",
          edit(edit(ATT, "fields/deviceId", f("iPhone", "STRING")), "fields/CD_recordNames", f(f"{CARD_RN}:{TAG_RN}", "STRING")),
          [("/fields/deviceId", "REC-CD-002"), ("/fields/CD_recordNames", "REC-CD-002")], context=CTX)
TITLED = edit(PHOTO, "fields/CD_title_ckAsset", ASSET)
mr.accept("string-and-its-asset", "CD_title with CD_title_ckAsset: the pair Apple's \"Reading CloudKit Records for Core Data\" shows for every String.",
          TITLED, TITLED, ["REC-CD-002"], ["real-implementation"], context=CTX)
mr.reject("asset-of-a-fixed-size-attribute", "size is an Integer 64: Core Data never moves it into an asset.",
          edit(ATT, "fields/CD_size_ckAsset", ASSET), ("/fields/CD_size_ckAsset", "REC-CD-002"), context=CTX)
mr.reject("to-many-as-a-field", "attachments is a to-many relationship of Card: Core Data keeps it on the other side (CD_card), never as a field "
          "of CD_Card, in any version that keeps the relationship.",
          edit(PHOTO, "fields/CD_attachments", f("8D1F2C3A-51B7-4C09-9E55-0A6F3B2C1D01", "STRING")), ("/fields/CD_attachments", "REC-CD-002"), context=CTX)
RECEIPT = edit(PHOTO, "fields/CD_moveReceipt", f("AAECAwQ=", "BYTES"))
mr.accept("move-receipt", "CD_moveReceipt: Core Data's zone-move receipt, on any type (its serializer lists it for every entity).",
          RECEIPT, RECEIPT, ["REC-CD-002"], context=CTX)

# SwiftData's type table (Spec records.md 7): one row per Core Data attribute type a Swift type
# maps to, each an accepted record of the field type the row names and a refused one of another.
# The model is the JSON form `@Model final class Solve { var value: T? }` reads as.
SWIFTDATA_TYPES = [
    ("string", "String", f("12.5", "STRING"), f(12.5, "DOUBLE")),
    ("int", "Integer64", f(12, "INT64"), f("12", "STRING")),
    ("int32", "Integer32", f(12, "INT64"), f(12.0, "DOUBLE")),
    ("int16", "Integer16", f(12, "INT64"), f(12.0, "DOUBLE")),
    ("bool", "Boolean", f(1, "INT64"), f("true", "STRING")),
    ("double", "Double", f(12.5, "DOUBLE"), f("AAECAwQ=", "BYTES")),
    ("float", "Float", f(12.5, "DOUBLE"), f(12, "INT64")),
    ("decimal", "Decimal", f("12.50", "STRING"), f(12, "INT64")),
    ("date", "Date", f(T, "TIMESTAMP"), f(T, "INT64")),
    ("data", "Binary", f("AAECAwQ=", "BYTES"), f("AAECAwQ=", "STRING")),
    ("uuid", "UUID", f("8d1f2c3a-51b7-4c09-9e55-0a6f3b2c1d01", "STRING"), f("AAECAwQ=", "BYTES")),
    ("url", "URI", f("https://example.com/a", "STRING"), f("AAECAwQ=", "BYTES")),
    ("codable", "Binary", f("W3sibGV2ZWwiOjEsImlkIjoiZmFjZSJ9XQ==", "BYTES"), f('[{"level":1,"id":"face"}]', "STRING")),
]
for slug, attribute, right, wrong in SWIFTDATA_TYPES:
    solve = {"model": {"entities": [{"name": "Solve", "attributes": [{"name": "value", "type": attribute, "optional": True}]}]}}
    record = {"recordName": "C0A8E1D2-0000-4000-8000-00000000C0DE", "recordType": "CD_Solve",
              "fields": {"CD_entityName": f("Solve", "STRING"), "CD_value": right}}
    mr.accept(f"swiftdata-{slug}", f"SwiftData's type table, row {attribute}: CD_value travels as {right['type']}.", record, record, ["REC-REC-004"],
              context=solve)
    mr.reject(f"swiftdata-{slug}-mistyped", f"SwiftData's type table, row {attribute}: CD_value as {wrong['type']} is not its field type.",
              edit(record, "fields/CD_value", wrong), ("/fields/CD_value/type", "REC-REC-004"), context=solve)


def m2m_rel(name, dest, inverse):
    return {"name": name, "destination": dest, "optional": True, "toMany": True, "inverse": inverse, "deleteRule": "Nullify"}


M2M = {"model": {"entities": [
    {"name": "Card", "attributes": [attr("title", "String")], "relationships": [m2m_rel("tags", "Tag", "cards")]},
    {"name": "Tag", "attributes": [attr("name", "String")], "relationships": [m2m_rel("cards", "Card", "tags")]}]}}
CDMR = {"recordName": "EE64F478-A761-4049-B559-853457ABA997", "recordType": "CDMR",
        "fields": {"CD_entityNames": f("Card:Tag", "STRING"), "CD_recordNames": f(f"{CARD_RN}:{TAG_RN}", "STRING"),
                   "CD_relationships": f("tags:cards", "STRING")}}
mr.accept("cdmr-link", "A many-to-many link as Apple documents it (\"Post:Tag\", \"tags:posts\"): entity i owns relationship i and record i.",
          CDMR, CDMR, ["REC-REC-002", "REC-CD-003"], ["real-implementation"], context=M2M)
mr.reject("cdmr-from-a-web-client", "A web client's link: record types instead of entity names, no CD_relationships. Core Data's importer "
          "needs all three fields and looks the names up as entities, so it never links these records.",
          {"recordName": "2B8F0C4E-7A31-4D7E-9B1A-6C2D3E4F5A6B", "recordType": "CDMR",
           "fields": {"CD_entityNames": f("CD_Card:CD_Tag", "STRING"), "CD_recordNames": f(f"{CARD_RN}:{TAG_RN}", "STRING")}},
          [("/fields/CD_relationships", "REC-REC-005"), ("/fields/CD_entityNames/value", "REC-CD-003")], ["interop-trap"], context=M2M)
mr.reject("cdmr-relationships-swapped", "relationship i belongs to entity i: Card has no cards, Tag no tags.",
          edit(CDMR, "fields/CD_relationships", f("cards:tags", "STRING")), ("/fields/CD_relationships/value", "REC-CD-003"), context=M2M)
mr.reject("cdmr-one-part", "Each value is two parts joined by one colon.", edit(CDMR, "fields/CD_recordNames", f(CARD_RN, "STRING")),
          ("/fields/CD_recordNames/value", "REC-CD-003"), ["boundary"], context=M2M)
mr.reject("cdmr-other-fields", "A CDMR record has exactly its three fields in every version: a CD_ field or a zone-move receipt on it is "
          "never Core Data's, reported even without strictFields.",
          edit(edit(CDMR, "fields/CD_note", f("x", "STRING")), "fields/CD_moveReceipt", f("AAECAwQ=", "BYTES")),
          [("/fields/CD_note", "REC-CD-002"), ("/fields/CD_moveReceipt", "REC-CD-002")], context=M2M, rules=["REC-CD-002", "REC-CD-003"])
mr.accept("undeclared-null-field", "A field whose value is null is an absent one (CORE-TYPE-002): even a name Core Data never writes is not reported.",
          edit(edit(PHOTO, "fields/CD_attachments", None), "fields/deviceId", None), PHOTO, ["REC-CD-002", "CORE-TYPE-002"], context=CTX)
mr.reject("cdmr-without-many-to-many", "The model has no many-to-many relationship between mirrored entities: CDMR is not one of its types.",
          CDMR, ("/recordType", "REC-REC-002"), context=CTX)
mr.reject("encrypted-where-the-model-does-not", "ENCRYPTED_STRING for an attribute the model does not encrypt is a type mismatch.",
          edit(ATT, "fields/CD_fileType", f("pdf", "ENCRYPTED_STRING")), ("/fields/CD_fileType/type", "REC-REC-004"), context=CTX)
mr.reject("required-absent", "createdAt is required without a default: a record without it is incomplete.", edit(ATT, "fields/CD_createdAt", DROP),
          ("/fields/CD_createdAt", "REC-REC-005"), context=CTX)
mr.reject("subentity-field-on-the-root", "CD_entityName must name an entity of the hierarchy.", edit(PHOTO, "fields/CD_entityName", f("Attachment", "STRING")),
          ("/fields/CD_entityName/value", "REC-CD-001"), context=CTX)
mr.reject("local-only-entity", "LocalCache is in the local configuration: CloudKit has no CD_LocalCache.",
          {"recordName": "cache-1", "recordType": "CD_LocalCache", "fields": {"CD_entityName": f("LocalCache", "STRING"), "CD_key": f("k", "STRING")}},
          ("/recordType", "REC-REC-002"), context=CTX)
mr.reject("subentity-type", "A subentity's records use the root's type, never CD_PhotoCard.", edit(PHOTO, "recordType", "CD_PhotoCard"),
          ("/recordType", "REC-REC-002"), context=CTX)

# ------------------------------------------------------------------ machines
def iso(ms):
    import datetime
    d = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def state(local=0, remote=None, name=None, synced=None, conflict=None, modified=T, pending=True, obsolete=False):
    s = {"ideaId": ID, "localVersion": local}
    if remote is not None:
        s["remoteVersion"] = remote
    if name is not None:
        s["cloudKitRecordName"] = name
    if synced is not None:
        s["lastSyncedAt"] = iso(synced)
    if conflict is not None:
        s["lastConflictAt"] = iso(conflict)
    s.update({"lastModifiedAt": iso(modified), "isPendingSync": pending, "isObsolete": obsolete, "conflictResolutionStrategy": "lastWrite"})
    return s


def log(t, at, code=None):
    a = {"action": "log", "eventType": t, "timestamp": iso(at)}
    if code is not None:
        a["errorCode"] = code
    return a


sm = File(machine="idea-sync", description="SyncState transitions (seed 001 §2; Spec records.md 5).", context={"ideaId": ID, "createdAt": T})
files.append(sm)
sm.steps("create-change-sync", "Seed 001's transition chart: pending, synced, changed again (localVersion + 1).", ["REC-STATE-001"], [],
         [({"event": "local-change", "at": T + 1000}, state(1, modified=T + 1000), []),
          ({"event": "sync-succeeded", "at": T + 2000, "remoteVersion": 1, "recordName": ID}, state(1, 1, ID, T + 2000, modified=T + 1000, pending=False), [log("sync_success", T + 2000)]),
          ({"event": "local-change", "at": T + 3000}, state(2, 1, ID, T + 2000, modified=T + 3000), [])], flags=["seed-example"])
sm.steps("failure-retry-conflict", "Failures, retries and conflicts are logged; a conflict stamps lastConflictAt.", ["REC-STATE-001"], [],
         [({"event": "sync-failed", "at": T + 1000, "errorCode": 4}, state(), [log("sync_failure", T + 1000, 4)]),
          ({"event": "retry", "at": T + 2000}, state(), [log("retry", T + 2000)]),
          ({"event": "conflict", "at": T + 3000}, state(conflict=T + 3000), [log("conflict", T + 3000)])])
sm.steps("future-version-dropped", "A success for a version not yet made is dropped.", ["REC-STATE-001"], ["REC-STATE-001"],
         [({"event": "sync-succeeded", "at": T + 1000, "remoteVersion": 2, "recordName": ID}, state(), [{"action": "drop", "rule": "REC-STATE-001"}])])
sm.steps("obsolete-never-synced", "An idea never synced becomes obsolete 30 days after creation (not at exactly 30 days).", ["REC-STATE-002"], ["REC-STATE-002"],
         [({"event": "tick", "at": T + 30 * DAY}, state(), []),
          ({"event": "tick", "at": T + 30 * DAY + 1}, state(obsolete=True), [{"action": "obsolete", "rule": "REC-STATE-002"}]),
          ({"event": "sync-succeeded", "at": T + 31 * DAY, "remoteVersion": 0, "recordName": ID}, state(0, 0, ID, T + 31 * DAY, pending=False), [log("sync_success", T + 31 * DAY)])],
         flags=["boundary"])
sm.steps("synced-not-obsolete", "Nothing pending: no obsolescence however long.", ["REC-STATE-002"], [],
         [({"event": "sync-succeeded", "at": T + 1000, "remoteVersion": 0, "recordName": ID}, state(0, 0, ID, T + 1000, pending=False), [log("sync_success", T + 1000)]),
          ({"event": "tick", "at": T + 90 * DAY}, state(0, 0, ID, T + 1000, pending=False), [])])
sm.steps("older-version-dropped", "A success reporting a version older than the last one synced is dropped; the state stays.", ["REC-STATE-001"], ["REC-STATE-001"],
         [({"event": "local-change", "at": T + 1000}, state(1, modified=T + 1000), []),
          ({"event": "local-change", "at": T + 2000}, state(2, modified=T + 2000), []),
          ({"event": "sync-succeeded", "at": T + 3000, "remoteVersion": 2, "recordName": ID}, state(2, 2, ID, T + 3000, modified=T + 2000, pending=False),
           [log("sync_success", T + 3000)]),
          ({"event": "sync-succeeded", "at": T + 4000, "remoteVersion": 1, "recordName": ID}, state(2, 2, ID, T + 3000, modified=T + 2000, pending=False),
           [{"action": "drop", "rule": "REC-STATE-001"}])])



def obsolescence_deadline(st):
    """REC-STATE-002: a pending change not obsolete yet turns obsolete one ms after 30 days since
    the last sync, or since the idea's creation; nothing else waits for time."""
    import datetime
    if not st["isPendingSync"] or st["isObsolete"]:
        return None
    since = T
    if "lastSyncedAt" in st:
        d = datetime.datetime.strptime(st["lastSyncedAt"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
        since = round(d.timestamp() * 1000)
    return since + 30 * DAY + 1


for c in sm.cases:   # the machine keeps time: every step states its deadline
    for step in c["steps"]:
        step["expect"]["deadline"] = obsolescence_deadline(step["expect"]["state"])

SLOG = lambda i, at: {"id": "a1b2c3d4-000%d-4000-8000-00000000000%d" % (i, i), "ideaId": ID, "eventType": "sync_success", "timestamp": iso(at), "deviceId": "dev-1"}
slm = File(machine="log-retention", description="SyncLog retention: 30 days, pruned at launch (seed 001 §3).")
files.append(slm)
slm.steps("prune-at-launch", "At launch entries over 30 days old go; exactly 30 days stays.", ["REC-SLOG-002"], ["REC-SLOG-002"],
          [({"event": "append", "document": SLOG(1, T)}, {"entries": [SLOG(1, T)["id"]]}, []),
           ({"event": "append", "document": SLOG(2, T + DAY)}, {"entries": [SLOG(1, T)["id"], SLOG(2, T + DAY)["id"]]}, []),
           ({"event": "launch", "at": T + 31 * DAY}, {"entries": [SLOG(2, T + DAY)["id"]]}, [{"action": "prune", "ids": [SLOG(1, T)["id"]], "rule": "REC-SLOG-002"}])],
          flags=["boundary"])
slm.steps("invalid-entry-dropped", "An entry that breaks SyncLog's rules is not stored.", ["REC-SLOG-001"], ["REC-SLOG-001"],
          [({"event": "append", "document": dict(SLOG(1, T), eventType="done")}, {"entries": []}, [{"action": "drop", "rule": "REC-SLOG-001", "path": "/eventType"}])])
slm.steps("drop-names-the-first-violation", "An entry with two violations (no milliseconds, a blank deviceId) is dropped on the first, as sync-log reports it.",
          ["REC-TIME-002", "REC-SLOG-001"], ["REC-TIME-002"],
          [({"event": "append", "document": dict(SLOG(1, T), timestamp="2025-05-15T09:06:40Z", deviceId=" ")}, {"entries": []},
            [{"action": "drop", "rule": "REC-TIME-002", "path": "/timestamp"}])])

q = File(machine="sync-queue", description="Batches of at most 100 and pages of 50 (seed 001 批量操作).")
files.append(q)
ids = ["idea-%03d" % i for i in range(150)]
changes = [({"event": "change", "ideaId": ids[i], "at": T + (149 - i)}, {"pending": i + 1, "inFlight": 0}, []) for i in range(150)]
order = sorted(ids, key=lambda x: (T + (149 - int(x[5:])), x))
q.steps("batches-of-100", "150 changed ideas go as 100 (oldest change first) then 50.", ["REC-BATCH-001"], ["REC-BATCH-001"],
        changes + [({"event": "flush"}, {"pending": 150, "inFlight": 100}, [{"action": "upload", "ideaIds": order[:100], "deferred": 50, "rule": "REC-BATCH-001"}]),
                   ({"event": "uploaded"}, {"pending": 50, "inFlight": 50}, [{"action": "upload", "ideaIds": order[100:]}]),
                   ({"event": "uploaded"}, {"pending": 0, "inFlight": 0}, [])])
q.steps("changed-while-in-flight", "An idea changed again during its upload stays pending.", ["REC-BATCH-001"], [],
        [({"event": "change", "ideaId": "a", "at": T}, {"pending": 1, "inFlight": 0}, []),
         ({"event": "flush"}, {"pending": 1, "inFlight": 1}, [{"action": "upload", "ideaIds": ["a"]}]),
         ({"event": "change", "ideaId": "a", "at": T + 5}, {"pending": 1, "inFlight": 1}, []),
         ({"event": "uploaded"}, {"pending": 1, "inFlight": 1}, [{"action": "upload", "ideaIds": ["a"]}])])
q.steps("pages-of-50", "120 records download in pages of 50, 50, 20.", ["REC-BATCH-001"], [],
        [({"event": "download", "total": 120}, {"pending": 0, "inFlight": 0},
          [{"action": "fetch-page", "offset": 0, "limit": 50}, {"action": "fetch-page", "offset": 50, "limit": 50}, {"action": "fetch-page", "offset": 100, "limit": 20}])])
q.steps("upload-failed-waits-for-flush", "A failed upload keeps its ideas pending and sends nothing until the next flush.", ["REC-BATCH-001"], [],
        [({"event": "change", "ideaId": "a", "at": T}, {"pending": 1, "inFlight": 0}, []),
         ({"event": "flush"}, {"pending": 1, "inFlight": 1}, [{"action": "upload", "ideaIds": ["a"]}]),
         ({"event": "upload-failed"}, {"pending": 1, "inFlight": 0}, []),
         ({"event": "flush"}, {"pending": 1, "inFlight": 1}, [{"action": "upload", "ideaIds": ["a"]}]),
         ({"event": "uploaded"}, {"pending": 0, "inFlight": 0}, [])])

ini = File(machine="initial-sync", timed={"waitingRetry"}, description="Initial sync decisions (seed 004 §4.1, §5) and backoff (§7).")
files.append(ini)


def st(name, failures=0):
    return {"name": name, "failures": failures}


def perform(op):
    return {"action": "perform", "operation": op}


reinstall = [({"event": "launched", "reinstall": True, "at": T}, st("checkingPurchase"), [perform("restore-purchases")]),
             ({"event": "purchase-restored", "pro": True, "at": T + 1}, st("checkingAccount"), [perform("fetch-account-status")]),
             ({"event": "account-status", "available": True, "at": T + 2}, st("querying"), [perform("query-records")])]
ini.steps("reinstall-restore", "Reinstall: restore the purchase, check the account, find records, the user restores.", ["REC-INIT-001"], [],
          reinstall + [({"event": "query-result", "found": True, "at": T + 3}, st("awaitingChoice"), [{"action": "prompt-restore"}]),
                       ({"event": "user-choice", "choice": "restore", "at": T + 4}, st("restoring"), [perform("fetch-all-records")]),
                       ({"event": "succeeded", "at": T + 5}, st("ready"), [])], flags=["seed-example"])
ini.steps("reinstall-discard", "The user declines: the iCloud data is deleted and the app starts fresh.", ["REC-INIT-001"], [],
          reinstall + [({"event": "query-result", "found": True, "at": T + 3}, st("awaitingChoice"), [{"action": "prompt-restore"}]),
                       ({"event": "user-choice", "choice": "discard", "at": T + 4}, st("deletingCloud"), [perform("delete-cloud-records")]),
                       ({"event": "succeeded", "at": T + 5}, st("ready"), [{"action": "upload-local"}])])
ini.steps("restore-fails-then-delete", "A failed restore offers retry or delete.", ["REC-INIT-001"], [],
          reinstall + [({"event": "query-result", "found": True, "at": T + 3}, st("awaitingChoice"), [{"action": "prompt-restore"}]),
                       ({"event": "user-choice", "choice": "restore", "at": T + 4}, st("restoring"), [perform("fetch-all-records")]),
                       ({"event": "failed", "at": T + 5}, st("restoreFailed"), [{"action": "prompt-retry-or-delete"}]),
                       ({"event": "user-choice", "choice": "delete", "at": T + 6}, st("deletingCloud"), [perform("delete-cloud-records")])])
ini.steps("no-records", "Nothing in iCloud: local data is the initial data.", ["REC-INIT-001"], [],
          reinstall + [({"event": "query-result", "found": False, "at": T + 3}, st("ready"), [{"action": "upload-local"}])])
ini.steps("first-install-no-query", "A first install asks iCloud nothing; buying PRO later starts the account check.", ["REC-INIT-001"], [],
          [({"event": "launched", "reinstall": False, "at": T}, st("localOnly"), []),
           ({"event": "pro-purchased", "at": T + 10}, st("checkingAccount"), [perform("fetch-account-status")])])
ini.steps("not-pro", "Without PRO the app stays local.", ["REC-INIT-001"], [],
          [({"event": "launched", "reinstall": True, "at": T}, st("checkingPurchase"), [perform("restore-purchases")]),
           ({"event": "purchase-restored", "pro": False, "at": T + 1}, st("localOnly"), [])])
ini.steps("query-before-purchase-dropped", "An account answer before the purchase is known is out of order: dropped.", ["REC-INIT-001"], ["REC-INIT-001"],
          [({"event": "launched", "reinstall": True, "at": T}, st("checkingPurchase"), [perform("restore-purchases")]),
           ({"event": "account-status", "available": True, "at": T + 1}, st("checkingPurchase"), [{"action": "drop", "rule": "REC-INIT-001"}])])
backoff = list(reinstall)
at = T + 2
for n in range(1, 6):
    at += 100
    backoff.append(({"event": "failed", "at": at}, st("waitingRetry", n), [arm(at + 1000 * 2 ** (n - 1))]))
    at += 1000 * 2 ** (n - 1)
    backoff.append(({"event": "tick", "at": at}, st("querying", n), [perform("query-records")]))
backoff.append(({"event": "failed", "at": at + 100}, st("failed", 6), [{"action": "show-error", "code": "sync-unavailable", "rule": "REC-INIT-002"}]))
ini.steps("backoff-then-give-up", "Query failures retry after 1, 2, 4, 8, 16 s; the sixth failure gives up.", ["REC-INIT-002"], ["REC-INIT-002"], backoff)
ini.steps("backoff-recovers", "A retry that succeeds carries on with the flow; a tick before the retry is due changes nothing.", ["REC-INIT-002"], [],
          reinstall + [({"event": "failed", "at": T + 10}, st("waitingRetry", 1), [arm(T + 1010)]),
                       ({"event": "tick", "at": T + 1009}, st("waitingRetry", 1), []),
                       ({"event": "tick", "at": T + 1010}, st("querying", 1), [perform("query-records")]),
                       ({"event": "query-result", "found": False, "at": T + 1020}, st("ready", 1), [{"action": "upload-local"}])])
ini.steps("account-unavailable", "No iCloud account: the flow ends in failed with show-error icloud-account-unavailable (no retry, no rule); a tick then finds nothing due, and later events are dropped.",
          ["REC-INIT-001"], ["REC-INIT-001"],
          [({"event": "launched", "reinstall": True, "at": T}, st("checkingPurchase"), [perform("restore-purchases")]),
           ({"event": "purchase-restored", "pro": True, "at": T + 1}, st("checkingAccount"), [perform("fetch-account-status")]),
           ({"event": "account-status", "available": False, "at": T + 2}, st("failed"), [{"action": "show-error", "code": "icloud-account-unavailable"}]),
           ({"event": "tick", "at": T + 3}, st("failed"), []),
           ({"event": "succeeded", "at": T + 4}, st("failed"), [{"action": "drop", "rule": "REC-INIT-001"}])])

zone = File(machine="record-zone", description="Optimistic concurrency with recordChangeTag (seed 004 §6; Spec records.md 6).")
files.append(zone)
R0 = {"recordName": "habit-1", "recordType": "Habit", "fields": {"name": f("Read", "STRING")}}
R1 = dict(R0, recordChangeTag="t1", fields={"name": f("Read 20 pages", "STRING")})
R1b = dict(R0, recordChangeTag="t1", fields={"name": f("Read daily", "STRING")})
zone.steps("stale-tag-conflict", "Two devices save from t1; the second gets serverRecordChanged with client, server and ancestor.", ["REC-CONF-001"], ["REC-CONF-001"],
           [({"event": "save", "document": R0}, {"tags": {"habit-1": "t1"}}, [{"action": "saved", "recordChangeTag": "t1"}]),
            ({"event": "save", "document": R1}, {"tags": {"habit-1": "t2"}}, [{"action": "saved", "recordChangeTag": "t2"}]),
            ({"event": "save", "document": R1b}, {"tags": {"habit-1": "t2"}},
             [{"action": "server-record-changed", "client": R1b, "server": dict(R1, recordChangeTag="t2"), "ancestor": dict(R0, recordChangeTag="t1"), "rule": "REC-CONF-001"}]),
            ({"event": "save-forced", "document": R1b}, {"tags": {"habit-1": "t3"}}, [{"action": "saved", "recordChangeTag": "t3"}])], flags=["seed-example"])
zone.steps("new-record-twice", "A second create without a tag conflicts with no ancestor.", ["REC-CONF-001"], ["REC-CONF-001"],
           [({"event": "save", "document": R0}, {"tags": {"habit-1": "t1"}}, [{"action": "saved", "recordChangeTag": "t1"}]),
            ({"event": "save", "document": R0}, {"tags": {"habit-1": "t1"}},
             [{"action": "server-record-changed", "client": R0, "server": dict(R0, recordChangeTag="t1"), "ancestor": None, "rule": "REC-CONF-001"}])])
zone.steps("tags-across-records", "Change tags count every save of the zone (t1, t2, ...), whatever the record; a tag the zone never issued, "
           "or one it issued to another record, names no ancestor of this one.",
           ["REC-CONF-001"], ["REC-CONF-001"],
           [({"event": "save", "document": R0}, {"tags": {"habit-1": "t1"}}, [{"action": "saved", "recordChangeTag": "t1"}]),
            ({"event": "save", "document": dict(R0, recordName="habit-2")}, {"tags": {"habit-1": "t1", "habit-2": "t2"}}, [{"action": "saved", "recordChangeTag": "t2"}]),
            ({"event": "save", "document": dict(R1, recordChangeTag="t9")}, {"tags": {"habit-1": "t1", "habit-2": "t2"}},
             [{"action": "server-record-changed", "client": dict(R1, recordChangeTag="t9"), "server": dict(R0, recordChangeTag="t1"), "ancestor": None,
               "rule": "REC-CONF-001"}]),
            ({"event": "save", "document": dict(R1, recordChangeTag="t2")}, {"tags": {"habit-1": "t1", "habit-2": "t2"}},
             [{"action": "server-record-changed", "client": dict(R1, recordChangeTag="t2"), "server": dict(R0, recordChangeTag="t1"), "ancestor": None,
               "rule": "REC-CONF-001"}])])

os.makedirs(OUT, exist_ok=True)
total = 0
for fl in files:
    total += fl.write()
print(total, "cases")
