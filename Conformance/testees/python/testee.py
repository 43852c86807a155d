#!/usr/bin/env python3
"""A second, independent implementation speaking the testee protocol
(Conformance/testee-protocol.md). It implements the migration family from the Spec alone (the
envelope with Python's `cryptography`, the package, the transfer's messages and its two machines
with the standard library); it shares no code with the Swift reference. This file only dispatches.

    swift run conformance run --family migration --peer exec:'python3 Conformance/testees/python/testee.py'
"""
import base64
import hashlib
import json
import sys

import msbk_envelope as env
import msbk_package as pkg
import msbk_store as store
import msbk_transfer_machines as machines
import msbk_transfer_messages as transfer

FAMILIES = ["migration"]


def validate(request):
    if request.get("family") != "migration":
        return {"outcome": "unsupported", "reason": "this testee implements the migration family only"}
    context = request.get("context") or {}
    data = base64.b64decode(request["document"])
    kind = request.get("kind")
    supported = context.get("supportedSchemaVersion") or 1
    try:
        if kind == "control-message":
            return {"outcome": "accept", "canonical": transfer.control_message_document(data)}
        if kind == "backup-chunk":
            meta = context.get("meta")
            if not isinstance(meta, dict):
                return {"outcome": "invalid-request", "reason": "context.meta (the session's BackupMeta) is required"}
            return {"outcome": "accept", "canonical": transfer.backup_chunk(data, meta)}
        if kind == "package":
            return {"outcome": "accept", "canonical": pkg.package(data, supported)}
        if kind == "restored-store":
            return {"outcome": "accept", "canonical": store.restored_store(pkg.parse(data))}
        if kind == "manifest":
            value = pkg.parse(data)
            pkg.manifest(value, supported)
            return {"outcome": "accept", "canonical": pkg.canonical(value, kind)}
        if kind in pkg.EXPORTS:
            value = pkg.parse(data)
            pkg.export(value, kind)
            return {"outcome": "accept", "canonical": pkg.canonical(value, kind)}
    except pkg.Violation as v:
        # A manifest or an export names every independent violation; the other kinds their first.
        return {"outcome": "reject", "violations": [{"path": e.path, "rule": e.rule} for e in pkg.every(v)]}
    if kind != "envelope":
        return {"outcome": "unsupported", "reason": f"no kind {kind}"}
    password = context.get("password")
    if not isinstance(password, str):
        return {"outcome": "invalid-request", "reason": "context.password is required"}
    floor = context.get("minimumIterations")
    iterations = (floor, env.STANDARD_ITERATIONS[1]) if floor is not None else env.STANDARD_ITERATIONS
    try:
        plaintext, header = env.open_envelope(data, password, iterations)
    except env.EnvelopeError as e:
        return {"outcome": "reject", "violations": [{"path": e.path, "rule": e.rule, "found": e.code}]}
    return {"outcome": "accept", "canonical": {
        "plaintextLength": len(plaintext), "plaintextSHA256": hashlib.sha256(plaintext).hexdigest(),
        "segmentSize": header["segmentSize"], "iterations": header["iterations"], "segments": header["segments"]}}


def run_machine(request):
    if request.get("family") != "migration":
        return {"outcome": "unsupported", "reason": "this testee implements the migration family only"}
    steps = machines.run(request.get("machine"), request.get("context") or {}, request.get("events") or [])
    if steps is None:
        return {"outcome": "unsupported", "reason": f"no machine {request.get('machine')}"}
    return {"outcome": "trace", "steps": steps}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "bye":
            return
        if op == "hello":
            answer = {"protocol": 1, "implementation": "python cross-check (cryptography)", "families": FAMILIES}
        elif op == "validate":
            answer = dict(validate(request), case=request["case"])
        elif op == "run-machine":
            answer = dict(run_machine(request), case=request["case"])
        else:
            answer = {"case": request.get("case", ""), "outcome": "unsupported", "reason": f"no {op}"}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
