"""Wraps another testee command and changes what it says, to test graded results:
  --verdict-only        drop the violations of every `reject` (accept/reject only, rule unknown)
  --hello JSON          answer hello with this object instead
Usage: python3 wrap.py [--verdict-only] [--hello JSON] -- COMMAND..."""
import json, subprocess, sys

args = sys.argv[1:]
split = args.index("--")
options, command = args[:split], args[split + 1:]
verdict_only = "--verdict-only" in options
hello = json.loads(options[options.index("--hello") + 1]) if "--hello" in options else None
inner = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for line in sys.stdin:
    request = json.loads(line)
    inner.stdin.write(line)
    inner.stdin.flush()
    if request["op"] == "bye":
        break
    answer = json.loads(inner.stdout.readline())
    if request["op"] == "hello" and hello is not None:
        answer = hello
    if verdict_only and answer.get("outcome") == "reject":
        answer.pop("violations", None)
    print(json.dumps(answer), flush=True)
inner.wait(timeout=5)
