'use strict';
// Core Data models for the records testee (records-testee.js, beside this file): Spec/records.md
// section 7 (the model checker, kinds `model` and `xcdatamodel`) and section 3 "Types derived from
// the app's model" (kind `mirrored-record`, whose context carries the app's model).
//
// A model arrives in one of two forms, and both are read into the same plain shape (`Model`):
//   - the JSON form of section 7: {cloudKit?, configurations?, entities: [{name, parent,
//     attributes, relationships, uniquenessConstraints}]}, as a parsed document (strict-json.js
//     values) or as a plain object from the request's context;
//   - Xcode's `.xcdatamodel/contents` XML, read by the small strict XML reader below (Node has
//     none). It accepts the subset Xcode writes (declaration, comments, elements, attributes,
//     character references) and refuses the rest (DOCTYPE, unbalanced tags, bad references):
//     such a file is a usage error (XmlError), never a violation (Spec section 7).
//
// Findings are {rule, path} pairs with paths into the JSON form, entities and members in the
// document's order (for XML: the order of the <entity>, <attribute> and <relationship> elements).

const { Violation, jsonType, pointer } = require('./strict-json.js');

// ---------------------------------------------------------------------------------------------
// 1. Core Data's vocabulary (Spec records.md 3 and 7)
// ---------------------------------------------------------------------------------------------

/** REC-MODEL-006: the attribute types CloudKit mirrors (every Core Data type but Undefined and ObjectID). */
const SUPPORTED_TYPES = new Set([
  'String', 'Integer16', 'Integer32', 'Integer64', 'Decimal', 'Double', 'Float', 'Boolean', 'Date', 'Binary', 'UUID', 'URI',
  'Transformable',
]);

/** REC-MODEL-006: transformers that unarchive any class (a missing name means NSCoding too). */
const INSECURE_TRANSFORMERS = new Set(['NSKeyedUnarchiveFromData', 'NSUnarchiveFromData']);

/** REC-MODEL-009: NSObject / NSManagedObject methods without parameters (the list in the rule's
 * text, Spec/records.md section 7). */
const RESERVED_NAMES = new Set([
  'description', 'debugDescription', 'hash', 'class', 'superclass', 'self', 'zone', 'isProxy', 'retainCount', 'autorelease', 'retain',
  'release', 'copy', 'mutableCopy', 'init', 'dealloc', 'entity', 'objectID', 'managedObjectContext', 'isInserted', 'inserted',
  'isUpdated', 'updated', 'isDeleted', 'deleted', 'hasChanges', 'hasPersistentChangedValues', 'isFault', 'fault', 'faultingState',
  'changedValues', 'changedValuesForCurrentEvent', 'awakeFromFetch', 'awakeFromInsert', 'willSave', 'didSave', 'willTurnIntoFault',
  'didTurnIntoFault', 'prepareForDeletion', 'validateForDelete', 'validateForInsert', 'validateForUpdate',
]);

/** Section 3's table: the CloudKit field type(s) of an attribute type (Decimal: either). */
const FIELD_TYPES = {
  String: ['STRING'], UUID: ['STRING'], URI: ['STRING'],
  Integer16: ['INT64'], Integer32: ['INT64'], Integer64: ['INT64'], Boolean: ['INT64'],
  Double: ['DOUBLE'], Float: ['DOUBLE'], Decimal: ['STRING', 'DOUBLE'],
  Date: ['TIMESTAMP'],
  Binary: ['BYTES'], Transformable: ['BYTES'],
};

/** REC-CD-002: variable-length attributes, which Core Data may move into a `_ckAsset` field. */
const VARIABLE_LENGTH = new Set(['String', 'URI', 'Binary', 'Transformable']);

// ---------------------------------------------------------------------------------------------
// 2. The JSON form, read into a Model (type errors are the document's CORE-TYPE violations)
// ---------------------------------------------------------------------------------------------

/** A member of a parsed object: CORE-TYPE-001/002/003 as in records-testee.js's member(), kept
 * here so that this file stands alone. Works on strict-json values and on plain context objects. */
