"""What the schema generators (gen_pairing_schemas.py, gen_migration_schemas.py) share: the core
rules every typed member carries (Spec core.md, "Typed members"), how an optional member admits
null, and why the wire rules and integer literals are not expressible in a JSON Schema."""

# Unicode White_Space (PropList.txt): U+0009..U+000D, U+0020, U+0085, U+00A0, U+1680,
# U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
WHITE_SPACE = "\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

CORE_WIRE = ["CORE-JSON-001", "CORE-JSON-002", "CORE-JSON-003", "CORE-JSON-004", "CORE-JSON-005", "CORE-JSON-006"]
CORE_TYPES = ["CORE-TYPE-001", "CORE-TYPE-002", "CORE-TYPE-003", "CORE-TYPE-004"]
WIRE_WHY = ("the wire profile applies to the document's text before there is a JSON instance (syntax, UTF-8, "
            "duplicate member names, size, depth, finite numbers)")
TYPE4_WHY = ("integer literals: parsing loses the literal, and a 2020-12 \"integer\" accepts 1.0; the value "
             "ranges are stated, the literal form (no fraction, no exponent) is not")


def core_rules(required, integer=False):
    """The core typed-member rules of a member (core.md, "Typed members")."""
    rules = (["CORE-TYPE-001"] if required else []) + ["CORE-TYPE-002", "CORE-TYPE-003"]
    return rules + (["CORE-TYPE-004"] if integer else [])


def with_null(schema):
    """An optional member: null means "not given" (CORE-TYPE-002)."""
    s = dict(schema)
    t = s["type"]
    s["type"] = (t if isinstance(t, list) else [t]) + ["null"]
    if "enum" in s:
        s["enum"] = s["enum"] + [None]
    return s


def member(schema, required, rules, integer=False, description=None):
    """A member's schema with the rules that govern it (`x-rules`): the core ones, then `rules`."""
    s = dict(schema) if required else with_null(schema)
    if description:
        s = {"description": description, **s}
    s["x-rules"] = core_rules(required, integer) + rules
    return s
