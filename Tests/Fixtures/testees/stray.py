"""A testee that prints one stray line before each answer, as a forgotten debug print would.
It answers `unsupported`. Argument: a file it appends its pid to when it starts."""
import json, os, sys

if len(sys.argv) > 1:
    with open(sys.argv[1], "a") as f:
        f.write(f"{os.getpid()}\n")
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        print(json.dumps({"protocol": 1, "implementation": "stray"}), flush=True)
    elif request["op"] == "bye":
        break
    else:
        print("debug: got a request", flush=True)
        print(json.dumps({"case": request["case"], "outcome": "unsupported", "reason": "none"}), flush=True)