function member(object, at, name, type, required) {
  const path = pointer(at, name);
  const present = Object.prototype.hasOwnProperty.call(object, name);
  if (!present || object[name] === null) {
    if (required) throw new Violation(present ? 'CORE-TYPE-002' : 'CORE-TYPE-001', path);
    return undefined;
  }
  if (jsonType(object[name]) !== type) throw new Violation('CORE-TYPE-003', path);
  return object[name];
}

function stringList(list, at) {
  return list.map((s, i) => {
    if (jsonType(s) !== 'string') throw new Violation('CORE-TYPE-003', pointer(at, i));
    return s;
  });
}

/** An optional array of objects, each read completely by `read(object, path)` before the next:
 * the first type error met is the one reported (Spec/records.md 8.6: one CORE-TYPE violation). */
function objectList(owner, at, name, read) {
  const list = member(owner, at, name, 'array', false) || [];
  return list.map((o, i) => {
    const path = pointer(pointer(at, name), i);
    if (jsonType(o) !== 'object') throw new Violation('CORE-TYPE-003', path);
    return read(o, path);
  });
}

/** Reads the JSON form (section 7). Absent booleans take Core Data's defaults: required
 * (`optional` false), not unique, not derived, to-one, unordered. */
function modelFromJson(value, at = '') {
  if (jsonType(value) !== 'object') throw new Violation('CORE-TYPE-003', at);
  const model = {
    cloudKit: member(value, at, 'cloudKit', 'boolean', false),
    configurations: objectList(value, at, 'configurations', (c, path) => ({
      name: member(c, path, 'name', 'string', false),
      cloudKit: member(c, path, 'cloudKit', 'boolean', false) === true,
      entities: stringList(member(c, path, 'entities', 'array', false) || [], pointer(path, 'entities')),
    })),
    entities: [],
  };
  member(value, at, 'entities', 'array', true);
  model.entities = objectList(value, at, 'entities', (e, path) => ({
    name: member(e, path, 'name', 'string', true),
    parent: member(e, path, 'parent', 'string', false),
    path,
    attributes: objectList(e, path, 'attributes', (a, ap) => ({
      name: member(a, ap, 'name', 'string', true),
      type: member(a, ap, 'type', 'string', true),
      optional: member(a, ap, 'optional', 'boolean', false) === true,
      // Any JSON value is a default; null or absent is none (CORE-TYPE-002).
      hasDefault: Object.prototype.hasOwnProperty.call(a, 'defaultValue') && a.defaultValue !== null,
      unique: member(a, ap, 'unique', 'boolean', false) === true,
      derived: member(a, ap, 'derived', 'boolean', false) === true,
      renamingIdentifier: member(a, ap, 'renamingIdentifier', 'string', false),
      valueTransformerName: member(a, ap, 'valueTransformerName', 'string', false),
      allowsCloudEncryption: member(a, ap, 'allowsCloudEncryption', 'boolean', false) === true,
      path: ap,
    })),
    relationships: objectList(e, path, 'relationships', (r, rp) => ({
      name: member(r, rp, 'name', 'string', true),
      destination: member(r, rp, 'destination', 'string', false),
      optional: member(r, rp, 'optional', 'boolean', false) === true,
      ordered: member(r, rp, 'ordered', 'boolean', false) === true,
      toMany: member(r, rp, 'toMany', 'boolean', false) === true,
      inverse: member(r, rp, 'inverse', 'string', false),
      deleteRule: member(r, rp, 'deleteRule', 'string', false),
      renamingIdentifier: member(r, rp, 'renamingIdentifier', 'string', false),
      path: rp,
    })),
    uniquenessConstraints: (member(e, path, 'uniquenessConstraints', 'array', false) || []).map((c, k) => {
      const cp = pointer(pointer(path, 'uniquenessConstraints'), k);
      if (jsonType(c) !== 'array') throw new Violation('CORE-TYPE-003', cp);
      return stringList(c, cp);
    }),
  }));
  return model;
}

