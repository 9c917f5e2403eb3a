"""Record what upstream's retail environment returns, for bench/tau2/upstream-sample.json.

Run once against a checkout of sierra-research/tau2-bench (python3 3.11 with pydantic 2,
loguru, deepdiff, pandas, toml, docstring_parser and httpx; the package's __init__ is
skipped so its LLM dependencies are not needed, and `addict` may be a one-line stub
`class Dict(dict): pass` on PYTHONPATH, since nothing here calls it):

    python3 bench/tau2/upstream-sample.py <tau2-bench>/src <data dir> > bench/tau2/upstream-sample.json

It writes upstream's database hash of the fresh database; for every task, the hash after
its gold actions and the sha256 of each gold action's tool message; the full tool message
text of the first tasks' actions; and a set of extra scenarios (errors and edge cases,
chosen from the data) with every message and the final hash. Nothing of upstream is
copied into the output except what its code returns for these calls.
"""
import hashlib
import json
import sys
import types

src, data = sys.argv[1], sys.argv[2]
# Skip tau2/__init__.py (it imports the runner and its LLM stack).
package = types.ModuleType("tau2")
package.__path__ = [f"{src}/tau2"]
sys.modules["tau2"] = package
sys.path.insert(0, src)

from loguru import logger  # noqa: E402

logger.remove()

from tau2.data_model.message import ToolCall  # noqa: E402
from tau2.domains.retail.data_model import RetailDB  # noqa: E402
from tau2.domains.retail.tools import RetailTools  # noqa: E402
from tau2.environment.environment import Environment  # noqa: E402

DB_TEXT = json.load(open(f"{data}/db.json"))
TASKS = json.load(open(f"{data}/tasks.json"))
FULL_TEXT_TASKS = 4


def fresh():
    return Environment(domain_name="retail", policy="", tools=RetailTools(RetailDB.model_validate(DB_TEXT)))


