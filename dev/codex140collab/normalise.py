# Reads the MCP client's JSON lines (client.mjs output) on stdin and prints the
# collab messages of the codex/event stream, one JSON object a line, with the
# thread ids replaced by ROOT and AGENT1.., the agents'
# nicknames (picked at random) by NICK1.. and the clock fields set to 0.
# A last line {"_not_sent": [...]} lists what the stream did not carry: events
# of another thread (the sub-agent's own) and sub_agent_activity.
import json, sys

ids, out, others = {}, [], set()
def norm(v):
    if isinstance(v, dict):
        return {ids.get(k, k): norm(x) if k not in ("started_at_ms", "completed_at_ms") else 0 for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return ids.get(v, v) if isinstance(v, str) else v

root = None
for line in sys.stdin:
    o = json.loads(line)
    e = o.get("event")
    if not e:
        continue
    m = e["msg"]
    root = root or e["_meta"]["threadId"]
    ids.setdefault(root, "ROOT")
    if e["_meta"]["threadId"] != root:
        others.add("thread " + m["type"])
    if m["type"] == "collab_agent_spawn_end" and m.get("new_thread_id"):
        ids.setdefault(m["new_thread_id"], "AGENT%d" % len(ids))
        if m.get("new_agent_nickname"):
            ids.setdefault(m["new_agent_nickname"], "NICK%d" % (len(ids) - 1))
    if m["type"].startswith("collab_") or m["type"] == "sub_agent_activity":
        out.append(norm(m))
for m in out:
    print(json.dumps(m, sort_keys=True))
sent = {m["type"] for m in out}
print(json.dumps({"_not_sent": sorted(others) + ([] if "sub_agent_activity" in sent else ["sub_agent_activity"])}))