// ---------------------------------------------------------------------------------------------
// 3. Xcode's XML (.xcdatamodel/contents): a small strict reader and its mapping to the JSON form
// ---------------------------------------------------------------------------------------------

/** The file is not XML of the subset Xcode writes: a usage error, not a violation. */
class XmlError extends Error {}

/** Parses XML text into {name, attributes: {name: value}, children: [element]} (text, comments
 * and processing instructions are dropped: Xcode's model keeps everything in attributes). */
function parseXml(text) {
  let i = 0;
  const fail = (why) => { throw new XmlError(`not an Xcode model: ${why} at offset ${i}`); };
  const at = (s) => text.startsWith(s, i);
  const skipSpace = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const NAME = /[A-Za-z_:][-A-Za-z0-9._:]*/y;
  const readName = () => {
    NAME.lastIndex = i;
    const m = NAME.exec(text);
    if (!m) fail('expected a name');
    i += m[0].length;
    return m[0];
  };
  const until = (end, what) => {
    const k = text.indexOf(end, i);
    if (k < 0) fail(`unterminated ${what}`);
    const body = text.slice(i, k);
    i = k + end.length;
    return body;
  };
  // Character data and attribute values: the five predefined entities and character references.
  const decode = (s) => s.replace(/&([^;]*);?/g, (whole, ref) => {
    if (!whole.endsWith(';')) fail('a bare &');
    const named = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[ref];
    if (named) return named;
    const m = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(ref);
    const cp = m ? parseInt(m[1] || m[2], m[1] ? 16 : 10) : NaN;
    if (!(cp >= 1 && cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff)) fail(`an unknown reference &${ref};`);
    return String.fromCodePoint(cp);
  });
  const skipMisc = () => {
    for (;;) {
      skipSpace();
      if (at('<!--')) { i += 4; until('-->', 'comment'); } else if (at('<?')) { i += 2; until('?>', 'processing instruction'); } else return;
    }
  };
  const element = (depth) => {
    if (depth > 64) fail('nesting deeper than 64');
    if (!at('<')) fail('expected an element');
    i++;
    const node = { name: readName(), attributes: Object.create(null), children: [] };
    for (;;) {
      const before = i;
      skipSpace();
      if (i >= text.length) fail(`unclosed <${node.name}`);
      if (at('/>')) { i += 2; return node; }
      if (at('>')) { i++; break; }
      if (i === before) fail('expected a space between attributes');
      const name = readName();
      skipSpace();
      if (!at('=')) fail('expected =');
      i++;
      skipSpace();
      const quote = text[i];
      if (quote !== '"' && quote !== "'") fail('expected a quoted value');
      i++;
      const raw = until(quote, 'attribute value');
      if (raw.includes('<')) fail('< in an attribute value');
      if (name in node.attributes) fail(`attribute ${name} given twice`);
      node.attributes[name] = decode(raw);
    }
    for (;;) { // content
      if (i >= text.length) fail(`unclosed <${node.name}>`);
      if (at('</')) {
        i += 2;
        if (readName() !== node.name) fail(`mismatched </...> for <${node.name}>`);
        skipSpace();
        if (!at('>')) fail('expected >');
        i++;
        return node;
      }
      if (at('<!--')) { i += 4; until('-->', 'comment'); continue; }
      if (at('<![CDATA[')) { i += 9; until(']]>', 'CDATA section'); continue; }
      if (at('<?')) { i += 2; until('?>', 'processing instruction'); continue; }
      if (at('<!')) fail('a declaration inside the document');
      if (at('<')) { node.children.push(element(depth + 1)); continue; }
      const k = text.indexOf('<', i);
      decode(text.slice(i, k < 0 ? text.length : k)); // text is ignored, but must be well-formed
      i = k < 0 ? text.length : k;
    }
  };
  if (text.charCodeAt(0) === 0xfeff) i = 1; // a byte order mark is allowed by XML
  if (at('<?xml')) { i += 5; until('?>', 'XML declaration'); }
  skipMisc();
  if (at('<!DOCTYPE')) fail('a DOCTYPE (Xcode writes none)');
  const root = element(1);
  skipMisc();
  if (i < text.length) fail('data after the root element');
  return root;
}

