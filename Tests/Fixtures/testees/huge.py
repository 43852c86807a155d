"""A testee whose every answer is one line of 16 MiB: `unsupported` with a reason of 16 MiB
(a testee that quotes a whole package in its reason). Reading it must take well under the
case timeout, and the reports keep only the start of it."""
import json, sys

HUGE = "x" * (16 << 20)
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        print(json.dumps({"protocol": 1, "implementation": "huge"}), flush=True)
    elif request["op"] == "bye":
        break
    else:
        answer = {"case": request["case"], "outcome": "unsupported", "reason": HUGE}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
