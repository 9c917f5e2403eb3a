"""Write upstream's long-context filler constants as JSON, for `npm run bench:bfcl -- --filler <file>`.

    python3 bench/bfcl/extract-filler.py <gorilla>/berkeley-function-call-leaderboard > /tmp/bfcl-filler.json

Reads the constants from your own checkout of ShishirPatil/gorilla (Apache-2.0); the output
is for local use and is not committed here.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
from bfcl_eval.eval_checker.multi_turn_eval.func_source_code import long_context  # noqa: E402

# `...` (Ellipsis) appears in one list upstream; JSON has no such value, so it becomes the string "Ellipsis".
json.dump({name: getattr(long_context, name) for name in dir(long_context) if name.isupper()}, sys.stdout, default=repr)