const yes = (element, name) => element.attributes[name] === 'YES';
const children = (element, name) => element.children.filter((c) => c.name === name);
function required(element, name) {
  const v = element.attributes[name];
  if (v === undefined) throw new XmlError(`not an Xcode model: <${element.name}> without ${name}`);
  return v;
}

/** Xcode's XML → Model (Spec section 7 "Xcode's files"). Type names lose their spaces
 * (`Integer 16` → Integer16, `Object ID` → ObjectID); `elementID` is the renaming identifier; a
 * Date default may be written as `defaultDateTimeInterval`. */
function modelFromXml(text) {
  const root = parseXml(text);
  if (root.name !== 'model') throw new XmlError(`not an Xcode model: the root is <${root.name}>, not <model>`);
  return {
    cloudKit: undefined,
    configurations: children(root, 'configuration').map((c) => ({
      name: c.attributes.name,
      cloudKit: yes(c, 'usedWithCloudKit'),
      entities: children(c, 'memberEntity').map((m) => required(m, 'name')),
    })),
    entities: children(root, 'entity').map((e, i) => {
      const path = `/entities/${i}`;
      return {
        name: required(e, 'name'),
        parent: e.attributes.parentEntity,
        path,
        attributes: children(e, 'attribute').map((a, k) => ({
          name: required(a, 'name'),
          type: (a.attributes.attributeType || 'Undefined').replace(/ /g, ''),
          optional: yes(a, 'optional'),
          hasDefault: a.attributes.defaultValueString !== undefined || a.attributes.defaultDateTimeInterval !== undefined,
          unique: false, // Xcode writes uniqueness as <uniquenessConstraints>
          derived: yes(a, 'derived'),
          renamingIdentifier: a.attributes.elementID,
          valueTransformerName: a.attributes.valueTransformerName,
          allowsCloudEncryption: yes(a, 'allowsCloudEncryption'),
          path: `${path}/attributes/${k}`,
        })),
        relationships: children(e, 'relationship').map((r, k) => ({
          name: required(r, 'name'),
          destination: r.attributes.destinationEntity,
          optional: yes(r, 'optional'),
          ordered: yes(r, 'ordered'),
          toMany: yes(r, 'toMany'),
          inverse: r.attributes.inverseName,
          deleteRule: r.attributes.deletionRule,
          renamingIdentifier: r.attributes.elementID,
          path: `${path}/relationships/${k}`,
        })),
        uniquenessConstraints: children(e, 'uniquenessConstraints').flatMap((u) =>
          children(u, 'uniquenessConstraint').map((c) => children(c, 'constraint').map((x) => required(x, 'value')))),
      };
    }),
  };
}

/** A model from the request's context: Xcode's XML as a string, or the JSON form as an object. */
function modelFromContext(value) {
  if (typeof value === 'string') return modelFromXml(value);
  return modelFromJson(value);
}

// ---------------------------------------------------------------------------------------------
// 4. The model checker (section 7): every finding, in model order, evolution findings after
// ---------------------------------------------------------------------------------------------

/** The entities CloudKit mirrors: a `cloudKit: true` configuration's, else all; none when the
 * model says `cloudKit: false`. */
function mirroredNames(model) {
  if (model.cloudKit === false) return new Set();
  const cloud = model.configurations.filter((c) => c.cloudKit);
  if (cloud.length > 0) return new Set(cloud.flatMap((c) => c.entities));
  return new Set(model.entities.map((e) => e.name));
}

