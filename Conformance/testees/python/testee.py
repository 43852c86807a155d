#!/usr/bin/env python3
"""A second, independent implementation speaking the testee protocol
(Conformance/testee-protocol.md). It implements the migration envelope from the Spec alone, with
Python's `cryptography`; it shares no code with the Swift reference.

    swift run conformance run --family migration --peer exec:'python3 Conformance/testees/python/testee.py'
"""
import base64
import hashlib
import json
import sys

import msbk_envelope as env

FAMILIES = ["migration"]


def validate(request):
    if request.get("family") != "migration" or request.get("kind") != "envelope":
        return {"outcome": "unsupported", "reason": "this testee implements the migration envelope only"}
    context = request.get("context") or {}
    password = context.get("password")
    if not isinstance(password, str):
        return {"outcome": "invalid-request", "reason": "context.password is required"}
    floor = context.get("minimumIterations")
    iterations = (floor, env.STANDARD_ITERATIONS[1]) if floor is not None else env.STANDARD_ITERATIONS
    data = base64.b64decode(request["document"])
    try:
        plaintext, header = env.open_envelope(data, password, iterations)
    except env.EnvelopeError as e:
        return {"outcome": "reject", "violations": [{"path": e.path, "rule": e.rule, "found": e.code}]}
    return {"outcome": "accept", "canonical": {
        "plaintextLength": len(plaintext), "plaintextSHA256": hashlib.sha256(plaintext).hexdigest(),
        "segmentSize": header["segmentSize"], "iterations": header["iterations"], "segments": header["segments"]}}


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
        else:
            answer = {"case": request.get("case", ""), "outcome": "unsupported", "reason": f"no {op}"}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
