"""Wraps another testee command and changes what it says, to test graded results:
  --verdict-only        drop the violations of every `reject` (accept/reject only, rule unknown)
  --hello JSON          answer hello with this object instead
  --flaky CASE          answer CASE wrongly every second time it is asked (a flaky testee)
  --wrong CASE          answer CASE wrongly every time
Usage: python3 wrap.py [--verdict-only] [--hello JSON] [--flaky CASE] [--wrong CASE] -- COMMAND..."""
import json, subprocess, sys

args = sys.argv[1:]
split = args.index("--")
options, command = args[:split], args[split + 1:]
verdict_only = "--verdict-only" in options
hello = json.loads(options[options.index("--hello") + 1]) if "--hello" in options else None
flaky = options[options.index("--flaky") + 1] if "--flaky" in options else None
wrong = options[options.index("--wrong") + 1] if "--wrong" in options else None
asked = 0
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
    if request.get("case") is not None and request.get("case") in (flaky, wrong):
        asked += 1
        if request.get("case") == wrong or asked % 2 == 0:
            # The opposite verdict: an accept becomes a reject naming a rule, a reject an accept.
            if answer.get("outcome") == "accept":
                answer = {"case": request["case"], "outcome": "reject", "violations": [{"path": "", "rule": "CORE-JSON-001"}]}
            else:
                answer = {"case": request["case"], "outcome": "accept", "canonical": {}}
    print(json.dumps(answer), flush=True)
inner.wait(timeout=5)