/** Checks `model` (and, given `previous`, its evolution); returns the findings [{rule, path}]. */
function checkModel(model, previous) {
  const findings = [];
  const report = (rule, path) => findings.push({ rule, path });
  const mirrored = mirroredNames(model);
  const exists = new Set(model.entities.map((e) => e.name));
  for (const entity of model.entities) {
    // REC-MODEL-009 binds every entity (Core Data refuses the model whatever the configuration);
    // the CloudKit rules bind the mirrored ones.
    const cloud = mirrored.has(entity.name);
    if (cloud) entity.uniquenessConstraints.forEach((_, k) => report('REC-MODEL-001', `${entity.path}/uniquenessConstraints/${k}`));
    for (const a of entity.attributes) {
      if (RESERVED_NAMES.has(a.name)) report('REC-MODEL-009', `${a.path}/name`);
      if (!cloud) continue;
      if (a.unique) report('REC-MODEL-001', `${a.path}/unique`);
      if (a.derived) report('REC-MODEL-005', `${a.path}/derived`);
      if (!SUPPORTED_TYPES.has(a.type)) report('REC-MODEL-006', `${a.path}/type`);
      else if (a.type === 'Transformable' && (a.valueTransformerName === undefined || INSECURE_TRANSFORMERS.has(a.valueTransformerName))) {
        report('REC-MODEL-006', `${a.path}/valueTransformerName`); // none means NSCoding, as insecure
      }
      if (!a.optional && !a.hasDefault) report('REC-MODEL-007', `${a.path}/optional`);
    }
    for (const r of entity.relationships) {
      if (RESERVED_NAMES.has(r.name)) report('REC-MODEL-009', `${r.path}/name`);
      if (!cloud) continue;
      if (r.destination === undefined || !exists.has(r.destination) || !mirrored.has(r.destination)) {
        report('REC-MODEL-008', `${r.path}/destination`);
      }
      if (!r.optional) report('REC-MODEL-002', `${r.path}/optional`);
      if (r.ordered) report('REC-MODEL-002', `${r.path}/ordered`);
      if (r.inverse === undefined) report('REC-MODEL-003', `${r.path}/inverse`);
      if (r.deleteRule === 'Deny') report('REC-MODEL-004', `${r.path}/deleteRule`);
    }
  }
  if (previous) findings.push(...checkEvolution(model, previous));
  return findings;
}

/** REC-EVOL-001..004 against the previous version: only entities that version mirrored bind.
 * A property is its previous self by the same name (an attribute's type then compared), else by
 * its renaming identifier (a rename), else it is new. */
