"""Record what upstream's own environment classes return, for bench/bfcl/upstream-sample.json.

Run once against a checkout of ShishirPatil/gorilla (python3 3.11, standard library plus mpmath):

    python3 bench/bfcl/upstream-sample.py <gorilla>/berkeley-function-call-leaderboard <data dir> > bench/bfcl/upstream-sample.json

For a sample of entries it replays the ground truth turn by turn on upstream's classes
(loaded as upstream's executor loads them) and writes, per turn, the result strings and the
public attributes of every instance. Nothing of upstream is copied into the output except
what its classes return for these calls.
"""
import copy
import importlib
import inspect
import json
import sys

root, data = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING, STATELESS_CLASSES  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call  # noqa: E402

SAMPLE = {"base": range(0, 200, 8), "miss_param": range(3, 200, 10), "miss_func": range(5, 200, 20)}


def plain(v):
    name = type(v).__name__
    if name == "File":
        return {"file": v.name, "content": v.content}
    if name == "Directory":
        return {"directory": v.name, "contents": {k: plain(x) for k, x in v.contents.items()}}
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, set):
        return sorted(plain(x) for x in v)
    return v


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


out = []
for category, ids in SAMPLE.items():
    questions = lines(f"{data}/BFCL_v4_multi_turn_{category}.json")
    answers = {a["id"]: a["ground_truth"] for a in lines(f"{data}/possible_answer/BFCL_v4_multi_turn_{category}.json")}
    for i in ids:
        entry = questions[i]
        turns = []
        for calls in answers[entry["id"]]:
            results, instances = execute_multi_turn_func_call(
                calls, entry["initial_config"], entry["involved_classes"], "sample", entry["id"],
                long_context="long_context" in category, is_evaL_run=True)
            state = {cls: {k: plain(v) for k, v in vars(inst).items() if not k.startswith("_")}
                     for cls, inst in instances.items()}
            turns.append({"results": results, "state": state})
        out.append({"id": entry["id"], "category": f"multi_turn_{category}",
                    "involved_classes": entry["involved_classes"], "initial_config": entry["initial_config"],
                    "ground_truth": answers[entry["id"]], "turns": turns})
# Each public method's class and positional parameter order, read from upstream's classes.
methods = {}
for cls, module in CLASS_FILE_PATH_MAPPING.items():
    if cls not in {c for e in out for c in e["involved_classes"]}:
        continue
    klass = getattr(importlib.import_module(module), cls)
    for name, fn in inspect.getmembers(klass, inspect.isfunction):
        if not name.startswith("_"):
            methods[name] = {"cls": cls, "order": list(inspect.signature(fn).parameters)[1:]}
json.dump({"source": "ShishirPatil/gorilla@6ea57973c7a6097fd7c5915698c54c17c5b1b6c8", "methods": methods,
           "entries": out}, sys.stdout)