def call(env, name, arguments):
    return env.get_response(ToolCall(id="x", name=name, arguments=arguments)).content


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def scenarios():
    """Extra calls chosen from the data: errors, rounding, quirks of the writes."""
    db = DB_TEXT
    orders = db["orders"]
    users = db["users"]
    products = db["products"]
    by_status = lambda s: [o for o in orders.values() if o["status"] == s]  # noqa: E731
    pending = by_status("pending")
    delivered = by_status("delivered")

    def other_variant(item, available=True):
        for vid, v in products[item["product_id"]]["variants"].items():
            if vid != item["item_id"] and v["available"] == available:
                return vid
        return None

    def gift_card(user_id, rich):
        for pm in users[user_id]["payment_methods"].values():
            if pm["source"] == "gift_card" and (pm["balance"] > 2000 if rich else pm["balance"] < 50):
                return pm["id"]
        return None

    out = []
    out.append(("reads and lookups", [
        ("get_order_details", {"order_id": "#W0000000"}),
        ("get_order_details", {"order_id": pending[0]["order_id"][1:]}),
        ("get_user_details", {"user_id": "nobody_0000"}),
        ("get_product_details", {"product_id": "0000000000"}),
        ("get_item_details", {"item_id": "0000000000"}),
        ("get_item_details", {"item_id": next(iter(next(iter(products.values()))["variants"]))}),
        ("find_user_id_by_email", {"email": "nobody@example.com"}),
        ("find_user_id_by_email", {"email": next(iter(users.values()))["email"].upper()}),
        ("find_user_id_by_name_zip", {
            "first_name": next(iter(users.values()))["name"]["first_name"].upper(),
            "last_name": next(iter(users.values()))["name"]["last_name"].lower(),
            "zip": next(iter(users.values()))["address"]["zip"],
        }),
        ("list_all_product_types", {}),
        ("transfer_to_human_agents", {"summary": "wants a human"}),
    ]))
    out.append(("calculate", [("calculate", {"expression": e}) for e in [
        "2 + 2", "10 / 4", "(1.5 + 2.25) * 3", "2 ** 10", "7 // 2", "-7 // 2", "1 / 0", "1.0 // 0",
        "0.125 + 0", "0.375 * 1", "2.675 * 1", "1 + ", "2 * x", "007", "-2 ** 2", "3 * 0.1",
        "1234.5678 - 0.0078", "100000000000000000000 * 3", "(((1)))", "1.5e3", "  8  ",
    ]]))
    p0 = pending[0]
    out.append(("cancel errors then cancel", [
        ("cancel_pending_order", {"order_id": delivered[0]["order_id"], "reason": "no longer needed"}),
        ("cancel_pending_order", {"order_id": p0["order_id"], "reason": "too expensive"}),
        ("cancel_pending_order", {"order_id": p0["order_id"], "reason": "ordered by mistake"}),
        ("cancel_pending_order", {"order_id": p0["order_id"], "reason": "ordered by mistake"}),
    ]))
    gift_paid = next(o for o in pending if o["payment_history"][0]["payment_method_id"].startswith("gift_card"))
    out.append(("cancel refunds a gift card", [
        ("cancel_pending_order", {"order_id": gift_paid["order_id"], "reason": "no longer needed"}),
        ("get_user_details", {"user_id": gift_paid["user_id"]}),
    ]))
    # Two items of different products changed at once: upstream gives both the last variant's price and options.
    two = next(o for o in pending if len({i["product_id"] for i in o["items"]}) >= 2
               and all(other_variant(i) for i in o["items"][:2]) and o["items"][0]["item_id"] != o["items"][1]["item_id"])
    a, b = two["items"][0], two["items"][1]
    card = next(iter(users[two["user_id"]]["payment_methods"]))
    out.append(("modify items quirk", [
        ("modify_pending_order_items", {"order_id": two["order_id"], "item_ids": [a["item_id"]], "new_item_ids": [a["item_id"]], "payment_method_id": card}),
        ("modify_pending_order_items", {"order_id": two["order_id"], "item_ids": [a["item_id"], b["item_id"]], "new_item_ids": [other_variant(a)], "payment_method_id": card}),
        ("modify_pending_order_items", {"order_id": two["order_id"], "item_ids": ["0000000000"], "new_item_ids": ["1"], "payment_method_id": card}),
        ("modify_pending_order_items", {"order_id": two["order_id"], "item_ids": [a["item_id"], b["item_id"]], "new_item_ids": [other_variant(a), other_variant(b)], "payment_method_id": card}),
        ("modify_pending_order_items", {"order_id": two["order_id"], "item_ids": [other_variant(a)], "new_item_ids": [a["item_id"]], "payment_method_id": card}),
    ]))
    unavailable = next(o for o in pending if any(other_variant(i, False) for i in o["items"]))
    ui = next(i for i in unavailable["items"] if other_variant(i, False))
    out.append(("modify to an unavailable item", [
        ("modify_pending_order_items", {"order_id": unavailable["order_id"], "item_ids": [ui["item_id"]], "new_item_ids": [other_variant(ui, False)], "payment_method_id": unavailable["payment_history"][0]["payment_method_id"]}),
    ]))
    gc_order = next(o for o in pending if gift_card(o["user_id"], False) and other_variant(o["items"][0]))
    gi = gc_order["items"][0]
    out.append(("modify items paid by gift card", [
        ("modify_pending_order_items", {"order_id": gc_order["order_id"], "item_ids": [gi["item_id"]], "new_item_ids": [other_variant(gi)], "payment_method_id": gift_card(gc_order["user_id"], False)}),
        ("get_user_details", {"user_id": gc_order["user_id"]}),
    ]))
    pay = next(o for o in pending if len(users[o["user_id"]]["payment_methods"]) >= 2)
    current = pay["payment_history"][0]["payment_method_id"]
    other = next(k for k in users[pay["user_id"]]["payment_methods"] if k != current)
    out.append(("modify payment", [
        ("modify_pending_order_payment", {"order_id": pay["order_id"], "payment_method_id": current}),
        ("modify_pending_order_payment", {"order_id": pay["order_id"], "payment_method_id": "paypal_0000000"}),
        ("modify_pending_order_payment", {"order_id": pay["order_id"], "payment_method_id": other}),
        ("modify_pending_order_payment", {"order_id": pay["order_id"], "payment_method_id": current}),
        ("get_user_details", {"user_id": pay["user_id"]}),
    ]))
    poor = next(o for o in pending if gift_card(o["user_id"], False) and o["payment_history"][0]["amount"] > 100
                and o["payment_history"][0]["payment_method_id"] != gift_card(o["user_id"], False))
    out.append(("modify payment to a poor gift card", [
        ("modify_pending_order_payment", {"order_id": poor["order_id"], "payment_method_id": gift_card(poor["user_id"], False)}),
    ]))
    d0 = next(o for o in delivered if len(o["items"]) >= 2 and other_variant(o["items"][0]))
    non_original = next((k for k, pm in users[d0["user_id"]]["payment_methods"].items()
                         if pm["source"] != "gift_card" and k != d0["payment_history"][0]["payment_method_id"]), None)
    steps = [
        ("return_delivered_order_items", {"order_id": p0["order_id"], "item_ids": [], "payment_method_id": "x"}),
        ("return_delivered_order_items", {"order_id": d0["order_id"], "item_ids": ["0000000000"], "payment_method_id": d0["payment_history"][0]["payment_method_id"]}),
    ]
    if non_original is not None:
        steps.append(("return_delivered_order_items", {"order_id": d0["order_id"], "item_ids": [d0["items"][0]["item_id"]], "payment_method_id": non_original}))
    steps += [
        ("exchange_delivered_order_items", {"order_id": d0["order_id"], "item_ids": [d0["items"][0]["item_id"]], "new_item_ids": [], "payment_method_id": d0["payment_history"][0]["payment_method_id"]}),
        ("return_delivered_order_items", {"order_id": d0["order_id"], "item_ids": [d0["items"][1]["item_id"], d0["items"][0]["item_id"]], "payment_method_id": d0["payment_history"][0]["payment_method_id"]}),
        ("exchange_delivered_order_items", {"order_id": d0["order_id"], "item_ids": [d0["items"][0]["item_id"]], "new_item_ids": [other_variant(d0["items"][0])], "payment_method_id": d0["payment_history"][0]["payment_method_id"]}),
    ]
    out.append(("returns and exchanges", steps))
    d1 = next(o for o in delivered if o is not d0 and len(o["items"]) >= 2 and all(other_variant(i) for i in o["items"][:2]))
    out.append(("exchange two items", [
        ("exchange_delivered_order_items", {"order_id": d1["order_id"], "item_ids": [d1["items"][1]["item_id"], d1["items"][0]["item_id"]], "new_item_ids": [other_variant(d1["items"][1]), other_variant(d1["items"][0])], "payment_method_id": d1["payment_history"][0]["payment_method_id"]}),
    ]))
    u0 = next(iter(users.values()))
    out.append(("addresses", [
        ("modify_pending_order_address", {"order_id": delivered[0]["order_id"], "address1": "1 A St", "address2": "", "city": "B", "state": "CA", "country": "USA", "zip": "00001"}),
        ("modify_pending_order_address", {"order_id": p0["order_id"], "zip": "00001", "country": "USA", "state": "CA", "city": "B", "address2": "", "address1": "1 A St"}),
        ("modify_user_address", {"user_id": u0["user_id"], "address1": "2 C Ave", "address2": "Unit \u00e9", "city": "D", "state": "NY", "country": "USA", "zip": "00002"}),
    ]))
    return out


result = {"initialHash": fresh().tools.get_db_hash(), "tasks": {}, "texts": [], "scenarios": []}
for n, task in enumerate(TASKS):
    env = fresh()
    outputs = []
    for action in task["evaluation_criteria"]["actions"]:
        content = call(env, action["name"], action["arguments"])
        outputs.append(sha(content))
        if n < FULL_TEXT_TASKS:
            result["texts"].append({"task": task["id"], "name": action["name"], "arguments": action["arguments"], "content": content})
    result["tasks"][task["id"]] = {"goldHash": env.tools.get_db_hash(), "outputs": outputs}
for title, steps in scenarios():
    env = fresh()
    calls = [{"name": name, "arguments": arguments, "content": call(env, name, arguments)} for name, arguments in steps]
    result["scenarios"].append({"title": title, "calls": calls, "hash": env.tools.get_db_hash()})
json.dump(result, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