function checkEvolution(model, previous) {
  const findings = [];
  const report = (rule, path) => findings.push({ rule, path });
  const bound = mirroredNames(previous);
  const before = new Map(previous.entities.filter((e) => bound.has(e.name)).map((e) => [e.name, e]));
  for (const entity of model.entities) {
    const old = before.get(entity.name);
    if (!old) continue; // a new entity (or one never mirrored) binds nothing
    for (const [kind, list, oldList] of [['attributes', entity.attributes, old.attributes], ['relationships', entity.relationships, old.relationships]]) {
      const matched = new Set();
      for (const p of list) {
        const same = oldList.find((q) => q.name === p.name);
        const renamedFrom = same || p.renamingIdentifier === undefined ? undefined : oldList.find((q) => q.name === p.renamingIdentifier);
        if (same) {
          matched.add(same);
          if (kind === 'attributes' && same.type !== p.type) report('REC-EVOL-003', `${p.path}/type`);
        } else if (renamedFrom) {
          matched.add(renamedFrom);
          report('REC-EVOL-002', `${p.path}/name`); // CloudKit cannot rename a field
        } else if (kind === 'attributes' && !p.optional && !p.hasDefault) {
          report('REC-EVOL-004', `${p.path}/optional`); // a record from an older version lacks it
        }
      }
      // One finding per removed property, at the entity's list (the property has no path now).
      oldList.filter((q) => !matched.has(q)).forEach(() => report('REC-EVOL-001', `${entity.path}/${kind}`));
    }
  }
  for (const name of before.keys()) {
    if (!model.entities.some((e) => e.name === name)) report('REC-EVOL-001', '/entities');
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// 5. Record types derived from the app's model (section 3, kind `mirrored-record`)
// ---------------------------------------------------------------------------------------------

/**
 * The record types a model gives: Map recordType → description.
 *   {kind: 'entity', root, entities, entityNames,
 *    fields: [{name, types, plainTypes?, required, asset, recordName?}] (records-testee.js's
 *      FieldSpec shape: `plainTypes` leak a cloud-encrypted attribute, `recordName` marks a to-one
 *      relationship, whose value is the related record's name),
 *    properties: Map name → 'variable' | 'fixed' | 'to-one' | 'to-many'}
 *   {kind: 'cdmr', mirrored: Map entityName → Entity, toMany(entity, name) → relationship | undefined}
 * Each inheritance root R among the mirrored entities gives CD_R holding its whole hierarchy;
 * CDMR exists when two mirrored entities are linked by a to-many relationship with a to-many inverse.
 */
function recordTypes(model) {
  const mirrored = mirroredNames(model);
  const byName = new Map(model.entities.map((e) => [e.name, e]));
  const rootOf = (e) => {
    let r = e;
    for (let n = 0; r.parent !== undefined && byName.has(r.parent) && n < 64; n++) r = byName.get(r.parent);
    return r;
  };
  // Relationships are inherited: a subentity has its ancestors' too.
  const lineage = (e) => {
    const chain = [e];
    for (let r = e; r.parent !== undefined && byName.has(r.parent) && chain.length < 64;) { r = byName.get(r.parent); chain.push(r); }
    return chain;
  };
  const toMany = (entity, name) => lineage(entity).flatMap((x) => x.relationships).find((r) => r.name === name && r.toMany);
  const types = new Map();
  for (const entity of model.entities) {
    if (!mirrored.has(entity.name)) continue;
    const root = rootOf(entity);
    const type = `CD_${root.name}`;
    if (!types.has(type)) types.set(type, { kind: 'entity', root: root.name, entities: [] });
    types.get(type).entities.push(entity); // the root comes first: it precedes its subentities
  }
  for (const t of types.values()) {
    t.entities.sort((a, b) => (a.name === t.root ? -1 : b.name === t.root ? 1 : 0));
    describeFields(t);
  }
  const linked = model.entities.some((e) => mirrored.has(e.name) && e.relationships.some((r) => {
    const dest = byName.get(r.destination);
    if (!r.toMany || !dest || !mirrored.has(dest.name)) return false;
    const inverse = toMany(dest, r.inverse);
    return inverse !== undefined;
  }));
  if (linked) {
    types.set('CDMR', {
      kind: 'cdmr',
      mirrored: new Map([...byName].filter(([name]) => mirrored.has(name))),
      toMany,
    });
  }
  return types;
}

/** The fields of one CD_<root> type, in model order: CD_entityName, then each entity's
 * attributes and to-one relationships (the root's non-optional attributes without a default are
 * required; a subentity's never are). */
function describeFields(type) {
  type.entityNames = type.entities.map((e) => e.name);
  type.fields = [{ name: 'CD_entityName', types: ['STRING'], required: true, asset: false }];
  type.properties = new Map();
  const add = (spec) => { if (!type.fields.some((f) => f.name === spec.name)) type.fields.push(spec); }; // one field per name
  for (const entity of type.entities) {
    const isRoot = entity.name === type.root;
    for (const a of entity.attributes) {
      type.properties.set(a.name, VARIABLE_LENGTH.has(a.type) ? 'variable' : 'fixed');
      const plain = FIELD_TYPES[a.type];
      if (!plain) continue; // Undefined / ObjectID: not mirrored (REC-MODEL-006)
      add({
        name: `CD_${a.name}`,
        types: a.allowsCloudEncryption ? plain.map((t) => `ENCRYPTED_${t}`) : plain,
        plainTypes: a.allowsCloudEncryption ? plain : undefined, // sent in clear: REC-ENC-002
        required: isRoot && !a.optional && !a.hasDefault,
        asset: VARIABLE_LENGTH.has(a.type),
      });
    }
    for (const r of entity.relationships) {
      type.properties.set(r.name, r.toMany ? 'to-many' : 'to-one');
      if (!r.toMany) add({ name: `CD_${r.name}`, types: ['STRING'], required: false, asset: false, recordName: true });
    }
  }
}

module.exports = {
  XmlError, modelFromJson, modelFromXml, modelFromContext, checkModel, recordTypes,
};
