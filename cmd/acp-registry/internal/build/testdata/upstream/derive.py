#!/usr/bin/env python3
"""Derives the indexes the public registry's newest build writes for a tree.

Written from what agentclientprotocol/registry's newest
.github/workflows/build_registry.py does (read with the search tools; its
tests in tests/test_build_registry.py pin the same behaviour), not copied
from it:

- every agent folder, sorted by name, contributes its agent.json as read,
  with "icon" set to <base>/<id>.svg and "preview" removed;
- registry.json leaves out github-copilot and ends with "extensions": [];
- registry-for-jetbrains.json leaves out github-copilot-cli; claude-acp gets
  "--hide-claude-auth" appended to its npx args (the list is created when
  missing) and a top-level "bundled": true;
- registry-for-jetbrains-preview.json is the JetBrains index built from the
  preview merge: an agent whose preview.version ranks above its version
  (semantic-version precedence) carries the preview's version and
  distribution, and the JetBrains changes are applied after the merge.

Usage: derive.py TREE BASE_URL OUTDIR
"""

import copy
import json
import re
import sys
from pathlib import Path

MAIN_EXCLUDE = {"github-copilot"}
JETBRAINS_EXCLUDE = {"github-copilot-cli"}


def precedence(version):
    core, _, pre = version.partition("-")
    key = [tuple(int(p) for p in core.split("."))]
    if not pre:
        return (key, 1, ())
    ids = []
    for part in pre.split("."):
        ids.append((0, int(part), "") if re.fullmatch(r"\d+", part) else (1, 0, part))
    return (key, 0, tuple(ids))


def entries(tree, base):
    out = []
    for d in sorted(p for p in Path(tree).iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        manifest = json.loads((d / "agent.json").read_text())
        manifest["icon"] = f"{base}/{manifest['id']}.svg"
        out.append(manifest)
    return out


def stable(agent):
    a = copy.deepcopy(agent)
    a.pop("preview", None)
    return a


def promoted(agent):
    a = stable(agent)
    p = agent.get("preview")
    if p and precedence(p["version"]) > precedence(agent["version"]):
        a["version"] = p["version"]
        a["distribution"] = copy.deepcopy(p["distribution"])
    return a


def for_jetbrains(agent):
    a = copy.deepcopy(agent)
    if a["id"] == "claude-acp":
        a["distribution"]["npx"].setdefault("args", []).append("--hide-claude-auth")
        a["bundled"] = True
    return a


def main():
    tree, base, outdir = sys.argv[1], sys.argv[2].rstrip("/"), Path(sys.argv[3])
    agents = entries(tree, base)
    docs = {
        "registry.json": {
            "version": "1.0.0",
            "agents": [stable(a) for a in agents if a["id"] not in MAIN_EXCLUDE],
            "extensions": [],
        },
        "registry-for-jetbrains.json": {
            "version": "1.0.0",
            "agents": [for_jetbrains(stable(a)) for a in agents if a["id"] not in JETBRAINS_EXCLUDE],
        },
        "registry-for-jetbrains-preview.json": {
            "version": "1.0.0",
            "agents": [for_jetbrains(promoted(a)) for a in agents if a["id"] not in JETBRAINS_EXCLUDE],
        },
    }
    outdir.mkdir(parents=True, exist_ok=True)
    for name, doc in docs.items():
        (outdir / name).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
